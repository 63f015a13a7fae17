package cmd

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// The -update flag may already be registered by another test of the package.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// runExplain runs `kubectl zoo explain args...` through the real root (so -n
// is the root's connection flag) from the repository root, with stdin.
func runExplain(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	t.Chdir(filepath.Join("..", ".."))
	t.Setenv("CLICOLOR_FORCE", "0")
	streams, in, out, errOut := genericiooptions.NewTestIOStreams()
	in.WriteString(stdin)
	root := NewCmdZoo(streams)
	root.SilenceErrors = true
	root.SetArgs(append([]string{"explain"}, args...))
	err := root.Execute()
	return out.String(), errOut.String(), err
}

// golden compares got with testdata/explain/<name>.golden (the test runs in
// the repository root), or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "explain", name+".golden")
	if updating() {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run `go test ./pkg/cmd -run Explain -update` to create it")
	assert.Equal(t, string(want), got)
}

func TestExplainGolden(t *testing.T) {
	listJSON := `{"apiVersion":"v1","kind":"List","items":[
	  {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"n":"1"}},
	  {"apiVersion":"v1","kind":"Secret","metadata":{"name":"b","namespace":"web"},"stringData":{"k":"v"}}]}`
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{name: "names", args: []string{"--tenant", "acme", "ns/default", "deploy/web", "-n", "default", "crd/crontabs.stable.example.com"}},
		{name: "names-kinds", args: []string{"--tenant", "acme", "-n", "dev",
			"Namespace/dev", "namespaces/dev", "cm/cfg", "svc/api", "pvc/data", "pv/pv1", "sc/fast", "clusterrole/view",
			"rolebindings.rbac.authorization.k8s.io/rb", "events.events.k8s.io/e", "deployments.v1.apps/web",
			"node/n1", "cs/scheduler", "apiservices.apiregistration.k8s.io/v1.foo", "crd/things.apps",
			"selfsubjectaccessreviews.authorization.k8s.io/x", "crontabs.stable.example.com/x"}},
		{name: "names-cluster-scoped", args: []string{"--tenant", "acme", "--cluster-scoped", "clusterthings.stable.example.com/x"}},
		{name: "names-reverse", args: []string{"--reverse", "-n", "acme-default", "ns/acme-default", "ns/kube-system", "cm/cfg",
			"clusterrole/bob-view", "crd/crontabs.acme-stable.example.com", "crontabs.acme-stable.example.com/x",
			"sc/standard", "sc/acme-fast", "node/n1"}},
		{name: "names-reverse-tenant", args: []string{"--reverse", "--tenant", "acme", "ns/acme-default", "ns/bob-default", "ns/kube-system"}},
		{name: "names-yaml", args: []string{"--tenant", "acme", "-o", "yaml", "ns/default", "deploy/web", "apiservices.apiregistration.k8s.io/v1.foo"}},
		{name: "names-json", args: []string{"--reverse", "-o", "json", "ns/acme-default", "ns/kube-system"}},
		{name: "manifest", args: []string{"--tenant", "acme", "-f", "testdata/explain/app.yaml"}},
		{name: "manifest-yaml", args: []string{"--tenant", "acme", "-f", "testdata/explain/app.yaml", "-o", "yaml"}},
		{name: "manifest-json", args: []string{"--tenant", "acme", "-f", "testdata/explain/app.yaml", "-o", "json"}},
		{name: "manifest-namespace", args: []string{"--tenant", "acme", "-n", "web", "-f", "-"}, stdin: listJSON},
		{name: "manifest-reverse", args: []string{"--reverse", "-f", "testdata/explain/upstream.yaml"}},
		{name: "manifest-reverse-yaml", args: []string{"--reverse", "--tenant", "acme", "-f", "testdata/explain/upstream.yaml", "-o", "yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := runExplain(t, tc.stdin, tc.args...)
			require.NoError(t, err)
			assert.Empty(t, errOut)
			assert.NotContains(t, out, "\x1b[", "piped output must be plain")
			golden(t, tc.name, out)
		})
	}
}

// TestExplainStyled forces a TrueColor profile to prove the human output is
// styled on a terminal, and that the same options piped are plain.
func TestExplainStyled(t *testing.T) {
	tests := []struct {
		name    string
		profile colorprofile.Profile
		args    []string
		files   []string
	}{
		{name: "names-styled", profile: colorprofile.TrueColor, args: []string{"ns/default", "cs/x"}},
		{name: "manifest-styled", profile: colorprofile.TrueColor, files: []string{"testdata/explain/upstream.yaml"}},
		{name: "names", profile: colorprofile.NoTTY, args: []string{"ns/default", "deploy/web", "crd/crontabs.stable.example.com"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(filepath.Join("..", ".."))
			streams, _, out, _ := genericiooptions.NewTestIOStreams()
			o := NewExplainOptions(nil, streams)
			o.TenantName, o.Filenames, o.Profile = "acme", tc.files, tc.profile
			o.Reverse = len(tc.files) > 0
			require.NoError(t, o.Complete(tc.args))
			require.NoError(t, o.Validate())
			require.NoError(t, o.Run())
			if tc.profile == colorprofile.TrueColor {
				assert.Contains(t, out.String(), "\x1b[")
			}
			golden(t, tc.name, out.String())
		})
	}
}

