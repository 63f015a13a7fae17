package localproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The property: whatever a tenant sends, every body that reaches the
// upstream is one the translator produced for that very request (u.Body of
// TranslateRequest, or the merge patch of PatchInView against the object the
// upstream answered), no upgrade reaches it but exec, attach and
// port-forward, and every write goes to the translated path with the
// translated query. Tenant ClusterRoleBindings (stored apart from their
// subjects, crb_test.go) are left out of the generated requests.

// storedObjects are what the fake upstream answers to a GET by name, per
// resource (upstream namespace and name filled in).
var storedObjects = map[string]string{
	"configmaps":             `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q,"resourceVersion":"5","annotations":{"x":"beta-default","role":"cluster-admin"},"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u1"}]},"data":{"x":"beta-default"}}`,
	"rolebindings":           `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":%q,"namespace":%q,"resourceVersion":"5","annotations":{"user":"zoo:beta:admin"}},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"acme-view"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"zoo:acme:dev"}]}`,
	"persistentvolumeclaims": `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":%q,"namespace":%q,"resourceVersion":"5","annotations":{"pv":"beta-pv"}},"spec":{"volumeName":"acme-pv"}}`,
	"pods":                   `{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":%q,"resourceVersion":"5"},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
}

// fuzzUpstream answers like a strict API server that refuses every write
// (so that no follow-up writes of the proxy's own happen) and records what
// reached it, with the body of each GET answer. With a store (walk_test.go)
// it keeps what is written instead, and serves discovery, objects, lists
// and watches from it.
type fuzzUpstream struct {
	mu    sync.Mutex
	got   []seen
	gets  map[string][]byte
	store *objectStore
}

func (f *fuzzUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	var answer []byte
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case f.store != nil:
		var code int
		var ct string
		code, answer, ct = f.store.serve(r, body)
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(code)
	case r.Method != http.MethodGet:
		w.WriteHeader(http.StatusForbidden)
		answer = []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`)
	case len(parts) == 6 && parts[2] == "namespaces" && storedObjects[parts[4]] != "":
		answer = fmt.Appendf(nil, storedObjects[parts[4]], parts[5], parts[3])
	case len(parts) == 7 && parts[3] == "namespaces" && storedObjects[parts[5]] != "":
		answer = fmt.Appendf(nil, storedObjects[parts[5]], parts[6], parts[4])
	case len(parts)%2 == 1 || r.URL.Query().Get("watch") != "" || strings.Contains(r.URL.Path, "/watch/"):
		w.WriteHeader(http.StatusNotFound)
		answer = []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	default:
		answer = []byte(`{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}`)
	}
	f.mu.Lock()
	f.got = append(f.got, seen{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	if r.Method == http.MethodGet {
		f.gets[r.URL.Path] = answer
	}
	f.mu.Unlock()
	_, _ = w.Write(answer)
}

func (f *fuzzUpstream) take() ([]seen, map[string][]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	got, gets := f.got, f.gets
	f.got, f.gets = nil, map[string][]byte{}
	return got, gets
}

// genRequest builds a random tenant request from rng (structure) and raw
// (bytes the fuzzer controls).
func genRequest(t *testing.T, rng *rand.Rand, raw []byte) *http.Request {
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	ns := pick("default", "default", "default", "beta-default", "acme-default", "prod", "", "..", "a%2Fb")
	res := pick("configmaps", "rolebindings", "persistentvolumeclaims", "pods")
	group := map[string]string{"rolebindings": "/apis/rbac.authorization.k8s.io/v1"}[res]
	if group == "" {
		group = "/api/v1"
	}
	path := group + pick("", "", "", "", "", "/watch", "/proxy") + "/namespaces/" + ns + "/" + res +
		pick("", "/c", "/c", "/c", "/c", "/c/status", "/c/exec", "/c/attach", "/c/portforward", "/c/proxy", "/c/log", "/c/x/y", "/")
	if rng.Intn(10) == 0 {
		path = pick("/api/v1/namespaces", "/api/v1/namespaces/prod", "/api/v1/configmaps", "/apis/rbac.authorization.k8s.io/v1/rolebindings", "/apis/storage.k8s.io/v1/storageclasses/fast", "/api/v1/nodes/n/proxy", "/version", "/metrics")
	}
	query := pick("", "?watch=yes", "?watch=1", "?watch=True", "?watch=false&watch=true", "?dryRun=All&fieldManager=x",
		"?fieldSelector=metadata.namespace%3Ddefault&fieldSelector=metadata.namespace%3Dbeta-default", "?labelSelector=a&labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dbeta",
		"?continue=abc", "?command=sh&command=-c")
	method := pick("GET", "HEAD", "POST", "POST", "PUT", "PUT", "PATCH", "PATCH", "PATCH", "DELETE", "OPTIONS", "CONNECT")
	ct := pick(translate.MediaJSON, translate.MediaYAML, translate.MediaProtobuf, translate.MediaJSONPatch, translate.MediaMergePatch,
		translate.MediaStrategic, translate.MediaApplyPatch, "application/json; charset=utf-8", "text/plain", "")
	body := genBody(t, rng, ct, raw)
	req := httptest.NewRequest(http.MethodGet, "http://proxy"+path+query, bytes.NewReader(body))
	req.Method = method
	req.Header.Set("Authorization", "Bearer "+testToken)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if rng.Intn(5) == 0 {
		req.Header.Set("Connection", pick("Upgrade", "upgrade, keep-alive", "Upgrade, Impersonate-User"))
		req.Header.Set("Upgrade", pick("SPDY/3.1", "websocket", "h2c"))
	}
	for _, h := range [][2]string{{"Content-Encoding", "gzip"}, {"X-HTTP-Method-Override", "DELETE"}, {"Content-Type", translate.MediaProtobuf},
		{"Impersonate-User", "system:admin"}, {"X-Remote-User", "system:admin"}} {
		if rng.Intn(12) == 0 {
			req.Header.Add(h[0], h[1])
		}
	}
	return req
}

// genBody returns a body of media type ct: objects with references to
// other tenants, repeated keys and fields, and json patches that copy and
// move into reference fields, or the fuzzer's raw bytes.
func genBody(t *testing.T, rng *rand.Rand, ct string, raw []byte) []byte {
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	if rng.Intn(6) == 0 {
		return raw
	}
	ns := pick("default", "beta-default", "")
	obj := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":%q,"namespace":%q,"ownerReferences":[{"uid":"u1","name":"cluster-admin"}]},"data":{"x":"beta-default"},"subjects":[{"kind":"User","name":"zoo:beta:admin"}]}`, ns, pick("default", "beta-default"))
	switch ct {
	case translate.MediaYAML, translate.MediaApplyPatch:
		y, err := yaml.JSONToYAML([]byte(strings.Replace(obj, `"namespace":`, `"x-dup":`, 1)))
		require.NoError(t, err)
		return y
	case translate.MediaProtobuf:
		cm := corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: ns}, Data: map[string]string{"x": "beta-default"}}
		b := pbEncode(t, &cm, "ConfigMap")
		if rng.Intn(2) == 0 { // a second raw object: protobuf keeps the last
			evil := corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "beta-default"}}
			inner, err := evil.Marshal()
			require.NoError(t, err)
			b = append(append(b, 0x12), append(uvarint(len(inner)), inner...)...)
		}
		return b
	case translate.MediaJSONPatch:
		var ops []string
		for n := rng.Intn(4); n >= 0; n-- {
			target := pick("/metadata/namespace", "/data/x", "/subjects/0/name", "/metadata/ownerReferences/0/name", "/metadata/ownerReferences/0/kind",
				"/spec/volumeName", "/metadata/labels/zoo.kubectl-zoo.io~1tenant", "/metadata/labels", "/metadata/annotations/x")
			from := pick("/data/x", "/metadata/annotations/x", "/metadata/annotations/role", "/metadata/annotations", "/metadata/namespace")
			switch op := pick("add", "replace", "remove", "copy", "move", "test"); op {
			case "copy", "move":
				ops = append(ops, fmt.Sprintf(`{"op":%q,"from":%q,"path":%q}`, op, from, target))
			case "remove":
				ops = append(ops, fmt.Sprintf(`{"op":"remove","path":%q}`, target))
			default:
				ops = append(ops, fmt.Sprintf(`{"op":%q,"path":%q,"value":%q}`, op, target, pick("beta-default", "ClusterRole", "cluster-admin")))
			}
		}
		return []byte("[" + strings.Join(ops, ",") + "]")
	case translate.MediaStrategic:
		return []byte(pick(`{"metadata":{"ownerReferences":[{"uid":"u1","name":"cluster-admin"}],"$setElementOrder/ownerReferences":[{"uid":"u1"}]}}`,
			`{"subjects":[{"kind":"User","name":"zoo:beta:admin"},{"$patch":"replace"}]}`, `{"spec":{"$retainKeys":["volumeName"],"volumeName":"beta-pv"}}`,
			`{"metadata":{"$patch":"delete"}}`, obj))
	}
	return []byte(obj)
}

