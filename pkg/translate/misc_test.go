package translate

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestKindTable(t *testing.T) {
	for _, r := range Kinds() {
		t.Run(r.Resource.String(), func(t *testing.T) {
			assert.NotEmpty(t, r.Kind)
			assert.NotEqual(t, "unknown", r.Treatment.String())
			got, ok := LookupKind(r.Resource)
			require.True(t, ok)
			assert.Same(t, r, got)
			if r.Resource.Group != "events.k8s.io" {
				byKind, ok := LookupKindByKind(schema.GroupKind{Group: r.Resource.Group, Kind: r.Kind})
				require.True(t, ok)
				assert.Same(t, r, byKind)
			}
			assert.Len(t, append(r.Fields(), r.RefusedFields()...), len(r.Refs), "every reference is either translated or refused")
			fields := map[string]bool{}
			for _, ref := range r.Refs {
				assert.Contains(t, Targets(), ref.Target, "reference %q declares no target", ref.Field)
				assert.False(t, fields[ref.Field], "two references named %q", ref.Field)
				fields[ref.Field] = true
				// The raw answer path decodes only the top-level fields
				// that references start with (topKeys): a Field must start
				// with one.
				first, _, _ := strings.Cut(ref.Field, ".")
				assert.Regexp(t, `^[a-zA-Z]+(\[\])?$`, first, "reference %q must start with a top-level field", ref.Field)
			}
			if r.Treatment == Forbidden || r.Treatment == ReadOnly {
				assert.NotEmpty(t, r.Reason, "a refusal names its reason")
			}
		})
	}
	assert.Equal(t, "unknown", Treatment(0).String())
	tr := newTestTranslator(t)
	assert.Equal(t, "acme", tr.Tenant().String())
	// A group of the built-in domains that Kubernetes does not serve is a
	// tenant's own (sample-controller's, the Gateway API's); a platform
	// API in a shared group is read in the tenant's namespaces only.
	assert.Equal(t, TenantGroup, tr.Rule(gr("gateway.networking.k8s.io", "gatewayclasses"), false).Treatment)
	assert.Equal(t, Namespaced, tr.Rule(gr("samplecontroller.k8s.io", "foos"), true).Treatment)
	assert.False(t, tr.Rule(gr("samplecontroller.k8s.io", "foos"), true).WritesRefused)
	assert.Equal(t, ReadOnly, tr.Rule(gr("metrics.k8s.io", "nodes"), false).Treatment)
	podMetrics := tr.Rule(gr("metrics.k8s.io", "pods"), true)
	assert.Equal(t, Namespaced, podMetrics.Treatment, "a platform API in a shared group: read in the tenant's namespaces")
	assert.True(t, podMetrics.WritesRefused, "and written by none")
	assert.False(t, tr.Rule(gr("stable.example.com", "crontabs"), true).WritesRefused, "a tenant's own CRD")
	for _, verb := range []string{"create", "update", "patch", "delete", "deletecollection"} {
		err := tr.checkVerb(podMetrics, RequestInfo{Verb: verb, Name: "r"})
		require.Error(t, err, verb)
		assert.Contains(t, ToStatus(err).Message, "not classified for tenants in the kinds table")
	}
	require.NoError(t, tr.checkVerb(podMetrics, RequestInfo{Verb: "list"}))
	assert.Equal(t, TenantGroup, tr.Rule(gr("stable.example.com", "clusterthings"), false).Treatment)
	assert.Equal(t, Namespaced, tr.Rule(gr("stable.example.com", "crontabs"), false).Treatment)
}

