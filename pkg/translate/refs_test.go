package translate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func jsonObj(t *testing.T, s string) map[string]any {
	t.Helper()
	var obj map[string]any
	require.NoError(t, decodeJSON([]byte(s), &obj))
	return obj
}

func jsonEq(t *testing.T, want string, got any) {
	t.Helper()
	var w any
	require.NoError(t, decodeJSON([]byte(want), &w))
	assert.Equal(t, normalize(t, w), normalize(t, got))
}

// TestCrossReferencesIn checks one cross reference per case, tenant → upstream.
func TestCrossReferencesIn(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name string
		gr   schema.GroupResource
		in   string
		want string
	}{
		{"ownerReferences cluster-scoped owner", gr("", "configmaps"),
			`{"metadata":{"namespace":"default","ownerReferences":[{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","name":"view"},{"apiVersion":"stable.example.com/v1","kind":"ClusterThing","name":"x"}]}}`,
			`{"metadata":{"namespace":"acme-default","ownerReferences":[{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","name":"acme-view"},{"apiVersion":"acme-stable.example.com/v1","kind":"ClusterThing","name":"x"}]}}`},
		{"rbac rule split between owned and namespaced resources", gr(rbacGroup, "roles"),
			`{"rules":[{"apiGroups":[""],"resources":["namespaces","configmaps"],"resourceNames":["prod"],"verbs":["get"]}]}`,
			`{"rules":[{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["prod"],"verbs":["get"]},{"apiGroups":[""],"resources":["namespaces"],"resourceNames":["acme-prod"],"verbs":["get"]}]}`},
		{"rbac rule wildcard group", gr(rbacGroup, "roles"),
			`{"rules":[{"apiGroups":["*"],"resources":["clusterroles"],"resourceNames":["view"],"verbs":["get"]}]}`,
			`{"rules":[{"apiGroups":["*"],"resources":["clusterroles"],"resourceNames":["acme-view"],"verbs":["get"]}]}`},
		{"roleRef Role stays", gr(rbacGroup, "rolebindings"),
			`{"roleRef":{"kind":"Role","name":"reader"}}`, `{"roleRef":{"kind":"Role","name":"reader"}}`},
		{"roleRef standard ClusterRole", gr(rbacGroup, "clusterrolebindings"),
			`{"roleRef":{"kind":"ClusterRole","name":"cluster-admin"}}`, `{"roleRef":{"kind":"ClusterRole","name":"acme-cluster-admin"}}`},
		{"PV claimRef", grPV, `{"spec":{"claimRef":{"namespace":"default","name":"data"}}}`,
			`{"spec":{"claimRef":{"namespace":"acme-default","name":"data"}}}`},
		{"PVC volumeName and shared class", gr("", "persistentvolumeclaims"),
			`{"spec":{"volumeName":"pv1","storageClassName":"standard"}}`, `{"spec":{"volumeName":"acme-pv1","storageClassName":"standard"}}`},
		{"PVC own class", gr("", "persistentvolumeclaims"),
			`{"spec":{"storageClassName":"fast"}}`, `{"spec":{"storageClassName":"acme-fast"}}`},
		{"core event about a namespace", gr("", "events"),
			`{"involvedObject":{"kind":"Namespace","apiVersion":"v1","name":"prod"}}`, `{"involvedObject":{"kind":"Namespace","apiVersion":"v1","name":"acme-prod"}}`},
		{"events.k8s.io regarding a CR", gr("events.k8s.io", "events"),
			`{"regarding":{"kind":"CronTab","apiVersion":"stable.example.com/v1","namespace":"default","name":"x"}}`,
			`{"regarding":{"kind":"CronTab","apiVersion":"acme-stable.example.com/v1","namespace":"acme-default","name":"x"}}`},
		{"endpointslice targetRef", gr("discovery.k8s.io", "endpointslices"),
			`{"endpoints":[{"targetRef":{"kind":"Pod","namespace":"default","name":"p"}}]}`,
			`{"endpoints":[{"targetRef":{"kind":"Pod","namespace":"acme-default","name":"p"}}]}`},
		{"webhook without selector is confined", gr(admissionGroup, "validatingwebhookconfigurations"),
			`{"webhooks":[{"name":"a"}]}`,
			`{"webhooks":[{"name":"a","namespaceSelector":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]},"matchConditions":[{"name":"zoo.kubectl-zoo.io/tenant","expression":"((has(request.namespace) \u0026\u0026 request.namespace != '') || (has(request.name) \u0026\u0026 request.name.startsWith('acme-')) || (has(request.userInfo.groups) \u0026\u0026 'zoo:tenant:acme' in request.userInfo.groups)) && (object == null || !has(object.metadata) || !has(object.metadata.labels) || !('zoo.kubectl-zoo.io/propagated-from' in object.metadata.labels)) && (oldObject == null || !has(oldObject.metadata) || !has(oldObject.metadata.labels) || !('zoo.kubectl-zoo.io/propagated-from' in oldObject.metadata.labels)) && (!has(request.userInfo.username) || request.userInfo.username != 'kubectl-zoo:sleep')"}]}]}`},
		{"network policy peer without namespaceSelector stays", gr("networking.k8s.io", "networkpolicies"),
			`{"spec":{"ingress":[{"from":[{"podSelector":{}}]}]}}`, `{"spec":{"ingress":[{"from":[{"podSelector":{}}]}]}}`},
		{"network policy empty namespaceSelector is all tenant namespaces", gr("networking.k8s.io", "networkpolicies"),
			`{"spec":{"ingress":[{"from":[{"namespaceSelector":{}}]}]}}`,
			`{"spec":{"ingress":[{"from":[{"namespaceSelector":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]}}]}]}}`},
		{"priority class capped", grPriorityClass, `{"metadata":{"name":"top"},"value":1000000,"globalDefault":true}`,
			`{"metadata":{"name":"acme-top","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"value":0,"preemptionPolicy":"Never","globalDefault":false}`},
		{"cluster-scoped CR of a tenant group keeps its name", gr("stable.example.com", "clusterthings"),
			`{"apiVersion":"stable.example.com/v1","metadata":{"name":"x"}}`, `{"apiVersion":"acme-stable.example.com/v1","metadata":{"name":"x"}}`},
		{"generateName of a namespace", grNamespace, `{"metadata":{"generateName":"e2e-"}}`,
			`{"metadata":{"generateName":"acme-e2e-","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{"managedFields apiVersion", gr("stable.example.com", "crontabs"),
			`{"metadata":{"namespace":"default","managedFields":[{"apiVersion":"stable.example.com/v1","manager":"kubectl"}]}}`,
			`{"metadata":{"namespace":"acme-default","managedFields":[{"apiVersion":"acme-stable.example.com/v1","manager":"kubectl"}]}}`},
		{"VAP binding policy name and param namespace", gr(admissionGroup, "validatingadmissionpolicybindings"),
			`{"spec":{"policyName":"p","paramRef":{"namespace":"default"}}}`, `{"spec":{"policyName":"acme-p","paramRef":{"namespace":"acme-default"}}}`},
		{"SelfSubjectAccessReview about a cluster role", gr(authzGroup, "selfsubjectaccessreviews"),
			`{"spec":{"resourceAttributes":{"group":"rbac.authorization.k8s.io","resource":"clusterroles","name":"view"}}}`,
			`{"spec":{"resourceAttributes":{"group":"rbac.authorization.k8s.io","resource":"clusterroles","name":"acme-view"}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.in)
			require.NoError(t, tr.ObjectToUpstream(tc.gr, obj))
			jsonEq(t, tc.want, obj)
		})
	}
}

