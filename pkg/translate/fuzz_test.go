package translate

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FuzzRoundTrip checks backward(forward(x)) == x for names and for objects of
// every naming treatment.
func FuzzRoundTrip(f *testing.F) {
	for _, seed := range []struct{ tenant, name string }{
		{"acme", "default"}, {"acme", "kube-system"}, {"a", "x-y-z"}, {"beta2", "stable.example.com"},
		{"acme", "acme-default"}, {"zz", "a.b-c.d"}, {"acme", "system:serviceaccount:default:builder"},
	} {
		f.Add(seed.tenant, seed.name)
	}
	f.Fuzz(func(t *testing.T, tenantName, name string) {
		tenant, err := NewTenant(tenantName)
		if err != nil || name == "" {
			return
		}
		tr := New(tenant, Options{})
		if up, err := tenant.UpstreamNamespace(name); err == nil {
			back, ok := tenant.TenantNamespace(up)
			require.True(t, ok)
			require.Equal(t, name, back)
			owner, local, ok := SplitUpstreamName(up)
			require.True(t, ok)
			require.Equal(t, tenant, owner)
			require.Equal(t, name, local)
		}
		if up, err := tenant.UpstreamAPIGroup(name); err == nil {
			back, ok := tenant.TenantAPIGroup(up)
			require.True(t, ok)
			require.Equal(t, name, back)
		}
		if back, ok := tenant.TenantUser(tenant.UpstreamUser(name)); ok {
			require.Equal(t, name, back)
		}
		for _, doc := range []map[string]any{
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": name}},
			{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}},
			{"kind": "ClusterRole", "metadata": map[string]any{"name": name}},
			{"kind": "RoleBinding", "metadata": map[string]any{"namespace": "default"},
				"subjects": []any{map[string]any{"kind": "User", "name": name}}, "roleRef": map[string]any{"kind": "ClusterRole", "name": name}},
		} {
			var gr = map[string]string{"ConfigMap": "configmaps", "Namespace": "namespaces", "ClusterRole": "clusterroles", "RoleBinding": "rolebindings"}[doc["kind"].(string)]
			group := ""
			if doc["kind"] == "ClusterRole" || doc["kind"] == "RoleBinding" {
				group = rbacGroup
			}
			orig := deepCopyJSON(doc)
			if err := tr.ObjectToUpstream(gr2(group, gr), doc); err != nil {
				continue // refused (too long, reserved group): nothing to round-trip
			}
			require.NoError(t, tr.ObjectToTenant(gr2(group, gr), doc))
			require.True(t, reflect.DeepEqual(orig, doc), "%v != %v", orig, doc)
		}
	})
}

// FuzzInjective checks that two different (tenant, name) pairs never map to
// the same upstream namespace, cluster-scoped name, API group or user.
func FuzzInjective(f *testing.F) {
	for _, seed := range [][4]string{
		{"acme", "default", "acm", "e-default"}, {"kube", "system", "kub", "e-system"},
		{"a", "b-c", "ab", "c"}, {"acme", "x", "acme", "y"}, {"t1", "s.io", "t", "1-s.io"},
		{"acme", "x:y", "acme", "x"}, {"a1", "b", "a", "1-b"},
		{"acme", "x.k8s.io", "acme", "x.k8s-io"}, {"a", "b.k8s.io", "a-b", "k8s.io"}, {"acme", "k8s.io", "acme", "k8s-io"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, t1, n1, t2, n2 string) {
		a, errA := NewTenant(t1)
		b, errB := NewTenant(t2)
		if errA != nil || errB != nil || n1 == "" || n2 == "" || (t1 == t2 && n1 == n2) {
			return
		}
		pairs := []struct {
			what   string
			up1    func() (string, error)
			up2    func() (string, error)
			exempt bool
		}{
			{"namespace", func() (string, error) { return a.UpstreamNamespace(n1) }, func() (string, error) { return b.UpstreamNamespace(n2) }, false},
			{"cluster name", func() (string, error) { return a.UpstreamClusterName("ClusterRole", rbacGroup, n1) },
				func() (string, error) { return b.UpstreamClusterName("ClusterRole", rbacGroup, n2) }, false},
			{"API group", func() (string, error) { return a.UpstreamAPIGroup(n1) }, func() (string, error) { return b.UpstreamAPIGroup(n2) },
				IsSharedGroup(n1) || IsSharedGroup(n2)},
			{"user", func() (string, error) { return a.UpstreamUser(n1), nil }, func() (string, error) { return b.UpstreamUser(n2), nil }, false},
			{"CRD", func() (string, error) { return a.UpstreamCRDName(n1) }, func() (string, error) { return b.UpstreamCRDName(n2) }, false},
		}
		for _, p := range pairs {
			if p.exempt {
				continue
			}
			u1, err1 := p.up1()
			u2, err2 := p.up2()
			if err1 != nil || err2 != nil {
				continue
			}
			assert.NotEqual(t, u1, u2, "%s: (%s,%q) and (%s,%q) collide", p.what, t1, n1, t2, n2)
		}
		// A tenant's group comes back as it went.
		if up, err := a.UpstreamAPIGroup(n1); err == nil && !IsSharedGroup(n1) {
			back, ok := a.TenantAPIGroup(up)
			assert.True(t, ok && back == n1, "group %q of %s: upstream %q, back %q", n1, t1, up, back)
		}
	})
}

// TestInjectiveAcrossTenantPairs is the property over all pairs of a set of
// tricky tenants and names (prefixes of one another, names with separators).
func TestInjectiveAcrossTenantPairs(t *testing.T) {
	tenants := []string{"a", "ab", "abc", "kub", "acme", "acme1", "b"}
	names := []string{"b", "c", "b-c", "c-d", "default", "e-default", "1-x", "x.io", "b-x.io", "e"}
	seen := map[string]string{}
	for _, tn := range tenants {
		tenant := MustTenant(tn)
		for _, n := range names {
			up, err := tenant.UpstreamNamespace(n)
			require.NoError(t, err)
			key := fmt.Sprintf("%s/%s", tn, n)
			if prev, dup := seen[up]; dup {
				t.Fatalf("%s and %s both map to %s", prev, key, up)
			}
			seen[up] = key
		}
	}
}

func gr2(group, resource string) schema.GroupResource { return gr(group, resource) }

func deepCopyJSON(v map[string]any) map[string]any {
	out := make(map[string]any, len(v))
	for k, c := range v {
		out[k] = deepCopyValue(c)
	}
	return out
}

func deepCopyValue(v any) any {
	switch n := v.(type) {
	case map[string]any:
		return deepCopyJSON(n)
	case []any:
		out := make([]any, len(n))
		for i := range n {
			out[i] = deepCopyValue(n[i])
		}
		return out
	}
	return v
}
