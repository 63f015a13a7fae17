package localproxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestProxyWalksTheKindsTable walks every declared reference of every kind
// of the kinds table (translate.Kinds) through the real handler, on the
// production paths: create as JSON and as protobuf, update, merge,
// strategic merge and JSON patches, and the answers (GET, LIST, WATCH)
// that come back from the upstream. A value naming another tenant's object
// or the platform's must reach the upstream only translated into tenant
// acme's space, or be refused with a 403 naming the field; what the
// upstream stored must read back as the tenant wrote it. A reference
// without a case in walkCases fails the test: a new row cannot be
// forgotten.
func TestProxyWalksTheKindsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, rule := range translate.Kinds() {
		for _, ref := range rule.Refs {
			key := rule.Resource.String() + " " + ref.Field
			seen[key] = true
			c, ok := walkCases[key]
			if !assert.True(t, ok, "the reference %s has no case in walkCases (walk_cases_test.go): add one", key) {
				continue
			}
			assert.Equal(t, c.want == "", ref.Target.Refused() || c.want == "", "%s", key)
			t.Run(key, func(t *testing.T) { walkRef(t, rule, ref, c) })
		}
	}
	for key := range walkCases {
		assert.True(t, seen[key], "walkCases has %q, which is no reference of the kinds table", key)
	}
}

// walkFixture is an object of a shared kind in the fake upstream: its
// upstream name and the tenant it is labeled for ("" for the platform's).
type walkFixture struct {
	gr     schema.GroupResource
	name   string
	tenant string
}

// walkFixtures are beta's and the platform's objects in the fake upstream.
var walkFixtures = []walkFixture{
	{schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, "beta-low", "beta"},
	{schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}, "beta-rc", "beta"},
	{schema.GroupResource{Group: "networking.k8s.io", Resource: "ingressclasses"}, "beta-nginx", "beta"},
	{schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}, "beta-gold", "beta"},
	{schema.GroupResource{Group: "resource.k8s.io", Resource: "deviceclasses"}, "beta-gpu", "beta"},
	{schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}, "beta-fast", "beta"},
	{schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}, "standard", ""},
}

// newWalkProxy is newFuzzProxy's upstream with a store holding walkFixtures
// (and extra).
func newWalkProxy(t *testing.T, extra ...walkFixture) (*Proxy, *fuzzUpstream) {
	store := newObjectStore()
	for _, f := range append(append([]walkFixture{}, walkFixtures...), extra...) {
		rule, ok := translate.LookupKind(f.gr)
		require.True(t, ok)
		meta := map[string]any{"name": f.name, "resourceVersion": "1"}
		if f.tenant != "" {
			meta["labels"] = map[string]any{translate.TenantLabel: f.tenant}
		}
		store.put(walkCollection(rule, "")+"/"+f.name, map[string]any{"apiVersion": schema.GroupVersion{Group: f.gr.Group, Version: walkVersion(f.gr.Group)}.String(),
			"kind": rule.Kind, "metadata": meta, "value": 0})
	}
	for _, tenant := range []string{"acme", "beta"} { // the tenant records (shared_tenants.go)
		store.put(tenantsPath+"/"+tenant, map[string]any{"metadata": map[string]any{"name": tenant}})
	}
	// acme's policy allows every volume source and ingress host, so that
	// the references under them are walked (translate refuses them
	// otherwise: volume_sources.go, refs_ingress.go).
	store.put(tenantsPath+"/acme", map[string]any{"metadata": map[string]any{"name": "acme"}, "spec": map[string]any{"policy": map[string]any{
		"volumeSources": translate.ExternalVolumeSources(), "ingressHosts": []string{translate.AnyIngressHost}}}})
	up := &fuzzUpstream{gets: map[string][]byte{}, store: store}
	ts := httptest.NewServer(up)
	t.Cleanup(ts.Close)
	// The tenant's admin, as `serve` acts by default: it may create every
	// kind, the reviews the proxy creates for admins included (reviews.go).
	p, err := New(Config{Upstream: &rest.Config{Host: ts.URL, BearerToken: "upstream-secret"}, Tenant: "acme", Token: testToken, Admin: true})
	require.NoError(t, err)
	return p, up
}

// walkObject is the case's tenant object: base, the reference at c.at
// (unless without), and the kind's apiVersion, kind and metadata.
func walkObject(t *testing.T, rule *translate.KindRule, c walkCase, without bool) map[string]any {
	obj := map[string]any{}
	if c.base != "" {
		require.NoError(t, json.Unmarshal([]byte(c.base), &obj))
	}
	var value any
	require.NoError(t, json.Unmarshal([]byte(c.value), &value))
	setPointer(t, obj, c.at, value)
	if without {
		deletePointer(obj, c.at)
	}
	obj["apiVersion"] = schema.GroupVersion{Group: rule.Resource.Group, Version: walkVersion(rule.Resource.Group)}.String()
	obj["kind"] = rule.Kind
	meta := map[string]any{"name": walkName(rule)}
	if rule.Treatment == translate.Namespaced {
		meta["namespace"] = "default"
	}
	obj["metadata"] = meta
	return obj
}

