package localproxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

// seen is one request exactly as it reached a recording upstream.
type seen struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   []byte
}

// recording is a fake API server that records every request with its body
// and answers with handler (an empty JSON object by default). Upgrade
// requests are answered 101 and closed.
type recording struct {
	mu      sync.Mutex
	got     []seen
	handler http.HandlerFunc
}

func (rc *recording) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, seen{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	rc.mu.Unlock()
	if r.Header.Get("Upgrade") != "" {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_, _ = buf.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + r.Header.Get("Upgrade") + "\r\n\r\n")
			_ = buf.Flush()
			_ = conn.Close()
		}
		return
	}
	if rc.handler != nil {
		rc.handler(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{}`)
}

func (rc *recording) requests() []seen {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]seen(nil), rc.got...)
}

// newRecordingProxy returns a proxy for tenant acme in front of a recording
// upstream.
func newRecordingProxy(t *testing.T, handler http.HandlerFunc) (*Proxy, *recording) {
	t.Helper()
	rc := &recording{handler: handler}
	ts := httptest.NewServer(rc)
	t.Cleanup(ts.Close)
	p, err := New(Config{Upstream: &rest.Config{Host: ts.URL, BearerToken: "upstream-secret"}, Tenant: "acme", Token: testToken})
	require.NoError(t, err)
	return p, rc
}

// rawExchange sends one raw HTTP/1.1 request to the proxy (served over plain
// HTTP) and returns the status line of the answer.
func rawExchange(t *testing.T, p *Proxy, raw string) string {
	t.Helper()
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, raw)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: "POST"})
	require.NoError(t, err)
	defer resp.Body.Close()
	return resp.Status
}

// TestUpgradeOnlyForStreaming: a request with upgrade headers is forwarded
// as an upgrade only for exec, attach and port-forward, without its body and
// with the handshake headers only; anything else is a 400 and nothing
// reaches the upstream.
func TestUpgradeOnlyForStreaming(t *testing.T) {
	const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"evil","namespace":"beta-default"}}`
	for _, tc := range []struct {
		name, method, path, body string
		want                     string
	}{
		{"create with upgrade headers", "POST", "/api/v1/namespaces/default/configmaps", cm, "400"},
		{"update with upgrade headers", "PUT", "/api/v1/namespaces/default/configmaps/evil", cm, "400"},
		{"patch with upgrade headers", "PATCH", "/api/v1/namespaces/default/configmaps/evil", `{"metadata":{"namespace":"beta-default"}}`, "400"},
		{"list with upgrade headers", "GET", "/api/v1/namespaces/default/configmaps", "", "400"},
		{"pod log with upgrade headers", "GET", "/api/v1/namespaces/default/pods/p/log", "", "400"},
		{"service proxy with upgrade headers", "GET", "/api/v1/namespaces/default/services/s/proxy/", "", "403"},
		{"exec with a body", "POST", "/api/v1/namespaces/default/pods/p/exec?command=sh", cm, "400"},
		{"exec", "POST", "/api/v1/namespaces/default/pods/p/exec?command=sh&command=-c&stdin=true", "", "101"},
		{"attach", "GET", "/api/v1/namespaces/default/pods/p/attach?stdout=true", "", "101"},
		{"portforward", "GET", "/api/v1/namespaces/default/pods/p/portforward?ports=80&ports=81", "", "101"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, up := newRecordingProxy(t, nil)
			raw := tc.method + " " + tc.path + " HTTP/1.1\r\nHost: proxy\r\nAuthorization: Bearer " + testToken +
				"\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n" +
				"X-Remote-User: system:admin\r\nContent-Type: application/json\r\n"
			if tc.body != "" {
				raw += "Content-Length: " + strconv.Itoa(len(tc.body)) + "\r\n"
			}
			raw += "\r\n" + tc.body
			status := rawExchange(t, p, raw)
			require.True(t, strings.HasPrefix(status, tc.want), status)
			got := up.requests()
			if tc.want != "101" {
				assert.Empty(t, got, "nothing may reach the upstream")
				return
			}
			require.Len(t, got, 1)
			assert.True(t, strings.HasPrefix(got[0].Path, "/api/v1/namespaces/acme-default/pods/p/"), got[0].Path)
			assert.Empty(t, got[0].Body)
			assert.Equal(t, "SPDY/3.1", got[0].Header.Get("Upgrade"))
			assert.Equal(t, "v4.channel.k8s.io", got[0].Header.Get("X-Stream-Protocol-Version"))
			assert.Equal(t, "zoo:acme:admin", got[0].Header.Get("Impersonate-User"))
			assert.Empty(t, got[0].Header.Get("X-Remote-User"), "only handshake headers go upstream")
			assert.Empty(t, got[0].Header.Get("Content-Type"), "only handshake headers go upstream")
		})
	}
}
