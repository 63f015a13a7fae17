package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/transfer"
)

// TestTenantExportGolden pins what `kubectl zoo tenant export` writes for
// a tenant's objects as its view shows them (testdata/tenantctl/
// export-view.yaml, read through `kubectl zoo serve`): what is left out
// (export-omitted.txt), what is cleaned, the apply order and both formats. Run with -update to
// accept a deliberate change.
func TestTenantExportGolden(t *testing.T) {
	for _, tc := range []struct {
		golden, format string
		secrets        bool
	}{
		{"export.yaml", "yaml", true},
		{"export-without-secrets.json", "json", false},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "testdata", "tenantctl", "export-view.yaml"))
			require.NoError(t, err)
			defer f.Close()
			view, err := transfer.ReadManifests(f)
			require.NoError(t, err)
			res := transfer.PrepareExport(view, tc.secrets)
			var out bytes.Buffer
			require.NoError(t, transfer.WriteManifests(&out, res.Objects, tc.format))
			installGolden(t, tc.golden, out.String())
			if !tc.secrets {
				installGolden(t, "export-omitted.txt", strings.TrimPrefix(omittedSummary(res.Omitted), "; ")+"\n")
			}
		})
	}
}

// TestTenantExportImportRejectBadInputOffline refuses bad names and flags
// with one clear error before any request.
func TestTenantExportImportRejectBadInputOffline(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "kube"}, "tenant name"},
		{[]string{"export", "acme", "-o", "xml"}, `--output must be yaml or json, not "xml"`},
		{[]string{"import", "a-b", "-f", "x.yaml"}, "tenant name"},
		{[]string{"import", "acme"}, "-f FILE is required"},
		{[]string{"import", "acme", "-f", filepath.Join(t.TempDir(), "missing.yaml")}, "missing.yaml: no such file"},
		{[]string{"export"}, "takes exactly one tenant NAME"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			requireRefusedOffline(t, tc.args, tc.want)
		})
	}
}

// requireRefusedOffline runs `kubectl zoo tenant args...` with no server
// at all and requires an error containing want, before any request.
func requireRefusedOffline(t *testing.T, args []string, want string) {
	t.Helper()
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	flags := genericclioptions.NewConfigFlags(false)
	server := "https://127.0.0.1:1"
	flags.APIServer = &server
	cmd := NewCmdTenant(flags, streams)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	require.Error(t, err)
	assert.Contains(t, err.Error(), want)
	assert.NotContains(t, err.Error(), "connect")
	assert.Empty(t, out.String())
}

// TestObjectNamePrintable names an object of a crafted file without what a
// terminal would interpret.
func TestObjectNamePrintable(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "a\x1b[2Jb", "namespace": "ns"}}}
	assert.Equal(t, "ConfigMap/a?[2Jb (namespace ns)", objectName(obj))
}
