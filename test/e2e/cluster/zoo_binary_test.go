package cluster_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestZooBinaryIsStamped checks the built bin/kubectl-zoo: the version and
// commit come from the build's ldflags, and --help lists the commands.
func TestZooBinaryIsStamped(t *testing.T) {
	res := framework.Run(t.Context(), nil, framework.ZooPath(t), "version", "-o", "json")
	require.NoError(t, res.Err, res.Stderr)
	var v struct{ Version, Commit, BuildDate string }
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &v))
	assert.Regexp(t, `^v\d+\.\d+\.\d+`, v.Version)
	assert.NotEqual(t, "v0.0.0-dev", v.Version, "the version was not stamped")
	assert.NotEqual(t, "unknown", v.Commit)
	assert.NotEqual(t, "unknown", v.BuildDate)

	help := framework.Run(t.Context(), nil, framework.ZooPath(t), "--help")
	require.NoError(t, help.Err, help.Stderr)
	for _, cmd := range []string{"install", "tenant", "serve", "explain", "version"} {
		assert.Regexp(t, `(?m)^\s+`+cmd+`\s`, help.Stdout)
	}
	for _, flag := range []string{"--kubeconfig", "--context", "--namespace"} {
		assert.Contains(t, help.Stdout, flag)
	}
}
