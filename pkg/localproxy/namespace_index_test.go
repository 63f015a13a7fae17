package localproxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// indexedNamespace is an upstream namespace labeled for tenant.
func indexedNamespace(name, tenant, rv string, labels map[string]string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv, Labels: map[string]string{},
		CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour))}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	if tenant != "" {
		ns.Labels[translate.TenantLabel] = tenant
	}
	for k, v := range labels {
		ns.Labels[k] = v
	}
	return ns
}

// TestNamespaceStore: the reflector's calls keep the index by tenant, a
// relabeled namespace moves, and the version follows what was applied.
func TestNamespaceStore(t *testing.T) {
	x := newNamespaceIndex()
	s := (*namespaceStore)(x)
	ctx := t.Context()
	_, _, ok := x.Namespaces(shortContext(ctx), "acme")
	assert.False(t, ok, "an index that never listed cannot answer")

	require.NoError(t, s.Replace([]any{
		indexedNamespace("acme-default", "acme", "5", nil),
		indexedNamespace("beta-default", "beta", "6", nil),
		indexedNamespace("kube-system", "", "2", nil),
	}, "10"))
	names := func(tenant string) []string {
		nss, _, ok := x.Namespaces(ctx, tenant)
		require.True(t, ok)
		var out []string
		for _, ns := range nss {
			out = append(out, ns.Name)
		}
		return out
	}
	assert.Equal(t, []string{"acme-default"}, names("acme"))
	require.NoError(t, s.Add(indexedNamespace("acme-b", "acme", "11", nil)))
	require.NoError(t, s.Add(indexedNamespace("acme-a", "acme", "12", nil)))
	assert.Equal(t, []string{"acme-a", "acme-b", "acme-default"}, names("acme"), "sorted by name")
	require.NoError(t, s.Update(indexedNamespace("acme-a", "beta", "13", nil)))
	assert.Equal(t, []string{"acme-b", "acme-default"}, names("acme"), "relabeled away")
	assert.Equal(t, []string{"acme-a", "beta-default"}, names("beta"))
	require.NoError(t, s.Delete(indexedNamespace("acme-b", "acme", "14", nil)))
	s.UpdateResourceVersion("14")
	nss, rv, ok := x.Namespaces(ctx, "acme")
	require.True(t, ok)
	assert.Len(t, nss, 1)
	assert.Equal(t, "14", rv)
}

// TestNamespaceIndexReadsItsWrites: after a noted write, answers wait for
// the watch to reach it, and give up (so the caller asks the upstream)
// when the context ends first.
func TestNamespaceIndexReadsItsWrites(t *testing.T) {
	x := newNamespaceIndex()
	s := (*namespaceStore)(x)
	require.NoError(t, s.Replace([]any{indexedNamespace("acme-default", "acme", "5", nil)}, "10"))
	x.NoteWrite("acme", "20")
	_, _, ok := x.Namespaces(shortContext(t.Context()), "beta")
	assert.True(t, ok, "another tenant's write holds no answer up")
	_, _, ok = x.Namespaces(shortContext(t.Context()), "acme")
	assert.False(t, ok, "the watch has not reached the write")

	done := make(chan []*corev1.Namespace)
	go func() {
		nss, _, ok := x.Namespaces(t.Context(), "acme")
		assert.True(t, ok)
		done <- nss
	}()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, s.Add(indexedNamespace("acme-new", "acme", "20", nil)))
	s.UpdateResourceVersion("20")
	select {
	case nss := <-done:
		require.Len(t, nss, 2, "the answer includes the write it waited for")
	case <-time.After(5 * time.Second):
		t.Fatal("the answer did not follow the watch")
	}
	x.NoteWrite("acme", "not-a-number")
	_, _, ok = x.Namespaces(t.Context(), "acme")
	assert.True(t, ok, "a version that is no number is ignored")
}

func shortContext(ctx context.Context) context.Context {
	ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	go func() { <-ctx.Done(); cancel() }()
	return ctx
}