// TestCrossReferencesOut checks upstream → tenant, including what is dropped.
func TestCrossReferencesOut(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name string
		gr   schema.GroupResource
		in   string
		want string
	}{
		{"foreign subjects dropped", gr(rbacGroup, "rolebindings"),
			`{"subjects":[{"kind":"User","name":"zoo:beta:dev"},{"kind":"Group","name":"zoo:beta:ops"},{"kind":"ServiceAccount","namespace":"beta-default","name":"x"},{"kind":"User","name":"zoo:acme:dev"},{"kind":"Group","name":"system:authenticated"}]}`,
			`{"subjects":[{"kind":"User","name":"dev"}]}`},
		{"shared class reference stays", gr("", "persistentvolumeclaims"),
			`{"spec":{"storageClassName":"standard"}}`, `{"spec":{"storageClassName":"standard"}}`},
		{"foreign reference removed", gr("", "events"),
			`{"involvedObject":{"kind":"Pod","namespace":"beta-default","name":"p"}}`, `{}`}, // left out whole: without its namespace it would read as acme's pod p
		{"shared object of the cluster", grStorageClass, `{"metadata":{"name":"standard"}}`, `{"metadata":{"name":"standard"}}`},
		{"own shared object", grStorageClass, `{"metadata":{"name":"acme-fast","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`, `{"metadata":{"name":"fast"}}`},
		{"managedFields hide the ownership label", grNamespace,
			`{"metadata":{"name":"acme-a","managedFields":[{"apiVersion":"v1","fieldsV1":{"f:metadata":{"f:labels":{"f:zoo.kubectl-zoo.io/tenant":{},"f:x":{}}}}}]}}`,
			`{"metadata":{"name":"a","managedFields":[{"apiVersion":"v1","fieldsV1":{"f:metadata":{"f:labels":{"f:x":{}}}}}]}}`},
		{"token review of another tenant's token", gr(authnGroup, "tokenreviews"),
			`{"status":{"authenticated":true,"user":{"username":"zoo:beta:dev"}}}`,
			`{"status":{"authenticated":false,"error":"the token does not belong to this cluster"}}`},
		{"webhook selector and condition stripped", gr(admissionGroup, "mutatingwebhookconfigurations"),
			`{"metadata":{"name":"acme-w","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"webhooks":[{"namespaceSelector":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]},"matchConditions":[{"name":"zoo.kubectl-zoo.io/tenant","expression":"x"}]}]}`,
			`{"metadata":{"name":"w"},"webhooks":[{"namespaceSelector":{}}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.in)
			require.NoError(t, tr.ObjectToTenant(tc.gr, obj))
			jsonEq(t, tc.want, obj)
		})
	}
}

// TestObjectErrors checks refusals and their Status codes.
func TestObjectErrors(t *testing.T) {
	tr := newTestTranslator(t)
	long := make([]byte, 60)
	for i := range long {
		long[i] = 'a'
	}
	cases := []struct {
		name string
		gr   schema.GroupResource
		in   string
		out  bool
		code int32
		msg  string
	}{
		{"tenant sets the ownership label", gr("", "configmaps"), `{"metadata":{"labels":{"zoo.kubectl-zoo.io/tenant":"beta"}}}`, false, http.StatusForbidden, "may not be set"},
		{"namespace too long", grNamespace, `{"metadata":{"name":"` + string(long) + `"}}`, false, http.StatusUnprocessableEntity, `tenant "acme"`},
		{"CRD in a built-in group", grCRD, `{"metadata":{"name":"x.apps"},"spec":{"group":"apps"}}`, false, http.StatusForbidden, "built-in API group"},
		{"CRD spec.group built in", grCRD, `{"spec":{"group":"networking.k8s.io"}}`, false, http.StatusForbidden, "built-in API group"},
		{"CRD spec.group of the platform's metrics", grCRD, `{"spec":{"group":"metrics.k8s.io"}}`, false, http.StatusForbidden, "built-in API group"},
		{"exempt priority level", grPLC, `{"spec":{"type":"Exempt"}}`, false, http.StatusForbidden, "Exempt"},
		{"CSR for the cluster's signer", grCSR, `{"spec":{"signerName":"kubernetes.io/kube-apiserver-client"}}`, false, http.StatusForbidden, "signer"},
		{"binding system:serviceaccounts", gr(rbacGroup, "clusterrolebindings"), `{"subjects":[{"kind":"Group","name":"system:serviceaccounts"}]}`, false, http.StatusForbidden, "every ServiceAccount"},
		{"flow schema for every namespace's SAs", gr(flowGroup, "flowschemas"), `{"spec":{"rules":[{"subjects":[{"kind":"ServiceAccount","serviceAccount":{"namespace":"*","name":"*"}}]}]}}`, false, http.StatusForbidden, "every namespace"},
		{"reserved match condition", gr(admissionGroup, "validatingwebhookconfigurations"), `{"webhooks":[{"matchConditions":[{"name":"zoo.kubectl-zoo.io/tenant"}]}]}`, false, http.StatusForbidden, "reserved"},
		{"selector on the ownership label", gr("networking.k8s.io", "networkpolicies"), `{"spec":{"ingress":[{"from":[{"namespaceSelector":{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"beta"}}}]}]}}`, false, http.StatusForbidden, "selectors may not"},
		{"write to a node", grNode, `{"metadata":{"name":"n"}}`, false, http.StatusForbidden, "nodes belong"},
		{"hidden kind", gr("", "componentstatuses"), `{}`, false, http.StatusNotFound, "not found"},
		{"another tenant's configmap", gr("", "configmaps"), `{"metadata":{"namespace":"beta-default","name":"x"}}`, true, http.StatusNotFound, "not found"},
		{"another tenant's namespace", grNamespace, `{"metadata":{"name":"beta-default"}}`, true, http.StatusNotFound, "not found"},
		{"a namespace labelled for another tenant", grNamespace, `{"metadata":{"name":"acme-x","labels":{"zoo.kubectl-zoo.io/tenant":"beta"}}}`, true, http.StatusNotFound, "not found"},
		{"another tenant's storage class", grStorageClass, `{"metadata":{"name":"beta-fast","labels":{"zoo.kubectl-zoo.io/tenant":"beta"}}}`, true, http.StatusNotFound, "not found"},
		{"another tenant's CR group", gr("stable.example.com", "crontabs"), `{"apiVersion":"beta-stable.example.com/v1","metadata":{"namespace":"acme-default"}}`, true, http.StatusNotFound, "not found"},
		{"hidden kind out", gr("storage.k8s.io", "volumeattachments"), `{}`, true, http.StatusNotFound, "not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.in)
			var err error
			if tc.out {
				err = tr.ObjectToTenant(tc.gr, obj)
				assert.True(t, IsNotTenants(err))
			} else {
				err = tr.ObjectToUpstream(tc.gr, obj)
			}
			require.Error(t, err)
			st := ToStatus(err)
			assert.Equal(t, tc.code, st.Code)
			assert.Contains(t, st.Message, tc.msg)
		})
	}
}
