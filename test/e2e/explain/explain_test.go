// Package explain_test runs the built `kubectl zoo explain` through a pipe and
// applies what it translates to a real upstream cluster.
package explain_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// explain runs the real binary with stdout and stderr piped.
func explain(t *testing.T, stdin string, args ...string) framework.Result {
	t.Helper()
	var in []byte
	if stdin != "" {
		in = []byte(stdin)
	}
	return framework.Run(t.Context(), in, framework.ZooPath(t), append([]string{"explain"}, args...)...)
}

// exitCode is the exit status of a finished command (0 on success).
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "command did not run: %v", err)
	return exit.ExitCode()
}

// TestExplainPipedIsPlain checks the names output through a pipe: plain text,
// even when the environment asks for a color terminal.
func TestExplainPipedIsPlain(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("CLICOLOR_FORCE", "")
	res := explain(t, "", "--tenant", "acme", "ns/default", "deploy/web", "-n", "default", "crd/crontabs.stable.example.com")
	require.NoError(t, res.Err, res.Stderr)
	assert.Empty(t, res.Stderr)
	assert.NotContains(t, res.Stdout, "\x1b[")
	assert.Contains(t, res.Stdout, "upstream:     namespaces  acme-default\n")
	assert.Contains(t, res.Stdout, "upstream:     deployments.apps  acme-default/web\n")
	assert.Contains(t, res.Stdout, "customresourcedefinitions.apiextensions.k8s.io  crontabs.acme-stable.example.com\n")

	res = explain(t, "", "--reverse", "ns/acme-default", "ns/kube-system")
	require.NoError(t, res.Err, res.Stderr)
	assert.Contains(t, res.Stdout, "tenant acme:  namespaces  default\n")
	assert.Contains(t, res.Stdout, "no-tenant: ")
}

// TestExplainBadInputIsOneLine checks exit code 1 and one line on stderr.
func TestExplainBadInputIsOneLine(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{name: "unknown kind", args: []string{"--tenant", "acme", "foo/x"}, want: `unknown resource type "foo"`},
		{name: "invalid tenant", args: []string{"--tenant", "Acme", "ns/x"}, want: `invalid --tenant: tenant name "Acme"`},
		{name: "malformed YAML", args: []string{"--tenant", "acme", "-f", "-"}, stdin: "kind: [x\n", want: "stdin: document 1: malformed YAML or JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := explain(t, tc.stdin, tc.args...)
			assert.Equal(t, 1, exitCode(t, res.Err))
			assert.Empty(t, res.Stdout)
			lines := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
			require.Len(t, lines, 1, "stderr: %q", res.Stderr)
			assert.Contains(t, lines[0], tc.want)
		})
	}
}

const manifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  greeting: hello
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: builder-view
subjects:
- kind: ServiceAccount
  name: builder
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
`

// TestExplainManifestApplies translates a manifest for tenant acme, applies
// the output to the upstream as admin, and finds the objects under their
// upstream names; the objects read back translate to the tenant's view.
func TestExplainManifestApplies(t *testing.T) {
	// The cluster belongs to this test binary and goes away with it.
	framework.Kubectl(t, "create", "namespace", "acme-default")

	human := explain(t, manifest, "--tenant", "acme", "-f", "-")
	require.NoError(t, human.Err, human.Stderr)
	assert.Contains(t, human.Stdout, "namespace: acme-default # was: default\n")
	assert.Contains(t, human.Stdout, "name: acme-view # was: view\n")

	res := explain(t, manifest, "--tenant", "acme", "-f", "-", "-o", "yaml")
	require.NoError(t, res.Err, res.Stderr)
	assert.NotContains(t, res.Stdout, "# was:")

	path := t.TempDir() + "/upstream.yaml"
	require.NoError(t, writeFile(path, res.Stdout))
	out := framework.Kubectl(t, "apply", "-f", path)
	assert.Contains(t, out, "configmap/cfg created")

	got := framework.Kubectl(t, "get", "configmap", "cfg", "-n", "acme-default", "-o", "jsonpath={.data.greeting}")
	assert.Equal(t, "hello", got)
	got = framework.Kubectl(t, "get", "rolebinding", "builder-view", "-n", "acme-default",
		"-o", "jsonpath={.roleRef.name} {.subjects[0].namespace}")
	assert.Equal(t, "acme-view acme-default", got)

	// Back from the upstream: the tenant's view again.
	upstream := framework.Kubectl(t, "get", "configmap", "cfg", "-n", "acme-default", "-o", "yaml")
	back := explain(t, upstream, "--reverse", "-f", "-", "-o", "json")
	require.NoError(t, back.Err, back.Stderr)
	assert.Contains(t, back.Stdout, `"namespace": "default"`)
}

func writeFile(path, content string) error {
	return os.WriteFile(path, []byte(content), 0o600)
}