func uvarint(n int) []byte {
	var b []byte
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

// checkForwardsOnlyTranslated sends req through p and checks the property
// against what reached up.
func checkForwardsOnlyTranslated(t *testing.T, p *Proxy, up *fuzzUpstream, req *http.Request) (bodies int) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	h := req.Header.Clone()
	upgrade := httpstream.IsUpgradeRequest(req)
	p.ServeHTTP(httptest.NewRecorder(), req)
	got, gets := up.take()

	sanitizeHeaders(h, upgrade)
	in := translate.Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Header: h}
	if !upgrade {
		in.Body = body
	}
	u, err := p.tr.TranslateRequest(in)
	if err == nil && u.Info.IsResourceRequest && u.Info.Resource == "rolebindings" && u.Info.Subresource == "" {
		err = hideMaterialized(u) // what the proxy adds (crb.go)
	}
	for _, g := range got {
		if err != nil {
			require.Empty(t, g.Body, "a refused request sent %s %s upstream", g.Method, g.Path)
			continue
		}
		require.True(t, g.Header.Get("Upgrade") == "" || u.Info.IsStreaming(), "upgrade of %s", g.Path)
		require.Empty(t, g.Header.Get("X-Remote-User"))
		require.Empty(t, g.Header.Get("X-Http-Method-Override"))
		if len(g.Body) == 0 {
			continue
		}
		require.Equal(t, u.Path, g.Path, "a body went to another path")
		require.False(t, upgrade, "an upgrade carried a body")
		want := u.Body
		if u.Plan == translate.PlanPatchInView {
			vp, err := p.tr.PatchInView(u, h.Get("Content-Type"), body, gets[u.Path])
			require.NoError(t, err)
			want = vp.Body
		}
		require.Equal(t, string(want), string(g.Body), "%s %s: the upstream got a body the translator did not produce", g.Method, g.Path)
		require.Equal(t, u.Query.Encode(), g.RawQuery)
		requireTenantNamespaces(t, g.Body, u.Info.Resource)
		bodies++
	}
	return bodies
}

