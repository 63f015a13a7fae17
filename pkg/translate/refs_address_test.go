package translate

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	grEPs    = gr("", "endpoints")
	grSlices = gr("discovery.k8s.io", "endpointslices")
)

// TestPublicUnicast: only public unicast addresses pass, in every form the
// API and CEL's ip() read as an address; what is not an address at all
// (integers, hex, octal, zones, IPv4-mapped IPv6) is refused too.
func TestPublicUnicast(t *testing.T) {
	allowed := []string{"1.2.3.4", "8.8.8.8", "203.0.113.7", "100.63.255.255", "100.128.0.1", "172.32.0.1", "2001:4860::8888", "2600::1", "2001:db8::1"}
	refused := []string{
		"127.0.0.1", "127.1.2.3", "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.244.0.5", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"100.64.0.1", "169.254.169.254", "192.0.0.170", "198.18.0.1", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
		"::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:8.8.8.8", "::127.0.0.1",
		"64:ff9b::7f00:1", "2002:7f00:1::1", "2001:0:4136:e378::1", "fe80::1%eth0", "2130706433", "0x7f000001", "0x7f.1",
		"0177.0.0.1", "127.1", "localhost", "", " 1.2.3.4", "1.2.3.4.", "[::1]",
	}
	for _, s := range allowed {
		t.Run(s, func(t *testing.T) { assert.NoError(t, PublicUnicast(s)) })
	}
	for _, s := range refused {
		t.Run("refused "+s, func(t *testing.T) { assert.Error(t, PublicUnicast(s)) })
	}
}

// TestServiceNameRefs: a Service's externalName may only name one of the
// tenant's Services, its namespace translated both ways; everything else is
// a 403 naming the field, and on the way out a name outside the tenant is
// left out.
func TestServiceNameRefs(t *testing.T) {
	tr := newTestTranslator(t)
	svc := func(name string) string {
		return `{"metadata":{"name":"x","namespace":"default"},"spec":{"type":"ExternalName","externalName":"` + name + `"}}`
	}
	upSvc := func(name string) string {
		return `{"metadata":{"name":"x","namespace":"acme-default"},"spec":{"type":"ExternalName","externalName":"` + name + `"}}`
	}
	mapped := []struct{ in, up string }{
		{"web.default.svc", "web.acme-default.svc"},
		{"web.default.svc.", "web.acme-default.svc."},
		{"web.prod.svc.cluster.local", "web.acme-prod.svc.cluster.local"},
		{"web.prod.svc.cluster.local.", "web.acme-prod.svc.cluster.local."},
		{"kubernetes.default.svc.cluster.local", "kubernetes.acme-default.svc.cluster.local"},
		{"web.beta-default.svc", "web.acme-beta-default.svc"},
		{"", ""},
	}
	for _, c := range mapped {
		t.Run("in "+c.in, func(t *testing.T) {
			obj := jsonObj(t, svc(c.in))
			require.NoError(t, tr.ObjectToUpstream(grService, obj))
			jsonEq(t, upSvc(c.up), obj)
			require.NoError(t, tr.ObjectToTenant(grService, obj))
			jsonEq(t, svc(c.in), obj)
		})
	}
	for _, s := range []string{"127.0.0.1", "2130706433", "0x7f.1", "localhost", "localhost.", "web", "web.default", "web.default.svc.cluster",
		"web.default.svc.example.com", "example.com", "metadata.google.internal", ".default.svc", "web..svc", "web.default.svc..",
		"web.default.pod.cluster.local", "1-2-3-4.default.pod.cluster.local", "web.default.svc.cluster.local.evil.com"} {
		t.Run("refused "+s, func(t *testing.T) {
			err := tr.ObjectToUpstream(grService, jsonObj(t, svc(s)))
			requireForbidden(t, err, "spec.externalName")
		})
	}
	t.Run("not a string", func(t *testing.T) {
		err := tr.ObjectToUpstream(grService, jsonObj(t, `{"metadata":{"name":"x"},"spec":{"externalName":7}}`))
		requireForbidden(t, err, "spec.externalName")
	})
	for _, up := range []string{"web.beta-default.svc", "kubernetes.default.svc.cluster.local", "127.0.0.1", "localhost", "x.svc"} {
		t.Run("out "+up, func(t *testing.T) {
			obj := jsonObj(t, upSvc(up))
			require.NoError(t, tr.ObjectToTenant(grService, obj))
			assert.NotContains(t, child(obj, "spec"), "externalName", "a name outside the tenant is left out")
		})
	}
	t.Run("out: an external name is shown as it is", func(t *testing.T) {
		obj := jsonObj(t, upSvc("www.example.com."))
		require.NoError(t, tr.ObjectToTenant(grService, obj))
		jsonEq(t, svc("www.example.com."), obj)
	})
}

