package localproxy

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfileServer(t *testing.T) {
	_, err := StartProfileServer("0.0.0.0:0")
	require.ErrorContains(t, err, "not a loopback address")

	s, err := StartProfileServer("127.0.0.1:0")
	require.NoError(t, err)
	defer s.Shutdown(context.Background()) //nolint:errcheck
	require.True(t, strings.HasPrefix(s.URL(), "http://127.0.0.1:"), s.URL())
	resp, err := http.Get(s.URL() + "goroutine?debug=1")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	assert.True(t, strings.HasPrefix(string(body), "goroutine profile: total "), string(body[:min(len(body), 80)]))
}