// TestNamespaceListFromIndex: a tenant's namespace list is answered from the
// index after the upstream authorized it with a one-name list, in the shape
// the client asked for, with the upstream's label selection; what the
// index cannot answer goes upstream as before.
func TestNamespaceListFromIndex(t *testing.T) {
	var (
		mu    sync.Mutex
		asked []string // upstream lists of namespaces, by their query
	)
	handler := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		admin := r.Header.Get("Impersonate-User") == "zoo:acme:admin"
		if r.Method == http.MethodPost { // the access review of the list, as the tenant identity
			var review authorizationv1.SelfSubjectAccessReview
			assert.NoError(t, json.NewDecoder(r.Body).Decode(&review))
			ra := review.Spec.ResourceAttributes
			assert.Equal(t, "list", ra.Verb)
			assert.Equal(t, "namespaces", ra.Resource)
			assert.Empty(t, ra.Name)
			assert.Contains(t, ra.LabelSelector.RawSelector, "zoo.kubectl-zoo.io/tenant=acme", "the list's own selector")
			review.Status.Allowed = admin
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(&review)
			return
		}
		if !admin {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,`+
				`"message":"namespaces is forbidden: User \"zoo:acme:dev\" cannot list resource \"namespaces\""}`)
			return
		}
		_, _ = io.WriteString(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"99"},"items":[]}`)
	}
	ts := httptest.NewServer(http.HandlerFunc(handler))
	t.Cleanup(ts.Close)
	x := newNamespaceIndex()
	require.NoError(t, (*namespaceStore)(x).Replace([]any{
		indexedNamespace("acme-default", "acme", "5", nil),
		indexedNamespace("acme-team", "acme", "6", map[string]string{"team": "x"}),
		indexedNamespace("acme-sneaky", "beta", "7", nil), // acme's prefix, beta's label
		indexedNamespace("beta-default", "beta", "8", nil),
		indexedNamespace("stray", "acme", "9", nil), // acme's label, no prefix
	}, "10"))
	proxyFor := func(user string) *Proxy {
		p, err := New(Config{Upstream: &rest.Config{Host: ts.URL}, Tenant: "acme", User: user, Token: testToken, Namespaces: x})
		require.NoError(t, err)
		return p
	}
	admin, dev := proxyFor(""), proxyFor("dev")
	probe := "POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews?"
	list := func(q string) string { return "GET /api/v1/namespaces?" + q }
	table := map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}

	for _, tc := range []struct {
		name   string
		p      *Proxy
		query  string
		header map[string]string
		code   int
		want   []string // names in the answer (items or rows)
		asked  []string // the upstream requests: the access review, the list itself
	}{
		{"all", admin, "", nil, 200, []string{"default", "team"}, []string{probe}},
		{"label selector", admin, "?labelSelector=team%3Dx", nil, 200, []string{"team"}, []string{probe}},
		{"set-based selector", admin, "?labelSelector=team+notin+(x)", nil, 200, []string{"default"}, []string{probe}},
		{"a Table", admin, "", table, 200, []string{"default", "team"}, []string{probe}},
		{"limit above the count", admin, "?limit=500", nil, 200, []string{"default", "team"}, []string{probe}},
		{"a limit that is no number", admin, "?limit=x", nil, 200, nil, []string{list("labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme&limit=x")}},
		{"an empty limit", admin, "?limit=", nil, 200, nil, []string{list("labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme&limit=")}},
		{"a timeout", admin, "?timeoutSeconds=abc", nil, 200, nil, []string{list("labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme&timeoutSeconds=abc")}},
		{"any resourceVersion", admin, "?resourceVersion=0", nil, 200, []string{"default", "team"}, []string{probe}},
		{"refused upstream: the upstream refuses the list itself", dev, "", nil, 403, nil,
			[]string{probe, list("labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme")}},
		{"a page smaller than the list", admin, "?limit=1", nil, 200, nil, []string{list("labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme&limit=1")}},
		{"a field selector", admin, "?fieldSelector=status.phase%3DActive", nil, 200, nil,
			[]string{list("fieldSelector=status.phase%3DActive&labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme")}},
		{"an exact resourceVersion", admin, "?resourceVersion=5&resourceVersionMatch=Exact", nil, 200, nil,
			[]string{list("labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme&resourceVersion=5&resourceVersionMatch=Exact")}},
		{"partial metadata", admin, "", map[string]string{"Accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}, 200, nil,
			[]string{list("labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			asked = nil
			mu.Unlock()
			rec := request(tc.p, "GET", "/api/v1/namespaces"+tc.query, tc.header, "")
			require.Equal(t, tc.code, rec.Code, rec.Body.String())
			mu.Lock()
			assert.Equal(t, tc.asked, asked, "what went upstream")
			mu.Unlock()
			if tc.code != 200 {
				assert.Contains(t, rec.Body.String(), `"reason":"Forbidden"`)
				assert.NotContains(t, rec.Body.String(), "team")
				return
			}
			if tc.want == nil { // answered by the (fake) upstream
				return
			}
			var doc struct {
				Kind     string `json:"kind"`
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
				Items []struct {
					Metadata metav1.ObjectMeta `json:"metadata"`
				} `json:"items"`
				Rows []struct {
					Cells  []any `json:"cells"`
					Object struct {
						Kind     string            `json:"kind"`
						Metadata metav1.ObjectMeta `json:"metadata"`
					} `json:"object"`
				} `json:"rows"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc), rec.Body.String())
			assert.Equal(t, "10", doc.Metadata.ResourceVersion, "the index's version")
			var got []string
			for _, it := range doc.Items {
				got = append(got, it.Metadata.Name)
			}
			for _, row := range doc.Rows {
				got = append(got, row.Cells[0].(string))
				assert.Equal(t, "Active", row.Cells[1])
				assert.Equal(t, "60m", row.Cells[2])
				assert.Equal(t, "PartialObjectMetadata", row.Object.Kind)
				assert.Equal(t, row.Cells[0], row.Object.Metadata.Name, "the row's object is translated too")
			}
			assert.Equal(t, tc.want, got)
			if tc.header != nil {
				assert.Equal(t, "Table", doc.Kind)
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			} else {
				assert.Equal(t, "NamespaceList", doc.Kind)
			}
			assert.False(t, strings.Contains(rec.Body.String(), "acme-"), "no upstream name: %s", rec.Body.String())
		})
	}
}

// TestNamespaceIndexStepsAsideWhenItsWatchFails: an index whose watch the
// upstream refuses answers nothing (the proxy then asks the upstream), at
// once rather than after waiting, and answers again once a list is in.
func TestNamespaceIndexStepsAsideWhenItsWatchFails(t *testing.T) {
	var mu sync.Mutex
	refuse := true
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		mu.Lock()
		refusing := refuse
		mu.Unlock()
		switch {
		case r.URL.Query().Get("watch") == "true" && refusing:
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`)
		case r.URL.Query().Get("watch") == "true":
			<-r.Context().Done() // a quiet watch
		default:
			_, _ = io.WriteString(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`+
				`{"metadata":{"name":"acme-default","resourceVersion":"5","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}]}`)
		}
	}))
	t.Cleanup(ts.Close)
	x := newNamespaceIndex()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: ts.URL})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	x.run(ctx, cs, translate.TenantLabel)
	require.Eventually(t, func() bool {
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.rv == 7 && !x.synced // listed, then the watch was refused
	}, 10*time.Second, 5*time.Millisecond)
	start := time.Now()
	_, _, ok := x.Namespaces(t.Context(), "acme")
	assert.False(t, ok, "an index whose watch fails answers")
	assert.Less(t, time.Since(start), writeWait, "it made the caller wait")
	mu.Lock()
	refuse = false
	mu.Unlock()
	require.Eventually(t, func() bool { _, _, ok := x.Namespaces(t.Context(), "acme"); return ok }, 30*time.Second, 20*time.Millisecond,
		"the index never answered again after its watch recovered")
}
