package translate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestConfinedKindsRefusals: what a tenant may not write of the kinds the
// proxy writes with its own identity (AccessProxy), and what it may.
func TestConfinedKindsRefusals(t *testing.T) {
	tr := newTestTranslator(t)
	grFS := gr(flowGroup, "flowschemas")
	cases := []struct {
		name string
		gr   schema.GroupResource
		in   string
		msg  string // empty: admitted
	}{
		{"flow schema below the floor", grFS, `{"metadata":{"name":"f"},"spec":{"matchingPrecedence":999}}`, "at least 1000"},
		{"flow schema outranking the exempt one", grFS, `{"metadata":{"name":"f"},"spec":{"matchingPrecedence":1}}`, "at least 1000"},
		{"flow schema at the floor", grFS, `{"metadata":{"name":"f"},"spec":{"matchingPrecedence":1000}}`, ""},
		{"flow schema with the default precedence", grFS, `{"metadata":{"name":"f"},"spec":{}}`, ""},
		{"flow schema with precedence 0 (the API defaults it to 1000; protobuf always sends it)", grFS, `{"metadata":{"name":"f"},"spec":{"matchingPrecedence":0}}`, ""},
		{"priority level with huge shares", grPLC, `{"metadata":{"name":"p"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":1000000}}}`, "at most 10"},
		{"priority level with shares just over the cap", grPLC, `{"metadata":{"name":"p"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":11}}}`, "at most 10"},
		{"priority level with null shares (defaulted to 30)", grPLC, `{"metadata":{"name":"p"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":null}}}`, "at most 10"},
		{"priority level with old assured shares", grPLC, `{"metadata":{"name":"p"},"spec":{"type":"Limited","limited":{"assuredConcurrencyShares":50}}}`, "at most 10"},
		{"priority level with an exempt section", grPLC, `{"metadata":{"name":"p"},"spec":{"exempt":{"nominalConcurrencyShares":0}}}`, "Exempt"},
		{"priority level with the cap", grPLC, `{"metadata":{"name":"p"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":10}}}`, ""},
		{"policy with node parameters", grVAP, `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"v1","kind":"Node"}}}`, "namespaced kind"},
		{"policy with another tenant's ClusterRoles as parameters", grVAP, `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole"}}}`, "namespaced kind"},
		{"policy with namespace parameters", grVAP, `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"v1","kind":"Namespace"}}}`, "namespaced kind"},
		{"policy with an unknown built-in kind", grVAP, `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"apps/v1","kind":"Nothing"}}}`, "namespaced kind"},
		{"policy with ConfigMap parameters", grVAP, `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"}}}`, ""},
		{"policy with parameters of its own group", grVAP, `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"params.example.com/v1","kind":"Limits"}}}`, ""},
		{"flow schema naming system:masters", gr(flowGroup, "flowschemas"), `{"metadata":{"name":"f"},"spec":{"rules":[{"subjects":[{"kind":"Group","group":{"name":"system:masters"}}]}]}}`, "superuser"},
		{"webhook dialing a URL", gr(admissionGroup, "validatingwebhookconfigurations"), `{"metadata":{"name":"w"},"webhooks":[{"name":"a.b","clientConfig":{"url":"https://169.254.169.254/"}}]}`, "url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tr.ObjectToUpstream(tc.gr, jsonObj(t, tc.in))
			if tc.msg == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			st := ToStatus(err)
			assert.Equal(t, int32(http.StatusForbidden), st.Code)
			assert.Contains(t, st.Message, tc.msg)
		})
	}
}

