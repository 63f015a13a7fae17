package verify_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/verify"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestVerifyEnvironmentRelabeled: a tenant's namespace the platform admin
// relabels Pod Security privileged is reported by the environment section
// as escaped, and so are the pod checks Pod Security held before and
// nothing else but the relabel itself; verify exits non-zero with one line.
func TestVerifyEnvironmentRelabeled(t *testing.T) {
	install(t)
	const tenant = "vrelabel"
	framework.MustZoo(t, "tenant", "create", tenant)
	t.Cleanup(func() { framework.MustZoo(t, "tenant", "delete", tenant) })
	res, healthy := runVerify(t, "--tenant", tenant)
	require.NoError(t, res.Err, "stderr: %s", res.Stderr)
	require.NotNil(t, healthy)
	heldByPodSecurity := map[string]bool{}
	for _, r := range healthy.Results {
		if r.Class == verify.ClassEnvironment { // the data plane's does not apply
			assert.Contains(t, []verify.Status{verify.Held, verify.NotApplicable}, r.Status, "%s: %s", key(r), r.Detail)
		}
		if r.Layer == "Pod Security (baseline)" {
			heldByPodSecurity[key(r)] = true
		}
	}
	require.NotEmpty(t, heldByPodSecurity)

	patch := []byte(`{"metadata":{"labels":{"` + translate.PodSecurityEnforce + `":"privileged"}}}`)
	_, err := framework.AdminClient(t).CoreV1().Namespaces().Patch(t.Context(), tenant+"-default", types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
	res, broken := runVerify(t, "--tenant", tenant)
	framework.RequireOneLineError(t, res, "attempts escaped")
	require.NotNil(t, broken)
	escaped := map[string]bool{}
	for _, r := range broken.Results {
		if r.Status == verify.Escaped {
			escaped[key(r)] = true
		}
	}
	assert.True(t, escaped[verify.EnvPodSecurityID+" []"], "the environment does not report the relabeled namespace: %v", escaped)
	for k := range heldByPodSecurity {
		assert.True(t, escaped[k], "%s held before and does not escape", k)
	}
	for k := range escaped {
		// Relabeling the namespace privileged, which it already is, is
		// admitted (it changes nothing): metadata/pod-security escapes too.
		other := strings.HasPrefix(k, verify.EnvPodSecurityID+" ") || strings.HasPrefix(k, "metadata/pod-security ")
		assert.True(t, heldByPodSecurity[k] || other, "%s escaped; Pod Security did not hold it", k)
	}
}
