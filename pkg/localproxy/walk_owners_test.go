package localproxy

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestProxyAnswersOwnerReferencesInProtobuf reads a ConfigMap's owner
// reference back through the real handler. ConfigMaps are the kind the
// proxy answers protobuf clients in protobuf (translate.AcceptsProtobuf:
// namespace-only kinds), and an object with owner references takes the
// general path of the protobuf translation (decoded, translated as JSON,
// encoded again), so this walks the protobuf answers (the fake upstream's
// k8s\x00 documents, typed lists and watch frames) end to end: the owner's
// API group the tenant wrote reads back as written, and one written
// upstream naming beta's group or the platform's never reads as acme's.
func TestProxyAnswersOwnerReferencesInProtobuf(t *testing.T) {
	rule, ok := translate.LookupKind(schema.GroupResource{Resource: "configmaps"})
	require.True(t, ok)
	const at = "/metadata/ownerReferences/0/apiVersion"
	cm := func(apiVersion string) []byte {
		return mustJSON(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "walk", "namespace": "default",
			"ownerReferences": []any{map[string]any{"apiVersion": apiVersion, "kind": "Thing", "name": "t", "uid": "u1"}}}})
	}
	read := func(t *testing.T, p *Proxy, check func(what string, obj map[string]any)) {
		for _, r := range walkReads(rule) {
			body, mt := readAnswer(t, p, r.path, r.accept)
			if r.accept != "" {
				assert.Equal(t, runtime.ContentTypeProtobuf, mt, "%s: ConfigMaps are answered in protobuf", r.name)
			}
			var doc any
			require.NoError(t, json.Unmarshal(body, &doc))
			obj, ok := getPointer(doc, r.item)
			require.True(t, ok, "%s dropped acme's ConfigMap: %s", r.name, body)
			check(r.name+" answered in "+mt, obj.(map[string]any))
		}
	}

	t.Run("written by the tenant", func(t *testing.T) {
		p, up := newWalkProxy(t)
		rec := send(p, http.MethodPost, walkCollection(rule, "default"), translate.MediaJSON, cm("beta-x.io/v1"))
		require.Less(t, rec.Code, 300, rec.Body.String())
		got, _ := up.take()
		stored, ok := up.store.get(upstreamPath(t, got, rule))
		require.True(t, ok)
		v, _ := getPointer(stored, at)
		assert.Equal(t, "acme-beta-x.io/v1", v, "what the upstream stored")
		read(t, p, func(what string, obj map[string]any) {
			v, _ := getPointer(obj, at)
			assert.Equal(t, "beta-x.io/v1", v, what)
		})
	})
	for owner, upstream := range map[string]string{"beta": "beta-x.io/v1", "platform": "x.io/v1"} {
		t.Run("written upstream naming "+owner+"'s group", func(t *testing.T) {
			p, up := newWalkProxy(t)
			rec := send(p, http.MethodPost, walkCollection(rule, "default"), translate.MediaJSON, cm("own.example.com/v1"))
			require.Less(t, rec.Code, 300, rec.Body.String())
			got, _ := up.take()
			path := upstreamPath(t, got, rule)
			stored, _ := up.store.get(path)
			setPointer(t, stored, at, upstream)
			up.store.put(path, stored)
			read(t, p, func(what string, obj map[string]any) {
				var foreign any = map[string]any{"apiVersion": upstream, "kind": "Thing", "name": "t", "uid": "u1"}
				requireRoundTrip(t, p, rule, obj, "/metadata/ownerReferences/0", foreign, what)
			})
		})
	}
}
