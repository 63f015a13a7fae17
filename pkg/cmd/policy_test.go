package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
)

// policyGolden compares got with testdata/policy/name (rewritten with -update).
func policyGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "policy", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run `go test ./pkg/cmd -run TestPolicyShow -update` to create it")
	assert.Equal(t, string(want), got)
}

// TestPolicyShowGolden pins `policy show` in every output format, for the
// default policy and for one with every field set; the yaml and json forms
// read back (policy.Parse) as the policy printed, so `policy show -o yaml`
// is a valid `install --default-policy` file.
func TestPolicyShowGolden(t *testing.T) {
	full, err := policy.Change{
		MaxNamespaces: ptr.To[int32](10), Quota: ptr.To("requests.cpu=4,limits.memory=8Gi,pods=50"),
		LimitRange:  ptr.To("default-cpu=100m,default-request-memory=64Mi,max-cpu=2"),
		PodSecurity: ptr.To("restricted"), NetworkIsolation: ptr.To("none"), PriorityClasses: ptr.To("high,batch-high"),
		QPS: ptr.To[int32](50), Burst: ptr.To[int32](100), MaxInflight: ptr.To[int32](20), SleepAfter: ptr.To("30m"),
	}.Apply(policy.Default())
	require.NoError(t, err)
	for name, p := range map[string]policy.Policy{"default": policy.Default(), "full": full} {
		for _, output := range []string{"", "yaml", "json"} {
			file := name + ".txt"
			if output != "" {
				file = name + "." + output
			}
			t.Run(file, func(t *testing.T) {
				var out bytes.Buffer
				require.NoError(t, policyctl.PrintPolicy(&out, output, "acme", p))
				policyGolden(t, file, out.String())
				if output != "" {
					back, err := policy.Parse(out.Bytes())
					require.NoError(t, err)
					assert.Equal(t, p, back)
				}
			})
		}
	}
	var out bytes.Buffer
	assert.EqualError(t, policyctl.PrintPolicy(&out, "wide", "acme", full), `--output must be one of json|yaml, not "wide"`)
}
