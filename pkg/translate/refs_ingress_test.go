package translate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIngressHostAllowed: a name matches itself and, under a "*." pattern,
// exactly one label more; a wildcard host only its own pattern; no host only
// "*".
func TestIngressHostAllowed(t *testing.T) {
	patterns := []string{"shop.acme.io", "*.apps.acme.io"}
	for host, want := range map[string]bool{
		"shop.acme.io": true, "a.apps.acme.io": true, "*.apps.acme.io": true,
		"apps.acme.io": false, "a.b.apps.acme.io": false, "www.shop.acme.io": false, "shop.acme.io.evil.com": false,
		"*.acme.io": false, "": false, "beta.example.com": false,
	} {
		assert.Equal(t, want, IngressHostAllowed(patterns, host), "%q", host)
	}
	assert.True(t, IngressHostAllowed([]string{AnyIngressHost}, ""))
	assert.True(t, IngressHostAllowed([]string{AnyIngressHost}, "beta.example.com"))
	assert.False(t, IngressHostAllowed(nil, "shop.acme.io"))
	for _, p := range []string{"*", "shop.acme.io", "*.apps.acme.io"} {
		assert.NoError(t, ValidateIngressHostPattern(p), p)
	}
	for _, p := range []string{"**", "*.*.acme.io", "10.0.0.1", "Shop.acme.io", "web.default.svc", "localhost", "io"} {
		assert.Error(t, ValidateIngressHostPattern(p), p)
	}
}

// TestIngressHostsOfThePolicy: an Ingress names only the hosts the tenant's
// policy allows, in its rules and TLS entries; a rule without host, a TLS
// entry without hosts and a default backend claim every host, allowed only
// by "*"; patches are judged as whole objects are.
func TestIngressHostsOfThePolicy(t *testing.T) {
	tr := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: &fakePlatform{ingressHosts: []string{"shop.acme.io", "*.apps.acme.io"}}})
	anyHost := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: &fakePlatform{ingressHosts: []string{AnyIngressHost}}})
	backend := `{"service":{"name":"web","port":{"number":80}}}`
	rule := func(host string) string {
		h := ""
		if host != "" {
			h = `"host":"` + host + `",`
		}
		return `{` + h + `"http":{"paths":[{"path":"/","pathType":"Prefix","backend":` + backend + `}]}}`
	}
	ingress := func(spec string) map[string]any {
		return jsonObj(t, `{"metadata":{"name":"web","namespace":"default"},"spec":{`+spec+`}}`)
	}
	for _, tc := range []struct {
		name, spec, denied string
		tr                 *Translator
	}{
		{"allowed hosts", `"rules":[` + rule("shop.acme.io") + `,` + rule("x.apps.acme.io") + `],"tls":[{"hosts":["shop.acme.io"],"secretName":"t"}]`, "", tr},
		{"another tenant's host", `"rules":[` + rule("shop.acme.io") + `,` + rule("shop.beta.io") + `]`, "spec.rules[].host", tr},
		{"a deeper name", `"rules":[` + rule("a.b.apps.acme.io") + `]`, "spec.rules[].host", tr},
		{"a rule for every host", `"rules":[` + rule("") + `]`, "spec.rules[].host", tr},
		{"a TLS host", `"tls":[{"hosts":["shop.beta.io"],"secretName":"t"}]`, "spec.tls[].hosts", tr},
		{"a TLS entry for every host", `"tls":[{"secretName":"t"}]`, "spec.tls[].hosts", tr},
		{"a default backend", `"defaultBackend":` + backend, "spec.defaultBackend", tr},
		{"a default backend, any host allowed", `"defaultBackend":` + backend + `,"rules":[` + rule("") + `]`, "", anyHost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.tr.ObjectToUpstream(grIngress, ingress(tc.spec))
			if tc.denied == "" {
				require.NoError(t, err)
				return
			}
			requireForbidden(t, err, tc.denied)
			assert.Contains(t, err.Error(), "--ingress-hosts")
		})
	}
	for _, tc := range []struct{ name, ct, body string }{
		{"merge patch", MediaMergePatch, `{"spec":{"rules":[` + rule("shop.beta.io") + `]}}`},
		{"merge patch nulling the host", MediaMergePatch, `{"spec":{"rules":[{"host":null,"http":{"paths":[]}}]}}`},
		{"json patch of a host", MediaJSONPatch, `[{"op":"replace","path":"/spec/rules/0/host","value":"shop.beta.io"}]`},
		{"json patch adding a TLS host", MediaJSONPatch, `[{"op":"add","path":"/spec/tls/0/hosts/-","value":"shop.beta.io"}]`},
		{"strategic merge patch", MediaStrategic, `{"spec":{"rules":[` + rule("shop.beta.io") + `]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tr.TranslateRequest(Request{Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/default/ingresses/web",
				Header: map[string][]string{"Content-Type": {tc.ct}}, Body: []byte(tc.body)})
			requireForbidden(t, err, "spec.")
		})
	}
}

// countingHosts counts the reads of the tenant's policy.
type countingHosts struct {
	fakePlatform
	reads int
}

func (c *countingHosts) AllowedIngressHosts() ([]string, error) {
	c.reads++
	return []string{"*.acme.io"}, nil
}

// TestPolicyListsReadOncePerObject: an Ingress of many hosts reads the
// tenant's policy once, not once per host.
func TestPolicyListsReadOncePerObject(t *testing.T) {
	lookup := &countingHosts{}
	tr := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: lookup})
	var rules []string
	for _, h := range []string{"a", "b", "c", "d"} {
		rules = append(rules, `{"host":"`+h+`.acme.io"}`)
	}
	obj := jsonObj(t, `{"metadata":{"name":"web","namespace":"default"},"spec":{"rules":[`+strings.Join(rules, ",")+`],"tls":[{"hosts":["a.acme.io"]}]}}`)
	require.NoError(t, tr.ObjectToUpstream(grIngress, obj))
	assert.Equal(t, 1, lookup.reads)
}
