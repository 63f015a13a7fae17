package server_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestAttackAPIAccessUnderAFullQuota: a tenant whose ResourceQuota leaves
// no room for the ConfigMap its pods read their API access from gets its
// pod write refused with the upstream's 403 naming the quota — a refusal
// it can act on, not an internal error of the server — and nothing is
// written.
func TestAttackAPIAccessUnderAFullQuota(t *testing.T) {
	_, acme, _ := workloadServer(t)
	kubectlIn(t, acme, "", "create", "namespace", "quotafull")
	kubectlIn(t, acme, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: cms, namespace: quotafull}\nspec: {hard: {configmaps: \"1\"}}\n",
		"apply", "-f", "-")
	require.Eventually(t, func() bool { // kube-root-ca.crt fills it
		q, err := framework.AdminClient(t).CoreV1().ResourceQuotas("acme-quotafull").Get(t.Context(), "cms", metav1.GetOptions{})
		return err == nil && q.Status.Used.Name("configmaps", resource.DecimalSI).Value() == 1
	}, time.Minute, 200*time.Millisecond)
	stderr := kubectlFails(t, acme, "", "run", "quota-pod", "-n", "quotafull", "--image=registry.example/app:1")
	assert.Contains(t, stderr, "Forbidden")
	assert.Contains(t, stderr, "exceeded quota")
	assert.NotContains(t, stderr, "InternalError")
	_, err := framework.AdminClient(t).CoreV1().Pods("acme-quotafull").Get(t.Context(), "quota-pod", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	_, err = framework.AdminClient(t).CoreV1().ConfigMaps("acme-quotafull").Get(t.Context(), translate.APIAccessName, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	kubectlIn(t, acme, "", "delete", "namespace", "quotafull", "--wait=false")
}
