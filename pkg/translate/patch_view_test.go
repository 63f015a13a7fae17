package translate

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPatchInView: patches are applied to the tenant's view and what goes
// upstream is a merge patch of translated values, whatever the patch copies,
// moves or leaves to the context of the object.
func TestPatchInView(t *testing.T) {
	tr := newTestTranslator(t)
	const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"acme-default","resourceVersion":"7",
		"annotations":{"x":"beta-default","role":"cluster-admin","user":"zoo:beta:admin"},
		"ownerReferences":[{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","name":"acme-viewer","uid":"u1"},
		{"apiVersion":"v1","kind":"ConfigMap","name":"cluster-admin","uid":"u2"}]},"data":{"x":"beta-default"}}`
	const rb = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"r","namespace":"acme-default","resourceVersion":"3",
		"annotations":{"user":"zoo:beta:admin","sa":"beta-default"}},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"acme-view"},
		"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"zoo:acme:dev"},{"kind":"ServiceAccount","name":"builder","namespace":"acme-default"}]}`
	const pvc = `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"d","namespace":"acme-default","resourceVersion":"9","annotations":{"pv":"beta-pv"}},"spec":{}}`
	const cr = `{"apiVersion":"acme-stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"acme-default","resourceVersion":"1"},"spec":{}}`
	for _, tc := range []struct {
		name, path, ct, current, patch string
		want                           map[string]any // fields of the upstream merge patch, by dotted path
		absent                         []string       // strings that may not appear in the upstream patch
		code                           int32
	}{
		{name: "json move into metadata.namespace", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSONPatch, current: cm,
			patch: `[{"op":"move","from":"/data/x","path":"/metadata/namespace"}]`,
			want:  map[string]any{"metadata.namespace": "acme-beta-default", "metadata.resourceVersion": "7"}},
		{name: "json copy into an ownerReference name", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSONPatch, current: cm,
			patch: `[{"op":"copy","from":"/metadata/annotations/role","path":"/metadata/ownerReferences/0/name"}]`,
			want:  map[string]any{"metadata.resourceVersion": "7"}, absent: []string{`"name":"cluster-admin","uid":"u1"`}},
		{name: "json replace of an ownerReference kind alone", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSONPatch, current: cm,
			patch:  `[{"op":"replace","path":"/metadata/ownerReferences/1/apiVersion","value":"rbac.authorization.k8s.io/v1"},{"op":"replace","path":"/metadata/ownerReferences/1/kind","value":"ClusterRole"}]`,
			absent: []string{`"name":"cluster-admin"`}},
		{name: "json copy into a RoleBinding subject", path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/r", ct: MediaJSONPatch, current: rb,
			patch:  `[{"op":"copy","from":"/metadata/annotations/user","path":"/subjects/0/name"},{"op":"copy","from":"/metadata/annotations/sa","path":"/subjects/1/namespace"}]`,
			absent: []string{`"name":"zoo:beta:admin"`, `"namespace":"beta-default"`}},
		{name: "json copy into spec.volumeName", path: "/api/v1/namespaces/default/persistentvolumeclaims/d", ct: MediaJSONPatch, current: pvc,
			patch: `[{"op":"copy","from":"/metadata/annotations/pv","path":"/spec/volumeName"}]`,
			want:  map[string]any{"spec.volumeName": "acme-beta-pv"}},
		{name: "json copy onto the ownership label", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch,
			current: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-prod","resourceVersion":"2","labels":{"zoo.kubectl-zoo.io/tenant":"acme"},"annotations":{"zoo.kubectl-zoo.io/tenant":"beta"}}}`,
			patch:   `[{"op":"copy","from":"/metadata/annotations","path":"/metadata/labels"}]`, code: 403},
		{name: "json remove of every label keeps ownership", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch,
			current: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-prod","resourceVersion":"2","labels":{"a":"b","zoo.kubectl-zoo.io/tenant":"acme"}}}`,
			patch:   `[{"op":"move","from":"/metadata/labels","path":"/moved"}]`, want: map[string]any{"moved.a": "b"}, absent: []string{`"zoo.kubectl-zoo.io/tenant":null`}},
		// Namespace annotations have platform-owned keys, and the judge of
		// the json patch cannot see what a move brings (platform.go unseen).
		{name: "json move of the labels onto a namespace's annotations", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch,
			current: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-prod","resourceVersion":"2","labels":{"scheduler.alpha.kubernetes.io/node-selector":"role=infra","zoo.kubectl-zoo.io/tenant":"acme"}}}`,
			patch:   `[{"op":"move","from":"/metadata/labels","path":"/metadata/annotations"}]`, code: 403},
		{name: "json move of the whole metadata keeps ownership", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch,
			current: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-prod","resourceVersion":"2","labels":{"a":"b","zoo.kubectl-zoo.io/tenant":"acme"}}}`,
			patch:   `[{"op":"move","from":"/metadata","path":"/spec"}]`, absent: []string{`"zoo.kubectl-zoo.io/tenant":null`, `"labels":null`}},
		{name: "merge patch nulling metadata keeps ownership", path: "/api/v1/namespaces/prod", ct: MediaMergePatch,
			current: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-prod","resourceVersion":"2","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`,
			patch:   `{"metadata":null}`, absent: []string{`"zoo.kubectl-zoo.io/tenant":null`, `"labels":null`}},
		{name: "json test that fails", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSONPatch, current: cm,
			patch: `[{"op":"test","path":"/data/x","value":"nope"}]`, code: 422},
		{name: "json patch setting the resourceVersion", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSONPatch, current: cm,
			patch: `[{"op":"replace","path":"/metadata/resourceVersion","value":"6"}]`, want: map[string]any{"metadata.resourceVersion": "6"}},
		{name: "merge patch of an ownerReference without its kind", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaMergePatch, current: cm,
			patch:  `{"metadata":{"ownerReferences":[{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","name":"cluster-admin","uid":"u1"}]}}`,
			absent: []string{`"name":"cluster-admin"`}},
		{name: "strategic merge into an ownerReference by uid", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaStrategic, current: cm,
			patch:  `{"metadata":{"ownerReferences":[{"uid":"u1","name":"cluster-admin"}],"$setElementOrder/ownerReferences":[{"uid":"u2"},{"uid":"u1"}]}}`,
			absent: []string{`"name":"cluster-admin","uid":"u1"`}},
		{name: "strategic $patch replace of subjects", path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/r", ct: MediaStrategic, current: rb,
			patch:  `{"subjects":[{"kind":"User","name":"zoo:beta:admin"},{"$patch":"replace"}]}`,
			absent: []string{`"name":"zoo:beta:admin"`}},
		{name: "strategic $retainKeys", path: "/api/v1/namespaces/default/persistentvolumeclaims/d", ct: MediaStrategic, current: pvc,
			patch: `{"spec":{"$retainKeys":["volumeName"],"volumeName":"beta-pv"}}`, want: map[string]any{"spec.volumeName": "acme-beta-pv"}},
		{name: "strategic merge patch of a custom resource", path: "/apis/stable.example.com/v1/namespaces/default/crontabs/x", ct: MediaStrategic, current: cr,
			patch: `{"spec":{"a":1}}`, code: 415},
		{name: "merge patch of a custom resource", path: "/apis/stable.example.com/v1/namespaces/default/crontabs/x", ct: MediaMergePatch, current: cr,
			patch: `{"spec":{"a":1}}`, want: map[string]any{"spec.a": json.Number("1")}},
		{name: "another tenant's object", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaMergePatch,
			current: strings.Replace(cm, `"namespace":"acme-default"`, `"namespace":"beta-default"`, 1), patch: `{}`, code: 404},
		{name: "malformed json patch", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSONPatch, current: cm, patch: `[{"op":"copy"`, code: 400},
		{name: "too many operations", path: "/api/v1/namespaces/default/configmaps/c", ct: MediaJSONPatch, current: cm,
			patch: "[" + strings.Repeat(`{"op":"test","path":"/kind","value":"ConfigMap"},`, maxJSONPatchOperations) + `{"op":"test","path":"/kind","value":"ConfigMap"}]`, code: 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := tr.TranslateRequest(Request{Method: http.MethodPatch, Path: tc.path, Header: http.Header{"Content-Type": {tc.ct}}, Body: []byte(tc.patch)})
			if err != nil { // refused by the per-operation screen already
				assert.Equal(t, tc.code, ToStatus(err).Code, ToStatus(err).Message)
				return
			}
			require.Equal(t, PlanPatchInView, u.Plan)
			vp, err := tr.PatchInView(u, tc.ct, []byte(tc.patch), []byte(tc.current))
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code, ToStatus(err).Message)
				return
			}
			if err != nil { // a refusal is fine as long as it is a clean 4xx
				code := ToStatus(err).Code
				assert.True(t, code >= 400 && code < 500 && len(tc.want) == 0, "%d %s", code, ToStatus(err).Message)
				return
			}
			got, err := DecodeBody(MediaJSON, vp.Body)
			require.NoError(t, err)
			for path, want := range tc.want {
				assert.Equal(t, want, dotted(got, path), path)
			}
			for _, s := range tc.absent {
				assert.NotContains(t, string(vp.Body), s)
			}
			assert.Contains(t, string(vp.Body), `"resourceVersion"`, "the upstream patch is conditional")
		})
	}
}