func walkName(rule *translate.KindRule) string {
	if rule.Kind == "CustomResourceDefinition" {
		return "things.x.io"
	}
	return "walk"
}

func walkRef(t *testing.T, rule *translate.KindRule, ref translate.Ref, c walkCase) {
	coll := walkCollection(rule, "default")
	path := coll + "/" + walkName(rule)
	full := walkObject(t, rule, c, false)
	writes := []struct {
		name string
		send func(p *Proxy) *httptest.ResponseRecorder
	}{{"create as JSON", func(p *Proxy) *httptest.ResponseRecorder {
		return send(p, http.MethodPost, coll, translate.MediaJSON, mustJSON(full))
	}}}
	if pb, ok := walkProtobuf(t, full); ok {
		writes = append(writes, struct {
			name string
			send func(p *Proxy) *httptest.ResponseRecorder
		}{"create as protobuf", func(p *Proxy) *httptest.ResponseRecorder {
			return send(p, http.MethodPost, coll, translate.MediaProtobuf, pb)
		}})
	}
	if !createOnly(rule) {
		base := mustJSON(walkObject(t, rule, c, true))
		patches := []struct{ name, ct, body string }{
			{"update", "", string(mustJSON(full))},
			{"merge patch", translate.MediaMergePatch, string(mustJSON(full))},
			{"strategic merge patch", translate.MediaStrategic, string(mustJSON(full))},
			{"json patch", translate.MediaJSONPatch, `[{"op":"add","path":"` + c.at + `","value":` + c.value + `}]`},
		}
		for _, pt := range patches {
			writes = append(writes, struct {
				name string
				send func(p *Proxy) *httptest.ResponseRecorder
			}{pt.name, func(p *Proxy) *httptest.ResponseRecorder {
				rec := send(p, http.MethodPost, coll, translate.MediaJSON, base)
				require.Less(t, rec.Code, 300, "the object without the reference: %s", rec.Body)
				if pt.ct == "" {
					return send(p, http.MethodPut, path, translate.MediaJSON, []byte(pt.body))
				}
				return send(p, http.MethodPatch, path, pt.ct, []byte(pt.body))
			}})
		}
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			p, up := newWalkProxy(t)
			rec := w.send(p)
			got, _ := up.take()
			stored := lastStored(t, up, got, rule)
			if c.want == "" {
				require.Equal(t, http.StatusForbidden, rec.Code, "the proxy let %s through: %s", ref.Field, rec.Body)
				assert.Contains(t, rec.Body.String(), ref.Field, "the 403 names the field")
				if v, set := getPointer(stored, c.at); set {
					assert.NotEqual(t, compactJSON(t, c.value), string(mustJSON(v)), "a refused value reached the upstream: %s", mustJSON(stored))
				}
				return
			}
			if w.name == "strategic merge patch" && rec.Code == http.StatusUnsupportedMediaType {
				// The proxy has no strategic merge schema for the kind:
				// refused before anything is sent.
				if v, set := getPointer(stored, c.at); set {
					assert.NotEqual(t, compactJSON(t, c.want), string(mustJSON(v)), "the upstream got the reference after a 415")
				}
				return
			}
			require.Less(t, rec.Code, 300, rec.Body.String())
			require.NotNil(t, stored, "nothing reached the upstream")
			v, set := getPointer(stored, c.at)
			require.True(t, set, "the upstream object lacks %s: %s", c.at, mustJSON(stored))
			assert.JSONEq(t, c.want, string(mustJSON(v)), "what the upstream stored at %s", c.at)
			back := c.value
			if c.back != "" {
				back = c.back
			}
			if createOnly(rule) {
				requireAt(t, rec.Body.Bytes(), c.at, back, "the review's answer")
				return
			}
			for _, read := range walkReads(rule) {
				body, mt := readAnswer(t, p, read.path, read.accept)
				requireAt(t, body, read.item+c.at, back, read.name+" answered in "+mt)
			}
		})
	}
}

// createOnly reports whether the kind is a review: created, answered and
// never stored (virtual ones, and the namespaced LocalSubjectAccessReview).
func createOnly(rule *translate.KindRule) bool {
	return rule.Treatment == translate.Virtual || strings.HasSuffix(rule.Resource.Resource, "reviews")
}