// externalNames is a PlatformLookup whose tenant's policy allows names.
type externalNames struct {
	fakePlatform
	names []string
	err   error
}

func (e *externalNames) AllowedExternalNames() ([]string, error) { return e.names, e.err }

// TestExternalNamesOfThePolicy: a name outside the cluster is allowed when
// the tenant's policy names it, or a "*." pattern matches it with exactly
// one label; it goes upstream as written. Everything else stays refused,
// and a policy that cannot be read refuses too (503, never allowed).
func TestExternalNamesOfThePolicy(t *testing.T) {
	platform := &externalNames{names: []string{"*.example.com", "api.partner.io"}}
	tr := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: platform})
	svc := func(name string) map[string]any {
		return jsonObj(t, `{"metadata":{"name":"x","namespace":"default"},"spec":{"type":"ExternalName","externalName":"`+name+`"}}`)
	}
	for _, name := range []string{"www.example.com", "www.example.com.", "api.partner.io", "api.partner.io."} {
		t.Run(name, func(t *testing.T) {
			obj := svc(name)
			require.NoError(t, tr.ObjectToUpstream(grService, obj))
			assert.Equal(t, name, child(obj, "spec")["externalName"])
		})
	}
	for _, name := range []string{"example.com", "a.b.example.com", "www.example.com.evil.io", "partner.io", "x.api.partner.io", "*.example.com",
		"127.0.0.1", "web.beta-default.svc.cluster.local.example.com"} {
		t.Run("refused "+name, func(t *testing.T) {
			requireForbidden(t, tr.ObjectToUpstream(grService, svc(name)), "spec.externalName")
		})
	}
	t.Run("a policy that cannot be read", func(t *testing.T) {
		broken := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: &externalNames{err: errors.New("boom")}})
		err := broken.ObjectToUpstream(grService, svc("www.example.com"))
		var e *Error
		require.True(t, errors.As(err, &e), "%v", err)
		assert.NotEqualValues(t, http.StatusOK, e.Code)
	})
	t.Run("own Services still translated", func(t *testing.T) {
		obj := svc("web.default.svc")
		require.NoError(t, tr.ObjectToUpstream(grService, obj))
		assert.Equal(t, "web.acme-default.svc", child(obj, "spec")["externalName"])
	})
}

// TestExternalNamePatterns: what a platform may allow, and what a pattern
// matches.
func TestExternalNamePatterns(t *testing.T) {
	for _, p := range []string{"example.com", "*.example.com", "api.partner.io", "*.a.b.example.org"} {
		t.Run(p, func(t *testing.T) { assert.NoError(t, ValidateExternalNamePattern(p)) })
	}
	for _, p := range []string{"", "*", "*.com.", "com", "localhost", "foo.localhost", "127.0.0.1", "*.0.0.1", "0x7f.0x1", "2130706433",
		"web.default.svc", "*.svc", "cluster.local", "*.cluster.local", "web.ns.svc.cluster.local", "Example.com", "a..b", "*.*.example.com", "::1"} {
		t.Run("refused "+p, func(t *testing.T) { assert.Error(t, ValidateExternalNamePattern(p)) })
	}
	patterns := []string{"*.example.com", "api.partner.io"}
	for name, want := range map[string]bool{
		"www.example.com": true, "www.example.com.": true, "api.partner.io": true, "example.com": false, "a.b.example.com": false,
		"*.example.com": false, "x.api.partner.io": false, "www.example.com.evil.io": false, "": false,
	} {
		assert.Equal(t, want, ExternalNameAllowed(patterns, name), name)
	}
}

