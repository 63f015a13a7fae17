package localproxy

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// walkScheme knows every built-in kind of the kinds table, CRDs included,
// for the protobuf bodies of the table walk.
var walkScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// walkVersion is the version the fake upstream serves a group in: the
// preferred one of the scheme.
func walkVersion(group string) string {
	if vs := walkScheme.PrioritizedVersionsForGroup(group); len(vs) > 0 {
		return vs[0].Version
	}
	return "v1"
}

// walkCollection is the upstream path of a resource's collection, in ns
// (upstream) for namespaced ones.
func walkCollection(rule *translate.KindRule, ns string) string {
	path := "/apis/" + rule.Resource.Group + "/" + walkVersion(rule.Resource.Group)
	if rule.Resource.Group == "" {
		path = "/api/v1"
	}
	if rule.Treatment == translate.Namespaced && ns != "" {
		path += "/namespaces/" + ns
	}
	return path + "/" + rule.Resource.Resource
}

// objectStore is the memory of a fake upstream: objects by their upstream
// path; discovery is the kinds table's. Writes store the body as sent
// (merge patches applied), reads serve it back: single objects, lists and
// watches (each stored object once, ADDED).
type objectStore struct {
	mu      sync.Mutex
	objects map[string]map[string]any
	// review, when set, is the answer to every review (else the review
	// as it was sent).
	review []byte
}

func newObjectStore() *objectStore { return &objectStore{objects: map[string]map[string]any{}} }

// get returns the object stored at path.
func (s *objectStore) get(path string) (map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects[path]
	return obj, ok
}

// put stores obj at path.
func (s *objectStore) put(path string, obj map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[path] = obj
}

func (s *objectStore) serve(r *http.Request, body []byte) (code int, answer []byte, contentType string) {
	path := r.URL.Path
	if d, ok := walkDiscovery(path); ok {
		return http.StatusOK, d, translate.MediaJSON
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodGet {
		return s.read(r)
	}
	code, answer = s.write(r, body)
	return code, answer, translate.MediaJSON
}

// read answers a GET: the object, a list or a watch of the collection, in
// protobuf when the client asks for it first (as the API server does).
func (s *objectStore) read(r *http.Request) (int, []byte, string) {
	path, pb := r.URL.Path, wantsProtobuf(r)
	if obj, ok := s.objects[path]; ok {
		return answerObject(obj, pb)
	}
	var items []map[string]any
	var keys []string
	for k := range s.objects {
		if rest, ok := strings.CutPrefix(k, path+"/"); ok && !strings.Contains(rest, "/") {
			keys = append(keys, k)
		}
	}
	gvk, isColl := collectionGVK(path)
	if len(keys) == 0 && !isColl {
		return http.StatusNotFound, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`), translate.MediaJSON
	}
	sort.Strings(keys)
	for _, k := range keys {
		items = append(items, s.objects[k])
	}
	if w := r.URL.Query().Get("watch"); w != "" && w != "false" && w != "0" {
		return answerWatch(items, pb)
	}
	return answerList(gvk, items, pb)
}

func (s *objectStore) write(r *http.Request, body []byte) (int, []byte) {
	path := r.URL.Path
	switch r.Method {
	case http.MethodPost:
		var obj map[string]any
		if err := json.Unmarshal(body, &obj); err != nil {
			return http.StatusBadRequest, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":400}`)
		}
		meta, _ := obj["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if name == "" || strings.HasSuffix(path, "reviews") {
			if s.review != nil {
				return http.StatusCreated, s.review
			}
			return http.StatusCreated, body // reviews are answered, not stored
		}
		meta["resourceVersion"] = "5"
		s.objects[path+"/"+name] = obj
		return http.StatusCreated, mustJSON(obj)
	case http.MethodPut:
		var obj map[string]any
		if err := json.Unmarshal(body, &obj); err != nil {
			return http.StatusBadRequest, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":400}`)
		}
		s.objects[path] = obj
		return http.StatusOK, body
	case http.MethodPatch:
		old, ok := s.objects[path]
		if !ok || r.Header.Get("Content-Type") != translate.MediaMergePatch {
			return http.StatusUnsupportedMediaType, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":415}`)
		}
		patched, err := jsonpatch.MergePatch(mustJSON(old), body)
		if err != nil {
			return http.StatusUnprocessableEntity, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":422}`)
		}
		var obj map[string]any
		_ = json.Unmarshal(patched, &obj)
		s.objects[path] = obj
		return http.StatusOK, patched
	}
	return http.StatusMethodNotAllowed, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":405}`)
}

// collectionGVK is the kind of the list a collection path answers with
// ("/apis/apps/v1/namespaces/x/deployments" → apps/v1 DeploymentList);
// ok is false when path is no collection of the kinds table.
func collectionGVK(path string) (schema.GroupVersionKind, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var gv schema.GroupVersion
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		gv = schema.GroupVersion{Version: parts[1]}
	case len(parts) >= 4 && parts[0] == "apis":
		gv = schema.GroupVersion{Group: parts[1], Version: parts[2]}
	default:
		return schema.GroupVersionKind{}, false
	}
	rule, ok := translate.LookupKind(schema.GroupResource{Group: gv.Group, Resource: parts[len(parts)-1]})
	if !ok {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(rule.Kind + "List"), true
}

// walkDiscovery answers the discovery paths from the kinds table.
func walkDiscovery(path string) ([]byte, bool) {
	groups := map[string][]metav1.APIResource{}
	for _, r := range translate.Kinds() {
		groups[r.Resource.Group] = append(groups[r.Resource.Group], metav1.APIResource{
			Name: r.Resource.Resource, Kind: r.Kind, Namespaced: r.Treatment == translate.Namespaced,
			Verbs: metav1.Verbs{"get", "list", "watch", "create", "update", "patch", "delete"}})
	}
	gv := func(g string) schema.GroupVersion { return schema.GroupVersion{Group: g, Version: walkVersion(g)} }
	switch {
	case path == "/api":
		return mustJSON(metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}}), true
	case path == "/api/v1":
		return mustJSON(metav1.APIResourceList{GroupVersion: "v1", APIResources: groups[""]}), true
	case path == "/apis":
		list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
		for g := range groups {
			if g != "" {
				v := metav1.GroupVersionForDiscovery{GroupVersion: gv(g).String(), Version: gv(g).Version}
				list.Groups = append(list.Groups, metav1.APIGroup{Name: g, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v})
			}
		}
		return mustJSON(list), true
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if parts[0] != "apis" || len(parts) > 3 || len(parts) < 2 {
		return nil, false
	}
	res, ok := groups[parts[1]]
	if !ok {
		return nil, false
	}
	g := gv(parts[1])
	if len(parts) == 2 {
		v := metav1.GroupVersionForDiscovery{GroupVersion: g.String(), Version: g.Version}
		return mustJSON(metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: g.Group,
			Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v}), true
	}
	if parts[2] != g.Version {
		return nil, false
	}
	return mustJSON(metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: g.String(), APIResources: res}), true
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
