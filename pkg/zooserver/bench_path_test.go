package zooserver

import (
	"bytes"
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
)

// pathConfigMap is the ConfigMap the request-path benchmarks' upstream
// answers a GET with.
var pathConfigMap = []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"get-me","namespace":"acme-default",` +
	`"uid":"0b6c9a55-4b4e-4a53-9a39-2a4d7d2b7f10","resourceVersion":"12345","creationTimestamp":"2025-01-01T00:00:00Z",` +
	`"labels":{"app":"bench"}},"data":{"payload":"` + strings.Repeat("x", 256) + `"}}`)

// pathCreate is the ConfigMap the request-path benchmarks create.
var pathCreate = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new","labels":{"app":"bench"}},` +
	`"data":{"payload":"` + strings.Repeat("x", 256) + `"}}`)

// pathCreateProtobuf is pathCreate as client-go sends it by default.
var pathCreateProtobuf = func() []byte {
	var buf bytes.Buffer
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "new", Labels: map[string]string{"app": "bench"}},
		Data:       map[string]string{"payload": strings.Repeat("x", 256)}}
	if err := protobuf.NewSerializer(nil, nil).Encode(cm, &buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}()

// pathUpstream is a TLS (HTTP/2) upstream answering every GET with
// pathConfigMap and echoing every POST's body, in its media type, with 201.
func pathUpstream(b *testing.B) (*httptest.Server, *rest.Config) {
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(body)
			return
		}
		_, _ = w.Write(pathConfigMap)
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	b.Cleanup(ts.Close)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	return ts, &rest.Config{Host: ts.URL, BearerToken: "upstream-secret", TLSClientConfig: rest.TLSClientConfig{CAData: caPEM}}
}

// benchServer is a Server of tenant acme (its record synced) in front of
// upstream, whose TokenReviews name every token zoo:acme:alice: the handler
// chain of ServeHTTP with a token caller, audit log included.
func benchServer(b *testing.B, upstream *rest.Config) *Server {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{tenantapi.TenantGVR: tenantapi.TenantKind + "List"}, tenantRecord("acme", "admin"))
	reviews := fake.NewClientset()
	reviews.PrependReactor("create", "tokenreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		return true, &authenticationv1.TokenReview{Status: authenticationv1.TokenReviewStatus{Authenticated: true,
			User: authenticationv1.UserInfo{Username: "zoo:acme:alice", Groups: []string{"zoo:tenant:acme", "system:authenticated"}}}}, nil
	})
	a, err := newAuthn(fake.NewClientset(), reviews, "")
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{cfg: Config{Upstream: upstream}, tenants: newTenantIndex(client), audit: &auditLog{w: io.Discard}, authn: a}
	s.sleeper = &idleSleeper{records: s.tenants.informer.GetStore().List, now: time.Now, seen: map[string]time.Time{}}
	s.proxies = newProxies(0, s.tenantUpstream)
	s.proxies.isTenant = s.tenants.exists
	s.metrics = newMetrics(s.proxies.len)
	s.fair = newFairShare(prometheus.NewRegistry())
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go s.tenants.run(ctx)
	for !s.tenants.synced() {
		time.Sleep(time.Millisecond)
	}
	return s
}

// pathHandlers are the three handlers of the request path benchmarks: the
// server, `serve`'s proxy, and a plain reverse proxy (the pass-through of
// `make bench`), each in front of the same upstream, called in process.
func pathHandlers(b *testing.B) map[string]http.Handler {
	up, cfg := pathUpstream(b)
	p, err := localproxy.New(localproxy.Config{Upstream: cfg, NewPolicyClient: tenantctl.PolicyClientFor, Tenant: "acme", Token: "local-token-of-the-bench"})
	if err != nil {
		b.Fatal(err)
	}
	target, _ := url.Parse(up.URL)
	pass := httputil.NewSingleHostReverseProxy(target)
	pass.Transport = up.Client().Transport
	return map[string]http.Handler{"server": benchServer(b, cfg), "serve": p, "pass-through": pass}
}

// benchPath runs one request through each handler: the tenant's path for
// the server and `serve`, the upstream one for the pass-through.
func benchPath(b *testing.B, method, path, upstreamPath, mediaType string, body []byte, want int) {
	handlers := pathHandlers(b)
	for _, name := range []string{"pass-through", "serve", "server"} {
		b.Run(name, func(b *testing.B) {
			h, target := handlers[name], path
			if name == "pass-through" {
				target = upstreamPath
			}
			do := func() {
				req := httptest.NewRequest(method, "https://zoo.example"+target, bytes.NewReader(body))
				req.Header.Set("Accept", mediaType)
				req.Header.Set("Content-Type", mediaType)
				req.Header.Set("Authorization", "Bearer local-token-of-the-bench")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != want {
					b.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
				}
			}
			do() // the first request makes the proxy and its connection
			b.ReportAllocs()
			for b.Loop() {
				do()
			}
		})
	}
}

// BenchmarkRequestPathGet is one GET of a ConfigMap through the server's
// handler chain, `serve`'s proxy and a plain reverse proxy.
func BenchmarkRequestPathGet(b *testing.B) {
	benchPath(b, http.MethodGet, "/api/v1/namespaces/default/configmaps/get-me",
		"/api/v1/namespaces/acme-default/configmaps/get-me", runtime.ContentTypeJSON, nil, http.StatusOK)
}

// BenchmarkRequestPathCreate is one CREATE of a ConfigMap through the
// server's handler chain, `serve`'s proxy and a plain reverse proxy.
func BenchmarkRequestPathCreate(b *testing.B) {
	benchPath(b, http.MethodPost, "/api/v1/namespaces/default/configmaps",
		"/api/v1/namespaces/acme-default/configmaps", runtime.ContentTypeJSON, pathCreate, http.StatusCreated)
}

// BenchmarkRequestPathCreateProtobuf is BenchmarkRequestPathCreate in
// protobuf, as client-go sends a create by default.
func BenchmarkRequestPathCreateProtobuf(b *testing.B) {
	benchPath(b, http.MethodPost, "/api/v1/namespaces/default/configmaps",
		"/api/v1/namespaces/acme-default/configmaps", runtime.ContentTypeProtobuf, pathCreateProtobuf, http.StatusCreated)
}