// TestEndpointAddressRefs: Endpoints and EndpointSlices a tenant writes
// carry public unicast IP addresses only, in IPv4 or IPv6 slices.
func TestEndpointAddressRefs(t *testing.T) {
	tr := newTestTranslator(t)
	eps := func(list, ip string) string {
		return `{"metadata":{"name":"x","namespace":"default"},"subsets":[{"` + list + `":[{"ip":"203.0.113.9"},{"ip":` + ip + `}],"ports":[{"port":80}]}]}`
	}
	slice := func(family, addr string) string {
		return `{"metadata":{"name":"x","namespace":"default"},"addressType":"` + family + `","endpoints":[{"addresses":[` + addr + `]}]}`
	}
	cases := []struct {
		name  string
		gr    schema.GroupResource
		obj   string
		field string // empty: allowed
	}{
		{"endpoints public", grEPs, eps("addresses", `"1.2.3.4"`), ""},
		{"endpoints public IPv6", grEPs, eps("notReadyAddresses", `"2600::1"`), ""},
		{"endpoints loopback", grEPs, eps("addresses", `"127.0.0.1"`), "subsets[].addresses[].ip"},
		{"endpoints metadata service", grEPs, eps("addresses", `"169.254.169.254"`), "subsets[].addresses[].ip"},
		{"endpoints pod IP", grEPs, eps("addresses", `"10.244.1.7"`), "subsets[].addresses[].ip"},
		{"endpoints mapped loopback", grEPs, eps("addresses", `"::ffff:127.0.0.1"`), "subsets[].addresses[].ip"},
		{"endpoints not ready private", grEPs, eps("notReadyAddresses", `"192.168.0.1"`), "subsets[].notReadyAddresses[].ip"},
		{"endpoints not a string", grEPs, eps("addresses", `2130706433`), "subsets[].addresses[].ip"},
		{"slice public", grSlices, slice("IPv4", `"1.2.3.4","203.0.113.1"`), ""},
		{"slice IPv6 public", grSlices, slice("IPv6", `"2600::1"`), ""},
		{"slice loopback", grSlices, slice("IPv4", `"1.2.3.4","127.0.0.1"`), "endpoints[].addresses[]"},
		{"slice CGNAT", grSlices, slice("IPv4", `"100.64.0.1"`), "endpoints[].addresses[]"},
		{"slice ULA", grSlices, slice("IPv6", `"fd00::1"`), "endpoints[].addresses[]"},
		{"slice FQDN", grSlices, slice("FQDN", `"example.com"`), "addressType"},
		{"slice FQDN of loopback", grSlices, slice("FQDN", `"localhost"`), "addressType"},
		{"slice family case variant", grSlices, slice("ipv4", `"1.2.3.4"`), "addressType"},
		{"slice addresses not a list", grSlices, `{"metadata":{"name":"x"},"addressType":"IPv4","endpoints":[{"addresses":"127.0.0.1"}]}`, "endpoints[].addresses[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := jsonObj(t, c.obj)
			err := tr.ObjectToUpstream(c.gr, obj)
			if c.field == "" {
				require.NoError(t, err)
				want := jsonObj(t, c.obj)
				child(want, "metadata")["namespace"] = "acme-default"
				assert.Equal(t, normalize(t, want), normalize(t, obj), "addresses go upstream as written")
				return
			}
			requireForbidden(t, err, c.field)
		})
	}
	t.Run("out: addresses are shown as they are", func(t *testing.T) {
		obj := jsonObj(t, `{"metadata":{"name":"kubernetes","namespace":"acme-default"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]}`)
		require.NoError(t, tr.ObjectToTenant(grEPs, obj))
		jsonEq(t, `{"metadata":{"name":"kubernetes","namespace":"default"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}]}]}`, obj)
	})
}

// requireForbidden asserts a 403 whose message names the field.
func requireForbidden(t *testing.T, err error, field string) {
	t.Helper()
	var e *Error
	require.True(t, errors.As(err, &e), "want a 403, got %v", err)
	assert.EqualValues(t, http.StatusForbidden, e.Code)
	assert.Contains(t, e.Message, field)
}

// TestAddressRefsInTheTable: every address field of the kinds table has
// its kind, and the targets say so.
func TestAddressRefsInTheTable(t *testing.T) {
	var fields []string
	for _, r := range Kinds() {
		for _, ref := range r.Refs {
			isAddress := ref.Target == TargetServiceName || ref.Target == TargetEndpointAddress
			assert.Equal(t, isAddress, ref.Address != 0, "%s %s", r.Resource, ref.Field)
			if isAddress {
				fields = append(fields, r.Resource.String()+" "+ref.Field)
				assert.NotEqual(t, "unknown", ref.Address.Reason())
			}
		}
	}
	assert.ElementsMatch(t, []string{"services spec.externalName", "endpoints subsets[].addresses[].ip", "endpoints subsets[].notReadyAddresses[].ip",
		"endpointslices.discovery.k8s.io addressType", "endpointslices.discovery.k8s.io endpoints[].addresses[]"}, fields)
}