func TestNames(t *testing.T) {
	a := MustTenant("acme")
	cases := []struct {
		name   string
		got    func() (string, error)
		want   string
		failed bool
	}{
		{"namespace", func() (string, error) { return a.UpstreamNamespace("default") }, "acme-default", false},
		{"empty namespace", func() (string, error) { return a.UpstreamNamespace("") }, "", false},
		{"namespace of 58 fits", func() (string, error) { return a.UpstreamNamespace(strings.Repeat("x", 58)) }, "acme-" + strings.Repeat("x", 58), false},
		{"namespace of 59 is too long", func() (string, error) { return a.UpstreamNamespace(strings.Repeat("x", 59)) }, "", true},
		{"cluster name too long", func() (string, error) {
			return a.UpstreamClusterName("ClusterRole", rbacGroup, strings.Repeat("x", 250))
		}, "", true},
		{"builtin group", func() (string, error) { return a.UpstreamAPIGroup("apps") }, "apps", false},
		{"a pinned k8s.io group", func() (string, error) { return a.UpstreamAPIGroup("networking.k8s.io") }, "networking.k8s.io", false},
		{"a platform's k8s.io group", func() (string, error) { return a.UpstreamAPIGroup("metrics.k8s.io") }, "metrics.k8s.io", false},
		{"a tenant's k8s.io group", func() (string, error) { return a.UpstreamAPIGroup("gateway.networking.k8s.io") }, "acme-gateway.networking.k8s-io", false},
		{"a tenant's kubernetes.io group", func() (string, error) { return a.UpstreamAPIGroup("x.kubernetes.io") }, "acme-x.kubernetes-io", false},
		{"a group ending as the upstream form", func() (string, error) { return a.UpstreamAPIGroup("foo.k8s-io") }, "", true},
		{"a tenant's k8s.io CRD", func() (string, error) { return a.UpstreamCRDName("foos.samplecontroller.k8s.io") }, "foos.acme-samplecontroller.k8s-io", false},
		{"a CRD in a pinned group", func() (string, error) { return a.UpstreamCRDName("foos.apps.k8s.io") }, "foos.acme-apps.k8s-io", false},
		{"a CRD in a shared group", func() (string, error) { return a.UpstreamCRDName("foos.networking.k8s.io") }, "", true},
		{"tenant group", func() (string, error) { return a.UpstreamAPIGroup("stable.example.com") }, "acme-stable.example.com", false},
		{"apiVersion core", func() (string, error) { return a.UpstreamAPIVersion("v1") }, "v1", false},
		{"apiVersion too long", func() (string, error) { return a.UpstreamAPIVersion(strings.Repeat("x.", 125) + "io/v1") }, "", true},
		{"CRD name", func() (string, error) { return a.UpstreamCRDName("crontabs.stable.example.com") }, "crontabs.acme-stable.example.com", false},
		{"CRD name without group", func() (string, error) { return a.UpstreamCRDName("crontabs") }, "", true},
		{"CRD name too long", func() (string, error) { return a.UpstreamCRDName("x." + strings.Repeat("y", 250) + ".io") }, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if tc.failed {
				require.Error(t, err)
				st := ToStatus(err)
				assert.Contains(t, []int32{403, 422}, st.Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, ok := a.TenantAPIVersion("beta-s.io/v1")
	assert.False(t, ok)
	_, ok = a.TenantCRDName("a.apps")
	assert.False(t, ok)
	_, ok = a.TenantCRDName("a.beta-b.io")
	assert.False(t, ok)
	assert.Equal(t, "", a.UpstreamGenerateName(""))
	st := ToStatus(func() error { _, err := a.UpstreamNamespace(strings.Repeat("x", 60)); return err }())
	assert.Contains(t, st.Message, `tenant "acme"`)
	assert.Contains(t, st.Message, "no more than 58 characters")
	assert.Contains(t, st.Message, strings.Repeat("x", 60)+`"`)
	assert.NotContains(t, st.Message, "acme-xxx")
}

func TestToStatus(t *testing.T) {
	assert.Equal(t, int32(200), ToStatus(nil).Code)
	assert.Equal(t, int32(500), ToStatus(errors.New("boom")).Code)
	wrapped := &Error{Code: 400, Message: "m", Err: errors.New("inner")}
	assert.Equal(t, "m: inner", wrapped.Error())
	assert.Equal(t, "inner", errors.Unwrap(wrapped).Error())
	assert.Equal(t, int32(403), ToStatus(forbidden(schema.GroupResource{}, "", "no")).Code)
}

func TestTranslateDocument(t *testing.T) {
	tr := newTestTranslator(t)
	rule, _ := LookupKind(grNamespace)
	cases := []struct{ name, in, want string }{
		{"table", `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name","format":"name"},1],"rows":[{"cells":["acme-a"],"object":{"metadata":{"name":"acme-a"}}},{"cells":["beta-a"],"object":{"metadata":{"name":"beta-a"}}},{"cells":[]},2]}`,
			`{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name","format":"name"},1],"rows":[{"cells":["a"],"object":{"metadata":{"name":"a"}}},{"cells":[]}]}`},
		{"list", `{"kind":"NamespaceList","apiVersion":"v1","items":[{"metadata":{"name":"acme-a"}},{"metadata":{"name":"beta-a"}},3]}`,
			`{"kind":"NamespaceList","apiVersion":"v1","items":[{"metadata":{"name":"a"}}]}`},
		{"status", `{"kind":"Status","message":"namespaces \"acme-a\" not found","details":{"name":"acme-a","kind":"namespaces"}}`,
			`{"kind":"Status","message":"namespaces \"a\" not found","details":{"name":"a","kind":"namespaces"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := jsonObj(t, tc.in)
			require.NoError(t, tr.TranslateDocument(rule, doc))
			jsonEq(t, tc.want, doc)
		})
	}
	ev, err := tr.TranslateEvent(rule, WatchEvent{Type: "ADDED", Object: []byte(`{"metadata":{"name":"acme-x"}}`)})
	require.NoError(t, err)
	jsonEq(t, `{"metadata":{"name":"x"}}`, ev)
	_, err = tr.TranslateEvent(rule, WatchEvent{Type: "ADDED", Object: []byte(`{"metadata":{"name":"beta-x"}}`)})
	assert.True(t, IsNotTenants(err))
}

func TestWatchTable(t *testing.T) {
	tr := newTestTranslator(t)
	rule, _ := LookupKind(grNamespace)
	in := `{"type":"ADDED","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name","format":"name"}],"rows":[{"cells":["acme-a"],"object":{"metadata":{"name":"acme-a"}}}]}}` + "\n" +
		`{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"acme-b"},"status":{"phase":"Active"}}}`
	var out bytes.Buffer
	require.NoError(t, tr.TranslateWatch(rule, strings.NewReader(in), &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	assert.JSONEq(t, `{"type":"ADDED","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name","format":"name"}],"rows":[{"cells":["a"],"object":{"metadata":{"name":"a"}}}]}}`, lines[0])
	assert.JSONEq(t, `{"type":"ADDED","object":{"kind":"Namespace","metadata":{"name":"b"},"status":{"phase":"Active"}}}`, lines[1])
	err := tr.TranslateWatch(rule, strings.NewReader(`{"type":"ADDED","object":{"metadata":{"name":{}}}}`), &out)
	require.NoError(t, err, "a malformed name is not the tenant's and is dropped")
}

func TestListStreamingShapes(t *testing.T) {
	tr := newTestTranslator(t)
	rule, _ := LookupKind(grNamespace)
	cases := []struct {
		name, in, want string
		code           int32
	}{
		{"fields after items", `{"kind":"NamespaceList","items":[{"metadata":{"name":"acme-a"}}],"metadata":{"continue":"x"}}`,
			`{"kind":"NamespaceList","items":[{"metadata":{"name":"a"}}],"metadata":{"continue":"x"}}`, 0},
		{"two arrays", `{"kind":"NamespaceList","items":[],"items":[{"metadata":{"name":"acme-a"}}]}`,
			`{"kind":"NamespaceList","items":[{"metadata":{"name":"a"}}]}`, 0},
		{"truncated", `{"kind":"NamespaceList","items":[{"metadata":{"name":"acme-a"}}`, "", 400},
		{"bad key", `{"kind":"NamespaceList","items":[],1:2}`, "", 400},
		{"bad tail value", `{"kind":"NamespaceList","items":[],"x":}`, "", 400},
		{"bad head value", `{"kind":}`, "", 400},
		{"empty", ``, "", 400},
		{"items not objects", `{"kind":"NamespaceList","items":[1]}`, "", 400},
		{"bad table row", `{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[1]}`, "", 400},
		{"unterminated list", `{"kind":"NamespaceList","items":[]`, "", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := tr.TranslateList(rule, strings.NewReader(tc.in), &out)
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, out.String())
		})
	}
	err := tr.TranslateList(rule, strings.NewReader(`{"kind":"NamespaceList","items":[{"metadata":{"name":"acme-a"}}]}`), failWriter{})
	require.Error(t, err)
	err = tr.TranslateResponse(&UpstreamRequest{Response: ResponseRaw}, failReader{}, &bytes.Buffer{})
	require.Error(t, err)
	err = tr.TranslateResponse(&UpstreamRequest{Response: ResponseDiscovery}, failReader{}, &bytes.Buffer{})
	require.Error(t, err)
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("reset") }

func TestMoreRequests(t *testing.T) {
	tr := New(MustTenant("acme"), Options{})
	cases := []struct {
		name, method, path, ct, body, want string
		code                               int32
	}{
		{name: "json patch of subjects value", method: "PATCH", path: "/apis/rbac.authorization.k8s.io/v1/namespaces/d/rolebindings/r", ct: MediaJSONPatch,
			body: `[{"op":"add","path":"/subjects/0","value":{"kind":"Group","name":"ops"}},{"op":"test","path":"/metadata/namespace","value":"d"},{"op":"copy","from":"/a","path":"/b"}]`,
			want: `[{"op":"add","path":"/subjects/0","value":{"kind":"Group","name":"zoo:acme:ops"}},{"op":"test","path":"/metadata/namespace","value":"acme-d"},{"op":"copy","from":"/a","path":"/b"}]`},
		{name: "json patch whole document", method: "PATCH", path: "/api/v1/namespaces/d/configmaps/c", ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"","value":{"metadata":{"namespace":"d"}}},{"op":"replace","path":"/data/x","value":"1"}]`,
			want: `[{"op":"replace","path":"","value":{"metadata":{"namespace":"acme-d"}}},{"op":"replace","path":"/data/x","value":"1"}]`},
		{name: "merge patch with ownership label", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaMergePatch,
			body: `{"metadata":{"labels":{"zoo.kubectl-zoo.io/tenant":"x"}}}`, code: 403},
		{name: "merge patch malformed", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaMergePatch, body: `{`, code: 400},
		{name: "json patch malformed", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch, body: `[`, code: 400},
		{name: "json patch forbidden value", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch,
			body: `[{"op":"add","path":"/metadata/labels","value":{"zoo.kubectl-zoo.io/tenant":"beta"}}]`, code: 403},
		{name: "create shared without lookup is the tenant's", method: "POST", path: "/apis/storage.k8s.io/v1/storageclasses", body: `{"metadata":{"name":"standard"}}`,
			want: `{"metadata":{"name":"acme-standard","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{name: "update shared without lookup is the tenant's", method: "PUT", path: "/apis/storage.k8s.io/v1/storageclasses/x", body: `{"metadata":{"name":"x"}}`,
			want: `{"metadata":{"name":"acme-x","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{name: "scale subresource", method: "PUT", path: "/apis/apps/v1/namespaces/d/deployments/w/scale", body: `{"kind":"Scale","metadata":{"name":"w","namespace":"d"}}`,
			want: `{"kind":"Scale","metadata":{"name":"w","namespace":"acme-d"}}`},
		{name: "token request", method: "POST", path: "/api/v1/namespaces/d/serviceaccounts/s/token", body: `{"kind":"TokenRequest","metadata":{"namespace":"d"}}`,
			want: `{"kind":"TokenRequest","metadata":{"namespace":"acme-d"}}`},
		{name: "create a review", method: "POST", path: "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", body: `{"spec":{"namespace":"d"}}`,
			want: `{"spec":{"namespace":"acme-d"}}`},
		{name: "bad group", method: "GET", path: "/apis/" + strings.Repeat("x.", 125) + "io/v1/things", code: 422},
		{name: "bad group in discovery", method: "GET", path: "/apis/" + strings.Repeat("x.", 125) + "io", code: 422},
		{name: "bad group in openapi", method: "GET", path: "/openapi/v3/apis/" + strings.Repeat("x.", 125) + "io/v1", code: 422},
		{name: "name too long", method: "GET", path: "/apis/rbac.authorization.k8s.io/v1/clusterroles/" + strings.Repeat("x", 250), code: 422},
		{name: "bad field selector value", method: "GET", path: "/api/v1/namespaces/d/events", code: 0, want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.ct != "" {
				h.Set("Content-Type", tc.ct)
			}
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: h, Body: []byte(tc.body)})
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code, ToStatus(err).Message)
				return
			}
			require.NoError(t, err)
			if tc.want != "" {
				assert.JSONEq(t, tc.want, string(u.Body))
			}
		})
	}
}

