package localproxy

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// spreadUpstream is a TLS (HTTP/2) fake API server, a round trip away
// (rtt, slept before each answer), holding the ConfigMaps of tenant acme
// spread over nss namespaces (acme-ns000, ...) perNS each, and as many in
// acme-one.
func spreadUpstream(b *testing.B, nss, perNS int, rtt time.Duration) *httptest.Server {
	list := func(ns string, n int) []byte {
		var buf bytes.Buffer
		buf.WriteString(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"99"},"items":[`)
		for i := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strings.Replace(benchConfigMap(fmt.Sprintf("cm-%05d", i)), `"acme-default"`, `"`+ns+`"`, 1))
		}
		buf.WriteString("]}")
		return buf.Bytes()
	}
	var names []string
	for i := range nss {
		names = append(names, fmt.Sprintf(`{"metadata":{"name":"acme-ns%03d"}}`, i))
	}
	namespaces := []byte(`{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[` + strings.Join(names, ",") + `]}`)
	leg, one := list("acme-ns000", perNS), list("acme-one", nss*perNS)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(rtt)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/namespaces":
			_, _ = w.Write(namespaces)
		case r.URL.Path == "/api/v1/namespaces/acme-one/configmaps":
			_, _ = w.Write(one)
		default: // the items say acme-ns000 whatever the namespace: the proxy does not check
			_, _ = w.Write(leg)
		}
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	b.Cleanup(ts.Close)
	return ts
}

// BenchmarkProxyListSpread is a LIST of 1200 ConfigMaps through the proxy
// from an upstream 1 ms away: in one namespace, and across 200 namespaces
// of 6 (the proxy fans out) with its legs read one after another (window 1)
// and a window at a time. The ratio of "200 namespaces" to "1 namespace" is
// what a tenant with many namespaces pays.
func BenchmarkProxyListSpread(b *testing.B) {
	const nss, perNS, rtt = 200, 6, time.Millisecond
	c, base := benchProxy(b, spreadUpstream(b, nss, perNS, rtt))
	for _, bc := range []struct {
		name   string
		path   string
		window int
	}{
		{"1 namespace", "/api/v1/namespaces/one/configmaps", legWindow},
		{"200 namespaces, window 1", "/api/v1/configmaps", 1},
		{fmt.Sprintf("200 namespaces, window %d", legWindow), "/api/v1/configmaps", legWindow},
	} {
		b.Run(bc.name, func(b *testing.B) {
			old := joinWindow
			joinWindow = bc.window
			b.Cleanup(func() { joinWindow = old })
			b.SetBytes(benchDo(b, c, http.MethodGet, base+bc.path, clientGoAccept, nil))
			b.ReportAllocs()
			for b.Loop() {
				benchDo(b, c, http.MethodGet, base+bc.path, clientGoAccept, nil)
			}
		})
	}
}