// dotted reads a dotted path from a decoded document.
func dotted(doc map[string]any, path string) any {
	var cur any = doc
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// TestApplyNeedsCompleteReferences: server-side apply merges an owner
// reference into the stored one by uid, so a name without its kind would
// stay untranslated; such apply configurations are refused.
func TestApplyNeedsCompleteReferences(t *testing.T) {
	tr := newTestTranslator(t)
	for _, tc := range []struct {
		name, body string
		code       int32
	}{
		{"owner reference by uid and name only", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  ownerReferences:\n  - uid: u1\n    name: cluster-admin\n", 403},
		{"event reference without kind", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"involvedObject":{"name":"default"}}`, 403},
		{"complete owner reference", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  ownerReferences:\n  - uid: u1\n    name: viewer\n    kind: ClusterRole\n    apiVersion: rbac.authorization.k8s.io/v1\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/api/v1/namespaces/default/configmaps/c"
			if strings.Contains(tc.body, "Event") {
				path = "/api/v1/namespaces/default/events/e"
			}
			u, err := tr.TranslateRequest(Request{Method: http.MethodPatch, Path: path, Header: http.Header{"Content-Type": {MediaApplyPatch}}, Body: []byte(tc.body)})
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, PlanForward, u.Plan)
			assert.Contains(t, string(u.Body), `"name":"acme-viewer"`)
		})
	}
}
