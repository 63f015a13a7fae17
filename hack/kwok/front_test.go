package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/utils/exec"
)

// fakeKwok records the paths that reach kwok's server.
type fakeKwok struct {
	mu    sync.Mutex
	paths []string
}

func (f *fakeKwok) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.Path)
	f.mu.Unlock()
	_, _ = io.WriteString(w, "from kwok")
}

func startFront(t *testing.T) (*httptest.Server, *fakeKwok, string) {
	t.Helper()
	kwok := &fakeKwok{}
	backend := httptest.NewServer(kwok)
	t.Cleanup(backend.Close)
	dir := t.TempDir()
	handler, err := newFront(backend.URL, &sandbox{dir: dir})
	require.NoError(t, err)
	front := httptest.NewTLSServer(handler)
	t.Cleanup(front.Close)
	return front, kwok, dir
}

// TestFrontServesExecFromTheSandbox runs client-go's SPDY exec client
// against the front, as the API server does (it translates kubectl's
// websocket exec to SPDY towards the node): the sandbox answers, kwok sees
// no exec.
func TestFrontServesExecFromTheSandbox(t *testing.T) {
	front, kwok, dir := startFront(t)
	cfg := &rest.Config{Host: front.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	execURL, err := url.Parse(front.URL + "/exec/ns/web/c?command=cat&command=-&input=1&output=1&error=1")
	require.NoError(t, err)
	for _, method := range []string{"POST", "GET"} {
		t.Run(method, func(t *testing.T) {
			exec, err := remotecommand.NewSPDYExecutor(cfg, method, execURL)
			require.NoError(t, err)
			var out, errOut bytes.Buffer
			err = exec.StreamWithContext(t.Context(), remotecommand.StreamOptions{
				Stdin: strings.NewReader("through stdin\n"), Stdout: &out, Stderr: &errOut})
			require.NoError(t, err, errOut.String())
			assert.Equal(t, "through stdin\n", out.String())

			shURL := *execURL
			shURL.RawQuery = "command=sh&command=-c&command=touch+" + url.QueryEscape(filepath.Join(dir, "pwned")) + "&output=1&error=1"
			exec, err = remotecommand.NewSPDYExecutor(cfg, method, &shURL)
			require.NoError(t, err)
			errOut.Reset()
			err = exec.StreamWithContext(t.Context(), remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut})
			var exit utilexec.ExitError
			require.True(t, errors.As(err, &exit), "%v", err)
			assert.Equal(t, exitRefused, exit.ExitStatus())
			assert.Contains(t, errOut.String(), "sh: refused")
			assert.NoFileExists(t, filepath.Join(dir, "pwned"))
		})
	}
	assert.Empty(t, kwok.paths)
}

// TestFrontRoutes: no spelling of an exec path reaches kwok; the rest does.
func TestFrontRoutes(t *testing.T) {
	front, kwok, _ := startFront(t)
	client := front.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/containerLogs/ns/web/c", http.StatusOK},
		{"/portForward/ns/web", http.StatusOK},
		{"/healthz", http.StatusOK},
		{"/exec/ns/web/c/d/e", http.StatusNotFound},
		{"/exec/", http.StatusNotFound},
		{"/exec", http.StatusTemporaryRedirect},
		{"/x/../exec/ns/web/c", http.StatusTemporaryRedirect},
		{"/./exec/ns/web/c", http.StatusTemporaryRedirect},
		{"//exec/ns/web/c", http.StatusOK},        // host "exec", path /ns/web/c
		{"/exec/ns/web/c", http.StatusBadRequest}, // no stream asked for
	} {
		t.Run(tc.path, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, front.URL, nil)
			require.NoError(t, err)
			req.URL.Opaque = tc.path // sent as written, not cleaned by the client
			resp, err := client.Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			assert.Equal(t, tc.code, resp.StatusCode)
		})
	}
	assert.Equal(t, []string{"/containerLogs/ns/web/c", "/portForward/ns/web", "/healthz", "/ns/web/c"}, kwok.paths)
}
