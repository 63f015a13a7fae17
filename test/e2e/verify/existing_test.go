package verify_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/verify"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestVerifyExistingTenant: `verify --tenant T` checks an existing tenant
// through serve and as its admin, every attempt holding or not applying
// with a reason, and makes nothing: no scratch tenant, nothing named
// zoo-verify in T.
func TestVerifyExistingTenant(t *testing.T) {
	install(t)
	const tenant = "vexisting"
	framework.MustZoo(t, "tenant", "create", tenant)
	t.Cleanup(func() { framework.MustZoo(t, "tenant", "delete", tenant) })
	res, rep := runVerify(t, "--tenant", tenant)
	require.NoError(t, res.Err, "stderr: %s", res.Stderr)
	require.NotNil(t, rep)
	assert.Equal(t, tenant, rep.Attacker)
	notOnExisting := 0
	for _, r := range rep.Results {
		assert.NotEqual(t, verify.PathServiceAccount, r.Path, "%s: --tenant makes no ServiceAccount", key(r))
		switch r.Status {
		case verify.Held:
		case verify.NotApplicable:
			if strings.Contains(r.Detail, "--tenant") {
				notOnExisting++
			}
		default:
			t.Errorf("%s: %s (%s)", key(r), r.Status, r.Detail)
		}
	}
	assert.Positive(t, notOnExisting, "the checks of scratch objects and real writes say why they do not apply")
	assert.Positive(t, rep.Count(verify.Held))

	ctx, kube := t.Context(), framework.AdminClient(t)
	ns := tenant + "-default"
	sas, err := kube.CoreV1().ServiceAccounts(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, sa := range sas.Items {
		assert.False(t, strings.HasPrefix(sa.Name, verify.ScratchObject), "verify made ServiceAccount %s", sa.Name)
	}
	rbs, err := kube.RbacV1().RoleBindings(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, rb := range rbs.Items {
		assert.False(t, strings.HasPrefix(rb.Name, verify.ScratchObject), "verify made RoleBinding %s", rb.Name)
	}
	pts, err := kube.CoreV1().PodTemplates(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, pts.Items, "verify made a PodTemplate")
	requireNothingLeft(t)
}
