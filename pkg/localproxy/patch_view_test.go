package localproxy

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

const storedConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"acme-default","resourceVersion":"7"},"data":{"x":"beta-default"}}`

// TestPatchAppliedInView: a json patch that moves a value into
// metadata.namespace reaches the upstream only as the merge patch the
// translator derived from the tenant's view, never as the tenant's bytes.
func TestPatchAppliedInView(t *testing.T) {
	for _, tc := range []struct {
		name, ct, patch string
		conflicts       int32 // PATCH answers 409 this many times first
		wantPatches     int
		code            int
	}{
		{"json move", translate.MediaJSONPatch, `[{"op":"move","from":"/data/x","path":"/metadata/namespace"}]`, 0, 1, 200},
		{"merge", translate.MediaMergePatch, `{"data":{"y":"1"}}`, 0, 1, 200},
		{"strategic", translate.MediaStrategic, `{"data":{"y":"1"},"$retainKeys":["data"]}`, 0, 1, 200},
		{"retried after a conflict", translate.MediaMergePatch, `{"data":{"y":"1"}}`, 2, 3, 200},
		{"a conflict the tenant asked for", translate.MediaMergePatch, `{"metadata":{"resourceVersion":"6"}}`, 1, 1, 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conflicts := tc.conflicts
			p, up := newRecordingProxy(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.Method == http.MethodPatch && atomic.AddInt32(&conflicts, -1) >= 0 {
					w.WriteHeader(http.StatusConflict)
					_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`)
					return
				}
				_, _ = io.WriteString(w, storedConfigMap)
			})
			rec := request(p, http.MethodPatch, "/api/v1/namespaces/default/configmaps/c?fieldManager=m&dryRun=All", map[string]string{"Content-Type": tc.ct}, tc.patch)
			require.Equal(t, tc.code, rec.Code, rec.Body.String())

			u, err := p.tr.TranslateRequest(translate.Request{Method: http.MethodPatch, Path: "/api/v1/namespaces/default/configmaps/c",
				Header: http.Header{"Content-Type": {tc.ct}}, Body: []byte(tc.patch)})
			require.NoError(t, err)
			want, err := p.tr.PatchInView(u, tc.ct, []byte(tc.patch), []byte(storedConfigMap))
			require.NoError(t, err)
			var patches int
			for _, got := range up.requests() {
				assert.Equal(t, "/api/v1/namespaces/acme-default/configmaps/c", got.Path)
				switch got.Method {
				case http.MethodGet:
					assert.Empty(t, got.Body)
					assert.Empty(t, got.RawQuery, "a GET takes no patch options")
				case http.MethodPatch:
					patches++
					assert.Equal(t, translate.MediaMergePatch, got.Header.Get("Content-Type"))
					assert.Equal(t, string(want.Body), string(got.Body), "exactly the bytes the translator produced")
					assert.NotContains(t, string(got.Body), `"op"`, "never the tenant's json patch")
					assert.Equal(t, "dryRun=All&fieldManager=m", got.RawQuery)
				default:
					t.Errorf("unexpected %s", got.Method)
				}
			}
			assert.Equal(t, tc.wantPatches, patches)
		})
	}
	t.Run("an answer the translator cannot read is not passed on", func(t *testing.T) {
		p, _ := newRecordingProxy(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, storedConfigMap)
				return
			}
			w.Header().Set("Content-Type", "application/cbor")
			_, _ = io.WriteString(w, "acme-default beta-default")
		})
		rec := request(p, http.MethodPatch, "/api/v1/namespaces/default/configmaps/c", map[string]string{"Content-Type": translate.MediaMergePatch}, `{}`)
		assert.Equal(t, http.StatusBadGateway, rec.Code)
		assert.NotContains(t, rec.Body.String(), "beta-default")
	})
	t.Run("the object is gone", func(t *testing.T) {
		p, up := newRecordingProxy(t, jsonHandler(http.StatusNotFound, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
		rec := request(p, http.MethodPatch, "/api/v1/namespaces/default/configmaps/c", map[string]string{"Content-Type": translate.MediaMergePatch}, `{}`)
		assert.Equal(t, http.StatusNotFound, rec.Code)
		require.Len(t, up.requests(), 1)
		assert.Equal(t, http.MethodGet, up.requests()[0].Method)
	})
}

// TestPatchInViewRunsTheBehaviours: a patch applied in the tenant's view
// passes the row's refusal- and after-behaviours as a forwarded request
// does: a refusal in a namespace of the tenant's that does not exist is the
// 404 a real cluster answers; a successful write of a shared kind drops
// the cached lookups of the kind.
func TestPatchInViewRunsTheBehaviours(t *testing.T) {
	t.Run("a namespace that does not exist", func(t *testing.T) {
		p, _ := newRecordingProxy(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/v1/namespaces/acme-nope" {
				jsonHandler(http.StatusNotFound, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)(w, r)
				return
			}
			jsonHandler(http.StatusForbidden, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`)(w, r)
		})
		rec := request(p, http.MethodPatch, "/api/v1/namespaces/nope/configmaps/c", map[string]string{"Content-Type": translate.MediaMergePatch}, `{}`)
		assert.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
		assert.Contains(t, rec.Body.String(), `configmaps \"c\" not found`)
	})
	t.Run("a shared kind", func(t *testing.T) {
		const class = `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"acme-fast","resourceVersion":"7","labels":{"kubectl-zoo.io/tenant":"acme"}},"provisioner":"x"}`
		p, up := newRecordingProxy(t, jsonHandler(http.StatusOK, class))
		rec := request(p, http.MethodPatch, "/apis/storage.k8s.io/v1/storageclasses/fast", map[string]string{"Content-Type": translate.MediaMergePatch},
			`{"metadata":{"annotations":{"a":"b"}}}`)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var patched bool
		for _, got := range up.requests() {
			patched = patched || got.Method == http.MethodPatch
		}
		require.True(t, patched, "the patch went upstream")
		assert.Empty(t, p.shared.cache.entries, "the lookups of the class the tenant wrote are forgotten")
	})
}
