package localproxy

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// protobufConfigMapList is the protobuf answer of the upstream to a LIST of
// n ConfigMaps of 512 bytes in acme-default, as `make bench`'s list
// workload fills them (a label, one manager).
func protobufConfigMapList(tb testing.TB, n int) []byte {
	tb.Helper()
	created := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	list := &corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, ListMeta: metav1.ListMeta{ResourceVersion: "99"}}
	for i := range n {
		list.Items = append(list.Items, corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%05d", i), Namespace: "acme-default", UID: "0b6c9a55-4b4e-4a53-9a39-2a4d7d2b7f10",
				ResourceVersion: fmt.Sprint(1000 + i), CreationTimestamp: created, Labels: map[string]string{"app": "bench"},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "bench", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &created,
					FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{".":{},"f:payload":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)}}}},
			Data: map[string]string{"payload": strings.Repeat("x", 512)},
		})
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// protobufListUpstream is a TLS (HTTP/2) upstream that answers every
// request with answer in protobuf, and the proxy of tenant acme in front of
// it.
func protobufListUpstream(tb testing.TB, answer []byte) (*httptest.Server, *Proxy) {
	tb.Helper()
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		_, _ = w.Write(answer)
	}))
	up.EnableHTTP2 = true
	up.StartTLS()
	tb.Cleanup(up.Close)
	p, err := New(Config{Upstream: upstreamConfig(up), Tenant: "acme", Token: testToken})
	if err != nil {
		tb.Fatal(err)
	}
	return up, p
}

// upstreamConfig is the client configuration of the upstream up.
func upstreamConfig(up *httptest.Server) *rest.Config {
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: up.Certificate().Raw})
	return &rest.Config{Host: up.URL, BearerToken: "upstream-secret", TLSClientConfig: rest.TLSClientConfig{CAData: caPEM}}
}

// passThrough is a plain reverse proxy to up: the pass-through of `make
// bench`.
func passThrough(up *httptest.Server) http.Handler {
	target, _ := url.Parse(up.URL)
	pass := httputil.NewSingleHostReverseProxy(target)
	pass.Transport = up.Client().Transport
	return pass
}

// protobufListHandlers are `serve`'s proxy and the pass-through in front of
// one upstream that answers with answer.
func protobufListHandlers(tb testing.TB, answer []byte) map[string]http.Handler {
	up, p := protobufListUpstream(tb, answer)
	return map[string]http.Handler{"serve": p, "pass-through": passThrough(up)}
}

// listProtobuf LISTs the ConfigMaps of default (acme-default upstream for
// the pass-through) in protobuf, as client-go asks, through h.
func listProtobuf(tb testing.TB, h http.Handler, name string) *httptest.ResponseRecorder {
	path := "/api/v1/namespaces/default/configmaps"
	if name == "pass-through" {
		path = "/api/v1/namespaces/acme-default/configmaps"
	}
	req := httptest.NewRequest(http.MethodGet, "https://zoo.example"+path, nil)
	req.Header.Set("Accept", clientGoAccept)
	req.Header.Set("Authorization", "Bearer "+testToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("%s: LIST: %d %s", name, rec.Code, rec.Body)
	}
	return rec
}

// BenchmarkListProtobuf10000 is a LIST of 10 000 ConfigMaps in protobuf
// through `serve`'s proxy and through a plain reverse proxy, called in
// process: what the proxy adds to `make bench`'s protobuf LIST.
func BenchmarkListProtobuf10000(b *testing.B) {
	handlers := protobufListHandlers(b, protobufConfigMapList(b, 10000))
	for _, name := range []string{"pass-through", "serve"} {
		b.Run(name, func(b *testing.B) {
			h := handlers[name]
			b.SetBytes(int64(listProtobuf(b, h, name).Body.Len()))
			b.ReportAllocs()
			for b.Loop() {
				listProtobuf(b, h, name)
			}
		})
	}
}

// BenchmarkListProtobuf10000Wire is the same LIST over real connections:
// straight to the upstream (TLS, HTTP/2), through the pass-through (plain
// HTTP/1.1, as `kubectl proxy`) and through `serve` (TLS, HTTP/2). `serve`
// holds the list until its end (its length comes first), so it pays the
// upstream's transfer and then its own, where the pass-through overlaps
// them.
func BenchmarkListProtobuf10000Wire(b *testing.B) {
	up, p := protobufListUpstream(b, protobufConfigMapList(b, 10000))
	srv := NewServer(p, "127.0.0.1:0")
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	pass := httptest.NewServer(passThrough(up))
	b.Cleanup(pass.Close)
	clients := map[string]*rest.Config{"direct": upstreamConfig(up), "serve": srv.ClientConfig(testToken)}
	for _, bc := range []struct{ name, url string }{
		{"direct", up.URL + "/api/v1/namespaces/acme-default/configmaps"},
		{"pass-through", pass.URL + "/api/v1/namespaces/acme-default/configmaps"},
		{"serve", srv.URL() + "/api/v1/namespaces/default/configmaps"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := http.DefaultClient
			if cfg := clients[bc.name]; cfg != nil {
				var err error
				if c, err = rest.HTTPClientFor(cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(benchDo(b, c, http.MethodGet, bc.url, clientGoAccept, nil))
			b.ReportAllocs()
			for b.Loop() {
				benchDo(b, c, http.MethodGet, bc.url, clientGoAccept, nil)
			}
		})
	}
}

// TestListProtobufLarge checks the benchmark's answer through the proxy: a
// list of many megabytes (spilled to the encrypted file, in several chunks)
// arrives whole, every item as the upstream sent it but for its namespace.
func TestListProtobufLarge(t *testing.T) {
	answer := protobufConfigMapList(t, 10000)
	require.Greater(t, len(answer), 4*spillMemory)
	rec := listProtobuf(t, protobufListHandlers(t, answer)["serve"], "serve")
	codec := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	var want, got corev1.ConfigMapList
	_, _, err := codec.Decode(answer, nil, &want)
	require.NoError(t, err)
	_, _, err = codec.Decode(rec.Body.Bytes(), nil, &got)
	require.NoError(t, err)
	require.Len(t, got.Items, len(want.Items))
	for i := range want.Items {
		want.Items[i].Namespace = "default"
	}
	assert.Equal(t, want, got)
}