func compactJSON(t *testing.T, s string) string {
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	return string(mustJSON(v))
}

// send makes one tenant request.
func send(p *Proxy, method, path, ct string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://proxy"+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, req)
	return rec
}

// lastStored is the case's object as the upstream holds it after the
// writes (a review's: the body it was sent). A tenant ClusterRoleBinding's
// subjects are stored in an annotation (pkg/crbstore/store.go).
func lastStored(t *testing.T, up *fuzzUpstream, got []seen, rule *translate.KindRule) map[string]any {
	var obj map[string]any
	if createOnly(rule) {
		for _, g := range got {
			if g.Method == http.MethodPost && len(g.Body) > 0 {
				require.NoError(t, json.Unmarshal(g.Body, &obj))
			}
		}
		return obj
	}
	var last string
	for _, g := range got {
		if g.Method != http.MethodGet && strings.HasSuffix(g.Path, "/"+rule.Resource.Resource) {
			var o struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			_ = json.Unmarshal(g.Body, &o)
			last = g.Path + "/" + o.Metadata.Name
		} else if g.Method == http.MethodPut || g.Method == http.MethodPatch {
			last = g.Path
		}
	}
	obj, ok := up.store.get(last)
	if !ok {
		return nil
	}
	if rule.Kind == "ClusterRoleBinding" {
		annotations, _ := obj["metadata"].(map[string]any)["annotations"].(map[string]any)
		if s, ok := annotations[crbstore.SubjectsAnnotation].(string); ok {
			var subjects any
			require.NoError(t, json.Unmarshal([]byte(s), &subjects))
			obj["subjects"] = subjects
		}
	}
	return obj
}

// walkProtobuf encodes obj in protobuf, if its kind has a protobuf form.
func walkProtobuf(t *testing.T, obj map[string]any) ([]byte, bool) {
	gvk := schema.FromAPIVersionAndKind(obj["apiVersion"].(string), obj["kind"].(string))
	typed, err := walkScheme.New(gvk)
	if err != nil {
		return nil, false
	}
	require.NoError(t, json.Unmarshal(mustJSON(obj), typed))
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	var buf bytes.Buffer
	require.NoError(t, protobuf.NewSerializer(walkScheme, walkScheme).Encode(typed, &buf))
	return buf.Bytes(), true
}

// requireAt requires the JSON body to hold want at the pointer at.
func requireAt(t *testing.T, body []byte, at, want, what string) {
	t.Helper()
	var doc any
	require.NoError(t, json.Unmarshal(body, &doc), "%s: %s", what, body)
	v, ok := getPointer(doc, at)
	require.True(t, ok, "%s lacks %s: %s", what, at, body)
	assert.JSONEq(t, want, string(mustJSON(v)), "%s at %s", what, at)
}

func pointerSteps(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	steps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range steps {
		steps[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
	}
	return steps
}

// pointerField is the Ref.Field of a pointer ("/spec/x/0/y" → "spec.x[].y").
func pointerField(p string) string {
	var out []string
	for _, s := range pointerSteps(p) {
		if _, err := strconv.Atoi(s); err == nil && len(out) > 0 {
			out[len(out)-1] += "[]"
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, ".")
}

func getPointer(doc any, p string) (any, bool) {
	for _, s := range pointerSteps(p) {
		switch d := doc.(type) {
		case map[string]any:
			v, ok := d[s]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i >= len(d) {
				return nil, false
			}
			doc = d[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// setPointer sets p in obj, making the maps and one-item lists on the way
// (a numeric step is a list index).
func setPointer(t *testing.T, obj map[string]any, p string, value any) {
	steps := pointerSteps(p)
	var cur any = obj
	for i, s := range steps {
		last := i == len(steps)-1
		next := func() any {
			if last {
				return value
			}
			if _, err := strconv.Atoi(steps[i+1]); err == nil {
				return []any{}
			}
			return map[string]any{}
		}
		switch d := cur.(type) {
		case map[string]any:
			if _, ok := d[s]; !ok || last {
				d[s] = next()
			}
			cur = d[s]
		case []any:
			idx, err := strconv.Atoi(s)
			require.NoError(t, err)
			for len(d) <= idx {
				d = append(d, next())
			}
			// re-anchor the grown list in its parent
			setPointer(t, obj, "/"+strings.Join(steps[:i], "/"), d)
			if last {
				d[idx] = value
			}
			cur = d[idx]
		}
	}
}

func deletePointer(obj map[string]any, p string) {
	steps := pointerSteps(p)
	parent, ok := getPointer(obj, "/"+strings.Join(steps[:len(steps)-1], "/"))
	if m, isMap := parent.(map[string]any); ok && isMap {
		delete(m, steps[len(steps)-1])
	}
}