// requireTenantNamespaces decodes an upstream body as the API server does
// and requires the namespace fields the API server reads in it — the
// object's own, and the subjects' of a RoleBinding — to be the tenant's.
// (Fields the API server does not know are dropped by it, whatever they
// are called.)
func requireTenantNamespaces(t *testing.T, body []byte, resource string) {
	t.Helper()
	if bytes.HasPrefix(body, []byte("k8s\x00")) {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
		require.NoError(t, err)
		body, err = json.Marshal(obj)
		require.NoError(t, err)
	}
	checkTenantNamespaces(t, body, resource)
	// The API server keeps the last of a repeated key; the first must be
	// translated as well, so that no decoder finds an untranslated one.
	if first, ok := firstWins(body); ok {
		checkTenantNamespaces(t, first, resource)
	}
}

// checkTenantNamespaces is requireTenantNamespaces for a JSON body decoded
// with the last of a repeated key winning.
func checkTenantNamespaces(t *testing.T, body []byte, resource string) {
	t.Helper()
	var doc struct {
		Metadata struct {
			Namespace any `json:"namespace"`
		} `json:"metadata"`
		Subjects []struct {
			Namespace any `json:"namespace"`
		} `json:"subjects"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return
	}
	namespaces := []any{doc.Metadata.Namespace}
	if resource == "rolebindings" {
		for _, s := range doc.Subjects {
			namespaces = append(namespaces, s.Namespace)
		}
	}
	for _, ns := range namespaces {
		if s, ok := ns.(string); ok && s != "" {
			require.True(t, strings.HasPrefix(s, "acme-"), "namespace %q reached the upstream: %s", s, body)
		}
	}
}

// firstWins re-encodes a JSON body keeping the first of each repeated key.
func firstWins(body []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	v, err := firstWinsValue(dec)
	if err != nil {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

func firstWinsValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := firstWinsValue(dec)
			if err != nil {
				return nil, err
			}
			if _, seen := m[k.(string)]; !seen {
				m[k.(string)] = v
			}
		}
		_, err = dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := firstWinsValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token()
		return a, err
	}
	return tok, nil
}

func newFuzzProxy(t testing.TB) (*Proxy, *fuzzUpstream) {
	up := &fuzzUpstream{gets: map[string][]byte{}}
	ts := httptest.NewServer(up)
	t.Cleanup(ts.Close)
	p, err := New(Config{Upstream: &rest.Config{Host: ts.URL, BearerToken: "upstream-secret"}, Tenant: "acme", Admin: true, Token: testToken})
	require.NoError(t, err)
	return p, up
}

// TestProxyForwardsOnlyTranslated checks the property on 600 random
// requests; FuzzProxyForwardsOnlyTranslated explores further.
func TestProxyForwardsOnlyTranslated(t *testing.T) {
	p, up := newFuzzProxy(t)
	rng := rand.New(rand.NewSource(1))
	bodies := 0
	// Subresources the kinds table does not classify for a resource (a
	// ConfigMap's status, a RoleBinding's exec) are refused before the
	// upstream, so twice the requests keep the bodies that reach it
	// above the bound.
	for i := 0; i < 1200; i++ {
		req := genRequest(t, rng, []byte(`{"metadata":{"namespace":"beta-default"}}`))
		t.Run(fmt.Sprint(i, " ", req.Method, " ", req.URL.RequestURI(), " ", req.Header.Get("Content-Type")), func(t *testing.T) {
			bodies += checkForwardsOnlyTranslated(t, p, up, req)
		})
	}
	require.Greater(t, bodies, 40, "too few requests reached the upstream with a body to prove anything")
	t.Logf("%d upstream bodies checked", bodies)
}

// FuzzProxyForwardsOnlyTranslated: the fuzzer picks the structure (seed)
// and the raw bytes some bodies are made of.
func FuzzProxyForwardsOnlyTranslated(f *testing.F) {
	f.Add(int64(1), []byte(`{"metadata":{"namespace":"beta-default"}}`))
	f.Add(int64(2), []byte(`[{"op":"move","from":"/data/x","path":"/metadata/namespace"}]`))
	f.Add(int64(3), []byte("k8s\x00\x0a\x00\x12\x00"))
	// A repeated key: the upstream must get every occurrence translated.
	f.Add(int64(4), []byte(`{"metadata":{"namespace":"beta-default","namespace":"default"}}`))
	f.Add(int64(5), []byte(`{"metadata":{"namespace":"default"},"metadata":{"namespace":"beta-default"},"subjects":[{"namespace":"x","namespace":"beta-default"}]}`))
	f.Add(int64(6), []byte("metadata:\n  namespace: beta-default\n  namespace: default\n"))
	p, up := newFuzzProxy(f)
	f.Fuzz(func(t *testing.T, seed int64, raw []byte) {
		_ = checkForwardsOnlyTranslated(t, p, up, genRequest(t, rand.New(rand.NewSource(seed)), raw))
	})
}
