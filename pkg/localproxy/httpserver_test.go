package localproxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
)

// syncBuffer is a bytes.Buffer klog and the test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFrontDoorRecoversPanics: a handler's panic behind NewHTTPServer is
// logged with its value and request, the client gets an error (never a
// half-written answer taken for a whole one), and the server goes on
// serving; a deliberate abort is not logged as a panic.
func TestFrontDoorRecoversPanics(t *testing.T) {
	var logs syncBuffer
	klog.LogToStderr(false)
	klog.SetOutput(&logs)
	t.Cleanup(func() { klog.SetOutput(nil); klog.LogToStderr(true) })

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/panic":
			_, _ = w.Write([]byte(`{"kind":"ConfigMapList","items":[`))
			panic("boom in " + r.URL.Path)
		case "/abort":
			panic(http.ErrAbortHandler)
		}
		_, _ = w.Write([]byte("ok"))
	})
	for _, http2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "HTTP/1.1", true: "HTTP/2"}[http2], func(t *testing.T) {
			ts := httptest.NewUnstartedServer(nil)
			ts.Config = NewHTTPServer(handler, nil)
			ts.EnableHTTP2 = http2
			ts.StartTLS()
			t.Cleanup(ts.Close)
			client := ts.Client()

			for _, tc := range []struct {
				path   string
				logged bool
			}{{"/panic", true}, {"/abort", false}} {
				before := len(logs.String())
				resp, err := client.Get(ts.URL + tc.path)
				if err == nil { // the header may have gone out; the body must not end cleanly
					_, err = readAll(resp)
				}
				require.Error(t, err, "%s: a panicking handler's answer must not read as complete", tc.path)
				if tc.logged {
					require.Eventually(t, func() bool { return len(logs.String()) > before }, 5*time.Second, 10*time.Millisecond)
					got := logs.String()[before:]
					assert.Contains(t, got, "a request made kubectl-zoo panic")
					assert.Contains(t, got, "boom in /panic")
					assert.Contains(t, got, `uri="/panic"`)
				}
			}
			resp, err := client.Get(ts.URL + "/ok")
			require.NoError(t, err)
			body, err := readAll(resp)
			require.NoError(t, err)
			assert.Equal(t, "ok", body)
			assert.NotContains(t, logs.String(), "abort", "a deliberate abort is not a panic to log")
		})
	}
}

// readAll reads and closes an answer's body.
func readAll(resp *http.Response) (string, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
