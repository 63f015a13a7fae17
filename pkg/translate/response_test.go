package translate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func upstreamFor(t *testing.T, tr *Translator, method, path, query string) *UpstreamRequest {
	t.Helper()
	r := Request{Method: method, Path: path, Header: http.Header{}}
	if query != "" {
		r.Query = map[string][]string{}
		k, v, _ := strings.Cut(query, "=")
		r.Query.Set(k, v)
	}
	u, err := tr.TranslateRequest(r)
	require.NoError(t, err)
	return u
}

func TestTranslateResponse(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name, path, query, in, want string
		code                        int32
	}{
		{name: "namespace list drops other tenants", path: "/api/v1/namespaces",
			in:   `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"continue":"c"},"items":[{"metadata":{"name":"acme-a","labels":{"zoo.kubectl-zoo.io/tenant":"acme","kubernetes.io/metadata.name":"acme-a"}}},{"metadata":{"name":"beta-a","labels":{"zoo.kubectl-zoo.io/tenant":"beta"}}},{"metadata":{"name":"acme-b","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}],"extra":1}`,
			want: `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"continue":"c"},"items":[{"metadata":{"name":"a","labels":{"kubernetes.io/metadata.name":"a"}}},{"metadata":{"name":"b"}}],"extra":1}`},
		{name: "CR list maps apiVersion", path: "/apis/stable.example.com/v1/namespaces/default/crontabs",
			in:   `{"apiVersion":"acme-stable.example.com/v1","kind":"CronTabList","items":[{"apiVersion":"acme-stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"acme-default"}}]}`,
			want: `{"apiVersion":"stable.example.com/v1","kind":"CronTabList","items":[{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default"}}]}`},
		{name: "null items", path: "/api/v1/namespaces/default/configmaps", in: `{"kind":"ConfigMapList","items":null}`, want: `{"kind":"ConfigMapList","items":[]}`},
		{name: "status to a list", path: "/api/v1/namespaces/default/configmaps",
			in:   `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"namespaces \"acme-default\" not found","reason":"NotFound","details":{"name":"acme-default","kind":"namespaces"},"code":404}`,
			want: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"namespaces \"default\" not found","reason":"NotFound","details":{"name":"default","kind":"namespaces"},"code":404}`},
		{name: "table of namespaces", path: "/api/v1/namespaces",
			in:   `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[{"name":"Name","format":"name"},{"name":"Status"}],"rows":[{"cells":["acme-a","Active"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"acme-a","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}},{"cells":["beta-a","Active"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"beta-a"}}}]}`,
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[{"name":"Name","format":"name"},{"name":"Status"}],"rows":[{"cells":["a","Active"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a"}}}]}`},
		{name: "table with a namespace column", path: "/api/v1/namespaces/default/pods",
			in:   `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Namespace"},{"name":"Name","format":"name"}],"rows":[{"cells":["acme-default","p"],"object":{"metadata":{"name":"p","namespace":"acme-default"}}},{"cells":["x"]}]}`,
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Namespace"},{"name":"Name","format":"name"}],"rows":[{"cells":["default","p"],"object":{"metadata":{"name":"p","namespace":"default"}}},{"cells":["x"]}]}`},
		{name: "single object", path: "/api/v1/namespaces/prod", in: `{"kind":"Namespace","metadata":{"name":"acme-prod","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`,
			want: `{"kind":"Namespace","metadata":{"name":"prod"}}`},
		{name: "single table", path: "/api/v1/namespaces/prod", in: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name","format":"name"}],"rows":[{"cells":["acme-prod"],"object":{"metadata":{"name":"acme-prod"}}}]}`,
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name","format":"name"}],"rows":[{"cells":["prod"],"object":{"metadata":{"name":"prod"}}}]}`},
		{name: "object list in a get", path: "/api/v1/namespaces/prod", in: `{"kind":"NamespaceList","items":[{"metadata":{"name":"acme-prod"}},{"metadata":{"name":"beta-prod"}}]}`,
			want: `{"kind":"NamespaceList","items":[{"metadata":{"name":"prod"}}]}`},
		{name: "other tenant's shared object", path: "/apis/storage.k8s.io/v1/storageclasses/beta-x", in: `{"metadata":{"name":"beta-x","labels":{"zoo.kubectl-zoo.io/tenant":"beta"}}}`, code: 404},
		{name: "malformed", path: "/api/v1/namespaces", in: `{"items":[{]}`, code: 400},
		{name: "not an object", path: "/api/v1/namespaces", in: `[]`, code: 400},
		{name: "items not a list", path: "/api/v1/namespaces", in: `{"items":{}}`, code: 400},
		{name: "raw logs", path: "/api/v1/namespaces/default/pods/p/log", in: "line acme-default\n", want: "line acme-default\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := upstreamFor(t, tr, "GET", tc.path, tc.query)
			var out bytes.Buffer
			err := tr.TranslateResponse(u, strings.NewReader(tc.in), &out)
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code)
				return
			}
			require.NoError(t, err)
			if u.Response == ResponseRaw {
				assert.Equal(t, tc.want, out.String())
				return
			}
			assert.JSONEq(t, tc.want, out.String())
		})
	}
}

type flushRecorder struct {
	bytes.Buffer
	flushes int
}

func (f *flushRecorder) Flush() { f.flushes++ }

func TestTranslateWatch(t *testing.T) {
	tr := newTestTranslator(t)
	u := upstreamFor(t, tr, "GET", "/api/v1/namespaces", "watch=true")
	in := `{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"acme-a","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}}
{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"beta-a","labels":{"zoo.kubectl-zoo.io/tenant":"beta"}}}}
{"type":"MODIFIED","object":{"kind":"Namespace","metadata":{"name":"acme-a","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}}
{"type":"DELETED","object":{"kind":"Namespace","metadata":{"name":"acme-a","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}}
{"type":"BOOKMARK","object":{"kind":"Namespace","apiVersion":"v1","metadata":{"resourceVersion":"12"}}}
{"type":"ERROR","object":{"kind":"Status","message":"too old resource version","code":410,"reason":"Expired"}}
`
	out := &flushRecorder{}
	require.NoError(t, tr.TranslateResponse(u, strings.NewReader(in), out))
	want := []string{
		`{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"a"}}}`,
		`{"type":"MODIFIED","object":{"kind":"Namespace","metadata":{"name":"a"}}}`,
		`{"type":"DELETED","object":{"kind":"Namespace","metadata":{"name":"a"}}}`,
		`{"type":"BOOKMARK","object":{"kind":"Namespace","apiVersion":"v1","metadata":{"resourceVersion":"12"}}}`,
		`{"type":"ERROR","object":{"kind":"Status","message":"too old resource version","code":410,"reason":"Expired"}}`,
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, len(want))
	for i := range want {
		assert.JSONEq(t, want[i], lines[i])
	}
	assert.Equal(t, len(want), out.flushes)

	t.Run("malformed", func(t *testing.T) {
		err := tr.TranslateWatch(u.Rule, strings.NewReader(`{"type":`), &bytes.Buffer{})
		assert.Equal(t, int32(400), ToStatus(err).Code)
	})
	t.Run("malformed object", func(t *testing.T) {
		err := tr.TranslateWatch(u.Rule, strings.NewReader(`{"type":"ADDED","object":1}`), &bytes.Buffer{})
		assert.Equal(t, int32(400), ToStatus(err).Code)
	})
	t.Run("write error", func(t *testing.T) {
		err := tr.TranslateWatch(u.Rule, strings.NewReader(in), failWriter{})
		require.Error(t, err)
	})
	// A watch's read buffer starts small (watchReadStart) and grows to the
	// largest event: events of many times its size, read in pieces of
	// every size, arrive whole and in order.
	t.Run("events larger than the start buffer", func(t *testing.T) {
		var stream strings.Builder
		var want []string
		for i, size := range []int{1, watchReadStart - 100, watchReadStart, 3 * watchReadStart, 40 * watchReadStart, 10} {
			label := strings.Repeat("x", size)
			fmt.Fprintf(&stream, `{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"acme-n%d","labels":{"zoo.kubectl-zoo.io/tenant":"acme","big":%q}}}}`+"\n", i, label)
			want = append(want, fmt.Sprintf(`{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"n%d","labels":{"big":%q}}}}`, i, label))
		}
		for _, r := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r },
			iotest.OneByteReader,
			iotest.HalfReader,
		} {
			out := &flushRecorder{}
			require.NoError(t, tr.TranslateWatch(u.Rule, r(strings.NewReader(stream.String())), out))
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			require.Len(t, lines, len(want))
			for i := range want {
				assert.JSONEq(t, want[i], lines[i])
			}
		}
	})
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestStatusRewrite(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct{ name, in, want string }{
		{"not found CR", `{"kind":"Status","message":"crontabs.acme-stable.example.com \"x\" not found","reason":"NotFound","details":{"name":"x","group":"acme-stable.example.com","kind":"crontabs"}}`,
			`{"kind":"Status","message":"crontabs.stable.example.com \"x\" not found","reason":"NotFound","details":{"name":"x","group":"stable.example.com","kind":"crontabs"}}`},
		{"already exists cluster role", `{"kind":"Status","message":"clusterroles.rbac.authorization.k8s.io \"acme-view\" already exists","details":{"name":"acme-view","group":"rbac.authorization.k8s.io","kind":"clusterroles"}}`,
			`{"kind":"Status","message":"clusterroles.rbac.authorization.k8s.io \"view\" already exists","details":{"name":"view","group":"rbac.authorization.k8s.io","kind":"clusterroles"}}`},
		{"conflict on a CRD", `{"kind":"Status","message":"Operation cannot be fulfilled on customresourcedefinitions.apiextensions.k8s.io \"a.acme-b.io\": changed","details":{"name":"a.acme-b.io","group":"apiextensions.k8s.io","kind":"customresourcedefinitions"}}`,
			`{"kind":"Status","message":"Operation cannot be fulfilled on customresourcedefinitions.apiextensions.k8s.io \"a.b.io\": changed","details":{"name":"a.b.io","group":"apiextensions.k8s.io","kind":"customresourcedefinitions"}}`},
		{"forbidden by RBAC", `{"kind":"Status","message":"configmaps is forbidden: User \"zoo:acme:dev\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"acme-default\"","details":{"kind":"configmaps"}}`,
			`{"kind":"Status","message":"configmaps is forbidden: User \"dev\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\"","details":{"kind":"configmaps"}}`},
		{"forbidden at cluster scope", `{"kind":"Status","message":"x is forbidden: User \"zoo:acme:dev\" cannot list resource \"crontabs\" in API group \"acme-s.io\" at the cluster scope: no"}`,
			`{"kind":"Status","message":"x is forbidden: User \"dev\" cannot list resource \"crontabs\" in API group \"s.io\" at the cluster scope: no"}`},
		{"unparsable denial kept", `{"kind":"Status","message":"User \"x\" is odd"}`, `{"kind":"Status","message":"User \"x\" is odd"}`},
		{"invalid namespace", `{"kind":"Status","message":"Namespace \"acme-x\" is invalid: metadata.name: Invalid value: \"acme-x\": bad","details":{"name":"acme-x","kind":"Namespace","causes":[{"field":"metadata.name","message":"Invalid value: \"acme-x\": bad"},{"field":"metadata.namespace","message":"Invalid value: \"acme-y\": bad"},{"field":"spec","message":"x"},{"field":"metadata.name","message":"Required value"},{"field":"metadata.name","message":"Invalid value: bad"},7]}}`,
			`{"kind":"Status","message":"Namespace \"x\" is invalid: metadata.name: Invalid value: \"acme-x\": bad","details":{"name":"x","kind":"Namespace","causes":[{"field":"metadata.name","message":"Invalid value: \"x\": bad"},{"field":"metadata.namespace","message":"Invalid value: \"y\": bad"},{"field":"spec","message":"x"},{"field":"metadata.name","message":"Required value"},{"field":"metadata.name","message":"Invalid value: bad"},7]}}`},
		{"unknown group kept", `{"kind":"Status","details":{"name":"n","group":"beta-x.io","kind":"things"}}`, `{"kind":"Status","details":{"name":"n","group":"beta-x.io","kind":"things"}}`},
		{"CRD of another tenant kept", `{"kind":"Status","details":{"name":"a.beta-b.io","group":"apiextensions.k8s.io","kind":"customresourcedefinitions"}}`, `{"kind":"Status","details":{"name":"a.beta-b.io","group":"apiextensions.k8s.io","kind":"customresourcedefinitions"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.in)
			tr.statusOut(obj)
			jsonEq(t, tc.want, obj)
		})
	}
}

func TestDiscovery(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name, path, in, want string
		code                 int32
	}{
		{"group list", "/apis",
			`{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1"}],"preferredVersion":{"groupVersion":"apps/v1"}},{"name":"acme-s.io","versions":[{"groupVersion":"acme-s.io/v1"}],"preferredVersion":{"groupVersion":"acme-s.io/v1"}},{"name":"beta-s.io"},{"name":"cert-manager.io"},7]}`,
			`{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1"}],"preferredVersion":{"groupVersion":"apps/v1"}},{"name":"s.io","versions":[{"groupVersion":"s.io/v1"}],"preferredVersion":{"groupVersion":"s.io/v1"}}]}`, 0},
		{"group", "/apis/s.io", `{"kind":"APIGroup","name":"acme-s.io","versions":[{"groupVersion":"acme-s.io/v1"}]}`, `{"kind":"APIGroup","name":"s.io","versions":[{"groupVersion":"s.io/v1"}]}`, 0},
		{"foreign group", "/apis/s.io", `{"kind":"APIGroup","name":"beta-s.io"}`, "", 404},
		{"core resources hide hidden kinds", "/api/v1",
			`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods"},{"name":"componentstatuses"},{"name":"pods/log"},3]}`,
			`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods"},{"name":"pods/log"}]}`, 0},
		{"tenant group resources", "/apis/s.io/v1",
			`{"kind":"APIResourceList","groupVersion":"acme-s.io/v1","resources":[{"name":"things","group":"acme-s.io"}]}`,
			`{"kind":"APIResourceList","groupVersion":"s.io/v1","resources":[{"name":"things","group":"s.io"}]}`, 0},
		{"foreign resources", "/apis/s.io/v1", `{"kind":"APIResourceList","groupVersion":"beta-s.io/v1"}`, "", 404},
		{"aggregated", "/apis",
			`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{"name":"acme-s.io"},"versions":[{"version":"v1","resources":[{"resource":"things","responseKind":{"group":"acme-s.io","version":"v1","kind":"Thing"},"subresources":[{"subresource":"status","responseKind":{"group":"acme-s.io","kind":"Thing"}},1]}]},2]},{"metadata":{"name":"beta-s.io"}},{"metadata":{"name":"storage.k8s.io"},"versions":[{"version":"v1","resources":[{"resource":"volumeattachments"},{"resource":"storageclasses"}]}]}]}`,
			`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{"name":"s.io"},"versions":[{"version":"v1","resources":[{"resource":"things","responseKind":{"group":"s.io","version":"v1","kind":"Thing"},"subresources":[{"subresource":"status","responseKind":{"group":"s.io","kind":"Thing"}},1]}]},2]},{"metadata":{"name":"storage.k8s.io"},"versions":[{"version":"v1","resources":[{"resource":"storageclasses"}]}]}]}`, 0},
		{"versions pass", "/api", `{"kind":"APIVersions","versions":["v1"]}`, `{"kind":"APIVersions","versions":["v1"]}`, 0},
		{"malformed", "/api", `{`, "", 400},
		{"a refusal is a Status, not a document", "/apis/s.io/v1",
			`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is currently unable to handle the request","reason":"ServiceUnavailable","details":{"group":"acme-s.io"},"code":503}`,
			`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is currently unable to handle the request","reason":"ServiceUnavailable","details":{"group":"s.io"},"code":503}`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := upstreamFor(t, tr, "GET", tc.path, "")
			var out bytes.Buffer
			err := tr.TranslateResponse(u, strings.NewReader(tc.in), &out)
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, out.String())
		})
	}
}

func TestOpenAPI(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct{ name, path, in, want string }{
		{"v3 index", "/openapi/v3",
			`{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=1"},"apis/acme-s.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-s.io/v1?hash=2"},"apis/beta-s.io/v1":{"serverRelativeURL":"/openapi/v3/apis/beta-s.io/v1?hash=3"},"apis/acme-s.io":{"serverRelativeURL":"/openapi/v3/apis/acme-s.io?hash=4"}}}`,
			`{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=1"},"apis/s.io/v1":{"serverRelativeURL":"/openapi/v3/apis/s.io/v1?hash=2"},"apis/s.io":{"serverRelativeURL":"/openapi/v3/apis/s.io?hash=4"}}}`},
		{"v3 document", "/openapi/v3/apis/s.io/v1",
			`{"paths":{"/apis/acme-s.io/v1/namespaces/{namespace}/things":{"get":{"responses":{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/io.acme-s.v1.Thing"}}}}}}}},"components":{"schemas":{"io.acme-s.v1.Thing":{"x-kubernetes-group-version-kind":[{"group":"acme-s.io","version":"v1","kind":"Thing"}],"properties":{"metadata":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}},"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":{"type":"object"}}}}`,
			`{"paths":{"/apis/s.io/v1/namespaces/{namespace}/things":{"get":{"responses":{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/io.s.v1.Thing"}}}}}}}},"components":{"schemas":{"io.s.v1.Thing":{"x-kubernetes-group-version-kind":[{"group":"s.io","version":"v1","kind":"Thing"}],"properties":{"metadata":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}},"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":{"type":"object"}}}}`},
		{"v3 path operation gvk (an object, not an array)", "/openapi/v3/apis/s.io/v1",
			`{"paths":{"/apis/acme-s.io/v1/things":{"get":{"x-kubernetes-group-version-kind":{"group":"acme-s.io","version":"v1","kind":"Thing"}}}}}`,
			`{"paths":{"/apis/s.io/v1/things":{"get":{"x-kubernetes-group-version-kind":{"group":"s.io","version":"v1","kind":"Thing"}}}}}`},
		{"v3 index with many tenant groups (renamed keys are not revisited)", "/openapi/v3",
			`{"paths":{"apis/acme-g0.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g0.io/v1?hash=0"},"apis/acme-g1.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g1.io/v1?hash=1"},"apis/acme-g2.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g2.io/v1?hash=2"},"apis/acme-g3.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g3.io/v1?hash=3"},"apis/acme-g4.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g4.io/v1?hash=4"},"apis/acme-g5.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g5.io/v1?hash=5"},"apis/acme-g6.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g6.io/v1?hash=6"},"apis/acme-g7.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g7.io/v1?hash=7"},"apis/acme-g8.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g8.io/v1?hash=8"},"apis/acme-g9.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g9.io/v1?hash=9"},"apis/acme-g10.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g10.io/v1?hash=10"},"apis/acme-g11.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g11.io/v1?hash=11"},"apis/acme-g12.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g12.io/v1?hash=12"},"apis/acme-g13.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g13.io/v1?hash=13"},"apis/acme-g14.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g14.io/v1?hash=14"},"apis/acme-g15.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g15.io/v1?hash=15"},"apis/acme-g16.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g16.io/v1?hash=16"},"apis/acme-g17.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g17.io/v1?hash=17"},"apis/acme-g18.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g18.io/v1?hash=18"},"apis/acme-g19.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g19.io/v1?hash=19"},"apis/acme-g20.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g20.io/v1?hash=20"},"apis/acme-g21.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g21.io/v1?hash=21"},"apis/acme-g22.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g22.io/v1?hash=22"},"apis/acme-g23.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g23.io/v1?hash=23"},"apis/acme-g24.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g24.io/v1?hash=24"},"apis/acme-g25.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g25.io/v1?hash=25"},"apis/acme-g26.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g26.io/v1?hash=26"},"apis/acme-g27.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g27.io/v1?hash=27"},"apis/acme-g28.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g28.io/v1?hash=28"},"apis/acme-g29.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g29.io/v1?hash=29"},"apis/acme-g30.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g30.io/v1?hash=30"},"apis/acme-g31.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g31.io/v1?hash=31"},"apis/acme-g32.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g32.io/v1?hash=32"},"apis/acme-g33.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g33.io/v1?hash=33"},"apis/acme-g34.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g34.io/v1?hash=34"},"apis/acme-g35.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g35.io/v1?hash=35"},"apis/acme-g36.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g36.io/v1?hash=36"},"apis/acme-g37.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g37.io/v1?hash=37"},"apis/acme-g38.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g38.io/v1?hash=38"},"apis/acme-g39.io/v1":{"serverRelativeURL":"/openapi/v3/apis/acme-g39.io/v1?hash=39"}}}`,
			`{"paths":{"apis/g0.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g0.io/v1?hash=0"},"apis/g1.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g1.io/v1?hash=1"},"apis/g2.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g2.io/v1?hash=2"},"apis/g3.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g3.io/v1?hash=3"},"apis/g4.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g4.io/v1?hash=4"},"apis/g5.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g5.io/v1?hash=5"},"apis/g6.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g6.io/v1?hash=6"},"apis/g7.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g7.io/v1?hash=7"},"apis/g8.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g8.io/v1?hash=8"},"apis/g9.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g9.io/v1?hash=9"},"apis/g10.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g10.io/v1?hash=10"},"apis/g11.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g11.io/v1?hash=11"},"apis/g12.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g12.io/v1?hash=12"},"apis/g13.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g13.io/v1?hash=13"},"apis/g14.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g14.io/v1?hash=14"},"apis/g15.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g15.io/v1?hash=15"},"apis/g16.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g16.io/v1?hash=16"},"apis/g17.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g17.io/v1?hash=17"},"apis/g18.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g18.io/v1?hash=18"},"apis/g19.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g19.io/v1?hash=19"},"apis/g20.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g20.io/v1?hash=20"},"apis/g21.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g21.io/v1?hash=21"},"apis/g22.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g22.io/v1?hash=22"},"apis/g23.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g23.io/v1?hash=23"},"apis/g24.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g24.io/v1?hash=24"},"apis/g25.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g25.io/v1?hash=25"},"apis/g26.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g26.io/v1?hash=26"},"apis/g27.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g27.io/v1?hash=27"},"apis/g28.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g28.io/v1?hash=28"},"apis/g29.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g29.io/v1?hash=29"},"apis/g30.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g30.io/v1?hash=30"},"apis/g31.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g31.io/v1?hash=31"},"apis/g32.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g32.io/v1?hash=32"},"apis/g33.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g33.io/v1?hash=33"},"apis/g34.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g34.io/v1?hash=34"},"apis/g35.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g35.io/v1?hash=35"},"apis/g36.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g36.io/v1?hash=36"},"apis/g37.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g37.io/v1?hash=37"},"apis/g38.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g38.io/v1?hash=38"},"apis/g39.io/v1":{"serverRelativeURL":"/openapi/v3/apis/g39.io/v1?hash=39"}}}`},
		{"v2 document", "/openapi/v2",
			`{"paths":{"/api/v1/pods":{},"/apis/beta-s.io/v1/things":{},"/apis/acme-s.io/v1/things":{}},"definitions":{"io.k8s.api.core.v1.Pod":{"x-kubernetes-group-version-kind":[{"group":"","version":"v1","kind":"Pod"}]},"io.beta-s.v1.Thing":{"x-kubernetes-group-version-kind":[{"group":"beta-s.io","version":"v1","kind":"Thing"}]},"io.acme-s.v1.Thing":{"x-kubernetes-group-version-kind":[{"group":"acme-s.io","version":"v1","kind":"Thing"},1]},"x":1}}`,
			`{"paths":{"/api/v1/pods":{},"/apis/s.io/v1/things":{}},"definitions":{"io.k8s.api.core.v1.Pod":{"x-kubernetes-group-version-kind":[{"group":"","version":"v1","kind":"Pod"}]},"io.s.v1.Thing":{"x-kubernetes-group-version-kind":[{"group":"s.io","version":"v1","kind":"Thing"},1]},"x":1}}`},
		// meta/v1's shared definitions list every group, another tenant's
		// and the platform's CRD groups too: they keep the tenant's.
		{"v2 document, a shared definition", "/openapi/v2",
			`{"definitions":{"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions":{"x-kubernetes-group-version-kind":[{"group":"","version":"v1","kind":"DeleteOptions"},{"group":"beta-s.io","version":"v1","kind":"DeleteOptions"},{"group":"gateway.networking.k8s.io","version":"v1","kind":"DeleteOptions"},{"group":"acme-s.io","version":"v1","kind":"DeleteOptions"}]}}}`,
			`{"definitions":{"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions":{"x-kubernetes-group-version-kind":[{"group":"","version":"v1","kind":"DeleteOptions"},{"group":"s.io","version":"v1","kind":"DeleteOptions"}]}}}`},
		{"a refusal is a Status, not a document", "/openapi/v3/apis/s.io/v1",
			`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"customresourcedefinitions.apiextensions.k8s.io \"things.acme-s.io\" not found","reason":"NotFound","details":{"name":"things.acme-s.io","group":"apiextensions.k8s.io","kind":"customresourcedefinitions"},"code":404}`,
			`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"customresourcedefinitions.apiextensions.k8s.io \"things.s.io\" not found","reason":"NotFound","details":{"name":"things.s.io","group":"apiextensions.k8s.io","kind":"customresourcedefinitions"},"code":404}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := upstreamFor(t, tr, "GET", tc.path, "")
			var out bytes.Buffer
			require.NoError(t, tr.TranslateResponse(u, strings.NewReader(tc.in), &out))
			assert.JSONEq(t, tc.want, out.String())
		})
	}
}