func TestQueryEdgeCases(t *testing.T) {
	tr := newTestTranslator(t)
	ns, _ := LookupKind(grNamespace)
	ev, _ := LookupKind(gr("", "events"))
	_, _, err := tr.fieldSelectorQuery(ev, "involvedObject.namespace="+strings.Repeat("x", 60), nil)
	assert.Equal(t, int32(422), ToStatus(err).Code)
	got, _, err := tr.fieldSelectorQuery(ev, "involvedObject.namespace=d,type!=Normal", nil)
	require.NoError(t, err)
	assert.Equal(t, "involvedObject.namespace=acme-d,type!=Normal", got)
	_, err = tr.labelSelectorQuery(ns, "kubernetes.io/metadata.name="+strings.Repeat("x", 60), false)
	assert.Equal(t, int32(422), ToStatus(err).Code)
}

// TestTableRowsKeepTheirObjects: a Table asked for with includeObject=None
// is asked of the upstream with the rows' metadata, through which the
// rows are translated.
func TestTableRowsKeepTheirObjects(t *testing.T) {
	tr := newTestTranslator(t)
	for _, in := range []string{"None", "Metadata", "Object", ""} {
		t.Run(in, func(t *testing.T) {
			q := url.Values{}
			if in != "" {
				q.Set("includeObject", in)
			}
			u, err := tr.TranslateRequest(Request{Method: "GET", Path: "/api/v1/namespaces", Query: q,
				Header: http.Header{"Accept": {"application/json;as=Table;v=v1;g=meta.k8s.io"}}})
			require.NoError(t, err)
			want := in
			if in == "None" {
				want = "Metadata"
			}
			assert.Equal(t, want, u.Query.Get("includeObject"))
		})
	}
}

