package localproxy

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// benchConfigMap is a 256-byte ConfigMap as the upstream stores it.
func benchConfigMap(name string) string {
	return fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":%q,"namespace":"acme-default","uid":"0b6c9a55-4b4e-4a53-9a39-2a4d7d2b7f10","resourceVersion":"12345","creationTimestamp":"2025-01-01T00:00:00Z","labels":{"app":"bench"},"managedFields":[{"manager":"bench","operation":"Update","apiVersion":"v1","time":"2025-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:payload":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]},"data":{"payload":%q}}`,
		name, strings.Repeat("x", 256))
}

// benchUpstream is a TLS (HTTP/2) fake API server with canned answers.
func benchUpstream(b *testing.B, listItems int) *httptest.Server {
	one := []byte(benchConfigMap("get-me"))
	var list bytes.Buffer
	list.WriteString(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"99"},"items":[`)
	for i := range listItems {
		if i > 0 {
			list.WriteByte(',')
		}
		list.WriteString(benchConfigMap(fmt.Sprintf("cm-%05d", i)))
	}
	list.WriteString("]}")
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost:
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(one)
		case strings.HasSuffix(r.URL.Path, "/configmaps"):
			_, _ = w.Write(list.Bytes())
		default:
			_, _ = w.Write(one)
		}
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	b.Cleanup(ts.Close)
	return ts
}

// benchProxy serves a proxy for tenant acme in front of up over HTTPS and
// returns a client of it.
func benchProxy(b *testing.B, up *httptest.Server) (*http.Client, string) {
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: up.Certificate().Raw})
	p, err := New(Config{Upstream: &rest.Config{Host: up.URL, BearerToken: "upstream-secret",
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM}}, Tenant: "acme", Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	srv := NewServer(p, "127.0.0.1:0")
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	client, err := rest.HTTPClientFor(srv.ClientConfig(testToken))
	if err != nil {
		b.Fatal(err)
	}
	return client, srv.URL()
}

func benchDo(b *testing.B, c *http.Client, method, url, accept string, body []byte) int64 {
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	req.Header.Set("Accept", accept)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 != 2 {
		b.Fatalf("%s %s: %d", method, url, resp.StatusCode)
	}
	return n
}

const clientGoAccept = "application/vnd.kubernetes.protobuf, */*"

// BenchmarkProxyGet is one GET of a ConfigMap through the proxy, 32 clients
// at once.
func BenchmarkProxyGet(b *testing.B) {
	c, base := benchProxy(b, benchUpstream(b, 0))
	url := base + "/api/v1/namespaces/default/configmaps/get-me"
	b.SetBytes(benchDo(b, c, http.MethodGet, url, clientGoAccept, nil))
	b.ReportAllocs()
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchDo(b, c, http.MethodGet, url, clientGoAccept, nil)
		}
	})
}

// BenchmarkProxyCreate is one POST of a ConfigMap through the proxy.
func BenchmarkProxyCreate(b *testing.B) {
	c, base := benchProxy(b, benchUpstream(b, 0))
	url := base + "/api/v1/namespaces/default/configmaps"
	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new","labels":{"app":"bench"}},"data":{"payload":"` + strings.Repeat("x", 256) + `"}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchDo(b, c, http.MethodPost, url, clientGoAccept, body)
		}
	})
}

// BenchmarkProxyList10000 is a LIST of 10 000 ConfigMaps through the proxy.
func BenchmarkProxyList10000(b *testing.B) {
	c, base := benchProxy(b, benchUpstream(b, 10000))
	url := base + "/api/v1/namespaces/default/configmaps"
	b.SetBytes(benchDo(b, c, http.MethodGet, url, clientGoAccept, nil))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		benchDo(b, c, http.MethodGet, url, clientGoAccept, nil)
	}
}

// BenchmarkProxyGetSequential is the latency of one GET through the proxy
// ("proxied") beside the same GET straight to the fake upstream ("direct").
func BenchmarkProxyGetSequential(b *testing.B) {
	up := benchUpstream(b, 0)
	c, base := benchProxy(b, up)
	upClient := up.Client()
	for _, bc := range []struct {
		name string
		c    *http.Client
		url  string
	}{{"direct", upClient, up.URL + "/api/v1/namespaces/acme-default/configmaps/get-me"},
		{"proxied", c, base + "/api/v1/namespaces/default/configmaps/get-me"}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(benchDo(b, bc.c, http.MethodGet, bc.url, clientGoAccept, nil))
			b.ReportAllocs()
			for b.Loop() {
				benchDo(b, bc.c, http.MethodGet, bc.url, clientGoAccept, nil)
			}
		})
	}
}