// TestConfinedKindsIn: how the translator confines those kinds upstream.
func TestConfinedKindsIn(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name string
		gr   schema.GroupResource
		in   string
		want string
	}{
		{"flow schema naming another tenant's user and every user", gr(flowGroup, "flowschemas"),
			`{"metadata":{"name":"f"},"spec":{"matchingPrecedence":1000,"priorityLevelConfiguration":{"name":"exempt"},"rules":[{"subjects":[{"kind":"User","user":{"name":"zoo:beta:admin"}},{"kind":"Group","group":{"name":"system:authenticated"}},{"kind":"User","user":{"name":"*"}}]}]}}`,
			`{"metadata":{"name":"acme-f","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"matchingPrecedence":1000,"priorityLevelConfiguration":{"name":"acme-exempt"},"rules":[{"subjects":[{"kind":"User","user":{"name":"zoo:acme:zoo:beta:admin"}},{"kind":"Group","group":{"name":"zoo:tenant:acme"}},{"kind":"User","user":{"name":"zoo:acme:*"}}]}]}}`},
		{"policy binding of another tenant's policy and parameters", gr(admissionGroup, "validatingadmissionpolicybindings"),
			`{"metadata":{"name":"b"},"spec":{"policyName":"beta-p","paramRef":{"namespace":"beta-default","name":"x"}}}`,
			`{"metadata":{"name":"acme-b","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"policyName":"acme-beta-p","paramRef":{"namespace":"acme-beta-default","name":"x"}}}`},
		{"policy matching every namespace and cluster-scoped request", grVAP,
			`{"metadata":{"name":"p"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["*"],"apiVersions":["*"],"resources":["*"],"operations":["*"]}]}}}`,
			`{"metadata":{"name":"acme-p","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["*"],"apiVersions":["*"],"resources":["*"],"operations":["*"]}],"namespaceSelector":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]}},"matchConditions":[{"name":"zoo.kubectl-zoo.io/tenant","expression":"((has(request.namespace) && request.namespace != '') || (has(request.name) && request.name.startsWith('acme-')) || (has(request.userInfo.groups) && 'zoo:tenant:acme' in request.userInfo.groups)) && (object == null || !has(object.metadata) || !has(object.metadata.labels) || !('zoo.kubectl-zoo.io/propagated-from' in object.metadata.labels)) && (oldObject == null || !has(oldObject.metadata) || !has(oldObject.metadata.labels) || !('zoo.kubectl-zoo.io/propagated-from' in oldObject.metadata.labels)) && (!has(request.userInfo.username) || request.userInfo.username != 'kubectl-zoo:sleep')"}]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.in)
			require.NoError(t, tr.ObjectToUpstream(tc.gr, obj))
			jsonEq(t, tc.want, obj)
		})
	}
}

// TestConfinedKindsOut: an object of those kinds is the tenant's only when
// it carries the tenant's label; its name's prefix is not enough (the
// proxy reads them with its own identity).
func TestConfinedKindsOut(t *testing.T) {
	tr := newTestTranslator(t)
	for _, rule := range Kinds() {
		if rule.Access != AccessProxy {
			continue
		}
		t.Run(rule.Kind, func(t *testing.T) {
			for name, labels := range map[string]string{
				"unlabelled":             `{}`,
				"another tenant's label": `{"zoo.kubectl-zoo.io/tenant":"beta"}`,
			} {
				err := tr.ObjectToTenant(rule.Resource, jsonObj(t, `{"metadata":{"name":"acme-x","labels":`+labels+`}}`))
				require.Error(t, err, name)
				assert.True(t, IsNotTenants(err), name)
			}
			obj := jsonObj(t, `{"metadata":{"name":"acme-x","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`)
			require.NoError(t, tr.ObjectToTenant(rule.Resource, obj))
			jsonEq(t, `{"metadata":{"name":"x"}}`, obj)
		})
	}
}

// TestPriorityLevelSharesDefault: a priority level that names no shares
// gets TenantMaxConcurrencyShares upstream (create and update), where the
// API server would default it to 30.
func TestPriorityLevelSharesDefault(t *testing.T) {
	tr := newTestTranslator(t)
	body := `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"p"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}}`
	for _, tc := range []struct{ method, path string }{
		{http.MethodPost, "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations"},
		{http.MethodPut, "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/p"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			h := http.Header{"Content-Type": []string{MediaJSON}}
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: h, Body: []byte(body)})
			require.NoError(t, err)
			jsonEq(t, `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"acme-p","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":10,"limitResponse":{"type":"Reject"}}}}`,
				jsonObj(t, string(u.Body)))
		})
	}
}