func TestReservedTenantNamesSorted(t *testing.T) {
	names := ReservedTenantNames()
	require.NotEmpty(t, names)
	for _, n := range names {
		assert.Error(t, ValidateTenantName(n))
	}
	for _, bad := range []string{"", "Acme", "a-b", strings.Repeat("a", 13)} {
		assert.Error(t, ValidateTenantName(bad))
	}
	_, _, ok := SplitUpstreamName("nodash")
	assert.False(t, ok)
	assert.Panics(t, func() { MustTenant("A") })
}

func TestParseMediaTypeAgreesWithMime(t *testing.T) {
	for _, v := range []string{
		"application/json", "application/vnd.kubernetes.protobuf", "*/*", "application/json-patch+json",
		"application/apply-patch+yaml", "Application/JSON", "application/json; charset=utf-8",
		"application/json;as=Table;v=v1;g=meta.k8s.io", " application/json", "application/", "/json", "application",
		"", "a/b/c", "text/plain", "application/x_y",
	} {
		t.Run(v, func(t *testing.T) {
			wantType, wantParams, wantErr := mime.ParseMediaType(v)
			gotType, gotParams, gotErr := ParseMediaType(v)
			assert.Equal(t, wantErr == nil, gotErr == nil)
			if wantErr == nil {
				assert.Equal(t, wantType, gotType)
				assert.Equal(t, len(wantParams), len(gotParams))
				for k, want := range wantParams {
					assert.Equal(t, want, gotParams[k])
				}
			}
		})
	}
}