// TestExplainDetectsColor checks that the profile comes from the output and
// the environment: a forced color environment styles a non-terminal.
func TestExplainDetectsColor(t *testing.T) {
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	o := NewExplainOptions(nil, streams)
	o.TenantName, o.Environ = "acme", []string{"CLICOLOR_FORCE=1", "TERM=xterm-256color"}
	require.NoError(t, o.Complete([]string{"ns/default"}))
	require.NoError(t, o.Validate())
	require.NoError(t, o.Run())
	assert.Equal(t, colorprofile.ANSI256, o.Profile)
	assert.Contains(t, out.String(), "\x1b[")
}

func TestExplainBadInput(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{name: "invalid tenant", args: []string{"--tenant", "Acme", "ns/x"},
			want: `invalid --tenant: tenant name "Acme" must start with a lower-case letter a-z`},
		{name: "tenant with separator", args: []string{"--tenant", "ac-me", "ns/x"},
			want: `invalid --tenant: tenant name "ac-me" may contain only lower-case letters a-z and digits 0-9 (no "-")`},
		{name: "reserved tenant", args: []string{"--tenant", "kube", "ns/x"},
			want: `invalid --tenant: tenant name "kube" is reserved: kube-system, kube-public and kube-node-lease belong to the cluster`},
		{name: "no tenant", args: []string{"ns/x"}, want: "--tenant is required (it is optional only with --reverse)"},
		{name: "nothing", args: []string{"--tenant", "acme"},
			want: "nothing to explain: give TYPE/NAME arguments (for example ns/default) or -f FILENAME"},
		{name: "args and file", args: []string{"--tenant", "acme", "ns/x", "-f", "-"}, want: "give either TYPE/NAME arguments or -f, not both"},
		{name: "bad output", args: []string{"--tenant", "acme", "ns/x", "-o", "wide"}, want: `--output must be one of yaml|json, not "wide"`},
		{name: "no name", args: []string{"--tenant", "acme", "ns"},
			want: `argument "ns" must be TYPE/NAME, for example ns/default, deploy/web or crontabs.stable.example.com/x`},
		{name: "unknown kind", args: []string{"--tenant", "acme", "foo/x"},
			want: `unknown resource type "foo": use a kubectl name such as ns, deploy, cm or crd, or TYPE.GROUP for a custom resource`},
		{name: "unknown built-in resource", args: []string{"--tenant", "acme", "foos.apps/x"},
			want: `unknown resource type "foos.apps": "apps" is a built-in API group and kubectl-zoo does not know this resource in it`},
		{name: "name too long", args: []string{"--tenant", "acme", "ns/" + strings.Repeat("a", 59)},
			want: `Namespace "` + strings.Repeat("a", 59) + `" is invalid: metadata.name: Invalid value: "` + strings.Repeat("a", 59) +
				`": must be no more than 58 characters in tenant "acme" (the limit is 63, and the tenant's prefix "acme-" takes 5)`},
		{name: "malformed YAML", args: []string{"--tenant", "acme", "-f", "-"}, stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n",
			want: "stdin: document 1: malformed YAML or JSON: error converting YAML to JSON: yaml: line 4: did not find expected ',' or ']'"},
		{name: "malformed JSON", args: []string{"--tenant", "acme", "-f", "-"}, stdin: `{"apiVersion": "v1", "kind":`,
			want: "stdin: document 1: malformed YAML or JSON: unexpected EOF"},
		{name: "not an object", args: []string{"--tenant", "acme", "-f", "-"}, stdin: "- a\n- b\n",
			want: "stdin: document 1: not a Kubernetes object (a mapping with apiVersion and kind)"},
		{name: "no kind", args: []string{"--tenant", "acme", "-f", "-"}, stdin: "metadata:\n  name: x\n",
			want: "stdin: document 1: object has no apiVersion or kind"},
		{name: "unknown kind in manifest", args: []string{"--tenant", "acme", "-f", "-"}, stdin: "apiVersion: apps/v1\nkind: Deploymnet\nmetadata:\n  name: x\n",
			want: `stdin: document 1: unknown kind "Deploymnet" in API version "apps/v1"`},
		{name: "forbidden kind in manifest", args: []string{"--tenant", "acme", "-f", "-"},
			stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1.foo\n",
			want:  `stdin: document 2 (APIService v1.foo): apiservices.apiregistration.k8s.io "v1.foo" is forbidden: APIService registration serves an API group to the whole shared cluster and cannot be confined to a tenant`},
		{name: "empty manifest", args: []string{"--tenant", "acme", "-f", "-"}, stdin: "---\n", want: "no objects in -"},
		{name: "missing file", args: []string{"--tenant", "acme", "-f", "nope.yaml"}, want: `the path "nope.yaml" does not exist`},
		{name: "reverse, no tenant's", args: []string{"--reverse", "-f", "-"}, stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: kube-system\n",
			want: "stdin: document 1 (ConfigMap kube-system/x): belongs to no tenant (no tenant's prefix in its name, namespace or API group)"},
		{name: "reverse, other tenant's", args: []string{"--reverse", "--tenant", "bob", "-f", "testdata/explain/upstream.yaml"},
			want: "testdata/explain/upstream.yaml: document 1 (Namespace acme-dev): not tenant bob's: it belongs to tenant acme"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runExplain(t, tc.stdin, tc.args...)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.NotContains(t, err.Error(), "\n", "the error must be one line")
			assert.Empty(t, out, "nothing is printed when explain fails")
		})
	}
}
