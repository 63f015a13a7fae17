package cmd

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/tenantctl")

// TestInstallDryRunGolden pins what `kubectl zoo install --dry-run=client -o
// yaml` prints: every cluster-side object, CEL included. Run with -update to
// accept a deliberate change.
func TestInstallDryRunGolden(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{"--dry-run=client", "-o", "yaml"}, "install-dry-run.yaml"},
		{[]string{"--dry-run=client"}, "install-dry-run.txt"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			installGolden(t, tc.golden, runInstall(t, tc.args...))
		})
	}
}

func TestInstallValidate(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dry-run=maybe"}, `--dry-run must be "none", "client" or "server"`},
		{[]string{"--force"}, "--force only goes with --uninstall"},
		{[]string{"--uninstall", "--dry-run=client"}, "--uninstall does not support --dry-run"},
		{[]string{"-o", "table"}, "unable to match a printer"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			streams, _, _, _ := genericiooptions.NewTestIOStreams()
			cmd := NewCmdInstall(genericclioptions.NewConfigFlags(false), streams)
			cmd.SetArgs(tc.args)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestTenantCommandsRejectBadNamesOffline(t *testing.T) {
	for _, args := range [][]string{
		{"create", "kube"}, {"create", "system"}, {"create", "a-b"}, {"delete", "zoo"}, {"get", "Tenant"},
	} {
		t.Run(args[0]+" "+args[1], func(t *testing.T) {
			requireRefusedOffline(t, args, "tenant name") // tenant_export_test.go
		})
	}
}
