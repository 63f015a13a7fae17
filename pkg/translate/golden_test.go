package translate

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden *.upstream.yaml files")

const goldenDir = "../../testdata/translate"

// fakeShared is the SharedLookup of the tests: the tenant owns the storage
// class "fast", the priority class "high" and the attributes class "gold";
// the cluster has "standard", "nginx", "gvisor" and "system-node-critical".
type fakeShared struct{}

func (fakeShared) TenantOwns(gr schema.GroupResource, name string) bool {
	return map[string]bool{"fast": true, "high": true, "gold": true, "internal": true}[name]
}

func (fakeShared) SharedExists(gr schema.GroupResource, name string) bool {
	return map[string]bool{"standard": true, "nginx": true, "gvisor": true, "system-node-critical": true}[name]
}

func (fakeShared) OtherTenantOwns(gr schema.GroupResource, name string) bool {
	return strings.HasPrefix(name, "beta-")
}

type fakeScopes map[schema.GroupResource]bool

func (f fakeScopes) Namespaced(gr schema.GroupResource) (bool, bool) {
	n, ok := f[gr]
	return n, ok
}

func newTestTranslator(t testing.TB) *Translator {
	t.Helper()
	return New(MustTenant("acme"), Options{Shared: fakeShared{}, Scopes: testScopes})
}

// allowingTranslator is newTestTranslator for a tenant whose policy allows
// every volume source and ingress host, for tests of what objectIn
// translates (volume_sources_test.go and refs_ingress_test.go test what
// the policy refuses).
func allowingTranslator(t testing.TB) *Translator {
	t.Helper()
	allowAll := &fakePlatform{volumeSources: ExternalVolumeSources(), ingressHosts: []string{AnyIngressHost}}
	return New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: allowAll, Scopes: testScopes})
}

var testScopes = fakeScopes{
	{Group: "acme-stable.example.com", Resource: "crontabs"}:      true,
	{Group: "acme-stable.example.com", Resource: "clusterthings"}: false,
}

// goldenName is the file name stem of a kind: its lower-case Kind, with the
// group appended when another row already uses the Kind.
func goldenName(r *KindRule) string {
	for _, other := range Kinds() {
		if other == r {
			break
		}
		if other.Kind == r.Kind {
			return strings.ToLower(r.Kind) + "." + r.Resource.Group
		}
	}
	return strings.ToLower(r.Kind)
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	j, err := yaml.YAMLToJSON(data)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, decodeJSON(j, &obj))
	return obj
}

// normalize round-trips through JSON so numbers compare equal.
func normalize(t *testing.T, obj any) any {
	t.Helper()
	data, err := json.Marshal(obj)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}

// TestGolden translates every supported built-in kind tenant → upstream,
// compares with the golden upstream file and translates it back.
func TestGolden(t *testing.T) {
	tr := allowingTranslator(t)
	for _, rule := range Kinds() {
		if rule.Treatment == Hidden || rule.Treatment == Forbidden {
			continue
		}
		name := goldenName(rule)
		t.Run(name, func(t *testing.T) {
			tenantFile := filepath.Join(goldenDir, name+".tenant.yaml")
			upstreamFile := filepath.Join(goldenDir, name+".upstream.yaml")
			tenantObj := readYAML(t, tenantFile)
			up := readYAML(t, tenantFile)
			if rule.Treatment != ReadOnly {
				require.NoError(t, tr.objectIn(rule, up))
			}
			if *update {
				data, err := yaml.Marshal(normalize(t, up))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(upstreamFile, data, 0o644))
			}
			want := readYAML(t, upstreamFile)
			assert.Equal(t, normalize(t, want), normalize(t, up), "tenant → upstream")
			back := readYAML(t, upstreamFile)
			require.NoError(t, tr.objectOut(rule, back))
			assert.Equal(t, normalize(t, tenantObj), normalize(t, back), "upstream → tenant")
		})
	}
}
