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

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
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
			view, err := tenantctl.ReadManifests(f)
			require.NoError(t, err)
			res := tenantctl.PrepareExport(view, tc.secrets)
			var out bytes.Buffer
			require.NoError(t, tenantctl.WriteManifests(&out, res.Objects, tc.format))
			installGolden(t, tc.golden, out.String())
			if !tc.secrets {
				installGolden(t, "export-omitted.txt", strings.TrimPrefix(omittedSummary(res.Omitted), "; ")+"\n")
			}
		})
	}
}

// TestTenantExportImportFlags refuses bad flags with one clear error before
// anything is sent.
func TestTenantExportImportFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"bad format", (&TenantExportOptions{Tenant: "acme", Output: "xml"}).Validate(), `--output must be yaml or json, not "xml"`},
		{"bad tenant", (&TenantExportOptions{Tenant: "Acme", Output: "yaml"}).Validate(), "Acme"},
		{"no file", (&TenantImportOptions{Tenant: "acme"}).Validate(), "-f FILE is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.err)
			assert.Contains(t, tc.err.Error(), tc.want)
		})
	}
	require.NoError(t, (&TenantExportOptions{Tenant: "acme", Output: "json"}).Validate())
	require.NoError(t, (&TenantImportOptions{Tenant: "acme", Filename: "-"}).Validate())
}

// TestObjectNamePrintable names an object of a crafted file without what a
// terminal would interpret.
func TestObjectNamePrintable(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "a\x1b[2Jb", "namespace": "ns"}}}
	assert.Equal(t, "ConfigMap/a?[2Jb (namespace ns)", objectName(obj))
}
