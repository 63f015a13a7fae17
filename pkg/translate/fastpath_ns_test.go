package translate

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastPathCases are upstream ConfigMaps and what the fast path must do with
// them: handle them (same result as the general path) or leave them to it.
var fastPathCases = []struct {
	name    string
	obj     string
	handled bool
}{
	{"plain", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"acme-dev","labels":{"app":"x"},"managedFields":[{"manager":"m","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]},"data":{"namespace":"acme-dev"}}`, true},
	{"no namespace", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}`, true},
	{"no metadata", `{"kind":"ConfigMap","apiVersion":"v1","data":{}}`, true},
	{"spaced", "{ \"metadata\" : { \"namespace\" : \"acme-dev\" , \"name\":\"a\"} ,\n \"data\":{\"k\":\"v\"} }", true},
	{"empty owner references", `{"metadata":{"name":"a","namespace":"acme-dev","ownerReferences":[]}}`, true},
	{"built-in group", `{"apiVersion":"apps/v1","metadata":{"name":"a","namespace":"acme-dev"}}`, true},
	{"tenant label", `{"metadata":{"name":"a","namespace":"acme-dev","labels":{"` + TenantLabel + `":"acme","x":"y"}}}`, false},
	{"owner references", `{"metadata":{"name":"a","namespace":"acme-dev","ownerReferences":[{"apiVersion":"acme-stable.example.com/v1","kind":"CronTab","name":"c","uid":"u"}]}}`, false},
	{"tenant CRD managed fields", `{"metadata":{"name":"a","namespace":"acme-dev","managedFields":[{"manager":"m","apiVersion":"acme-stable.example.com/v1"}]}}`, false},
	{"tenant CRD apiVersion", `{"apiVersion":"acme-stable.example.com/v1","metadata":{"name":"a","namespace":"acme-dev"}}`, false},
	{"escaped namespace", `{"metadata":{"name":"a","namespace":"acme-\u0064ev"}}`, false},
	{"escaped name", `{"metadata":{"name":"\u0061","namespace":"acme-dev"}}`, false},
	{"two namespaces", `{"metadata":{"namespace":"beta-dev","namespace":"acme-dev"}}`, false},
	{"two metadata", `{"metadata":{"namespace":"beta-dev"},"metadata":{"namespace":"acme-dev"}}`, false},
	{"metadata not an object", `{"metadata":null}`, false},
	{"status", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps \"x\" not found"}`, false},
	{"table", `{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[]}`, false},
	{"list", `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[]}`, false},
	{"kind not a string", `{"kind":1,"metadata":{"namespace":"acme-dev"}}`, false},
	{"malformed", `{"metadata":{"namespace":"acme-dev"`, false},
}

func TestObjectOutNamespacedMatchesTheGeneralPath(t *testing.T) {
	tr := newTestTranslator(t)
	rule, ok := LookupKind(gr("", "configmaps"))
	require.True(t, ok)
	for _, tc := range fastPathCases {
		t.Run(tc.name, func(t *testing.T) {
			var fast, general bytes.Buffer
			handled, fastErr := tr.objectOutNamespaced(rule, []byte(tc.obj), &fast)
			require.Equal(t, tc.handled, handled)
			if !handled {
				assert.Zero(t, fast.Len(), "nothing is written when the general path takes over")
				return
			}
			require.NoError(t, fastErr)
			require.NoError(t, tr.objectOutFields(rule, []byte(tc.obj), &general))
			var a, b any
			require.NoError(t, json.Unmarshal(fast.Bytes(), &a), fast.String())
			require.NoError(t, json.Unmarshal(general.Bytes(), &b))
			assert.Equal(t, b, a)
			if meta, ok := a.(map[string]any)["metadata"].(map[string]any); ok && meta["namespace"] != nil {
				assert.Equal(t, "dev", meta["namespace"])
			}
		})
	}
}

func TestObjectOutNamespacedRefusals(t *testing.T) {
	tr := newTestTranslator(t)
	cm, _ := LookupKind(gr("", "configmaps"))
	var buf bytes.Buffer
	handled, err := tr.objectOutNamespaced(cm, []byte(`{"metadata":{"name":"x","namespace":"beta-dev"}}`), &buf)
	assert.True(t, handled)
	assert.True(t, IsNotTenants(err), "another tenant's object is not the tenant's: %v", err)
	assert.Zero(t, buf.Len())

	for _, g := range []struct{ group, resource string }{{"", "namespaces"}, {"rbac.authorization.k8s.io", "clusterroles"}, {"", "pods"}} {
		rule, ok := LookupKind(gr(g.group, g.resource))
		require.True(t, ok, g.resource)
		handled, _ := tr.objectOutNamespaced(rule, []byte(`{"metadata":{"name":"x","namespace":"acme-dev"}}`), &buf)
		assert.False(t, handled, "%s needs more than the namespace", g.resource)
	}
}

// BenchmarkObjectOutNamespaced compares the fast path with the general one
// on one ConfigMap of a list.
func BenchmarkObjectOutNamespaced(b *testing.B) {
	tr := newTestTranslator(b)
	rule, _ := LookupKind(gr("", "configmaps"))
	obj := []byte(fastPathCases[0].obj)
	for _, bc := range []struct {
		name string
		fn   func(*KindRule, []byte, *bytes.Buffer) error
	}{{"fast", tr.objectOutRaw}, {"general", tr.objectOutFields}} {
		b.Run(bc.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.SetBytes(int64(len(obj)))
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := bc.fn(rule, obj, &buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTranslateSingleObject is the answer to a GET or a CREATE: one
// object through TranslateList (no longer decoded and re-encoded whole).
func BenchmarkTranslateSingleObject(b *testing.B) {
	tr := newTestTranslator(b)
	rule, _ := LookupKind(gr("", "configmaps"))
	obj := []byte(fastPathCases[0].obj)
	b.SetBytes(int64(len(obj)))
	b.ReportAllocs()
	for b.Loop() {
		if err := tr.TranslateList(rule, bytes.NewReader(obj), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
