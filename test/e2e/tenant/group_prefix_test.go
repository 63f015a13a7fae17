package tenant_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// platformCRD is a CRD of the platform whose group starts with "plat-".
const platformCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: issuers.plat-manager.io}
spec:
  group: plat-manager.io
  scope: Cluster
  names: {plural: issuers, singular: issuer, kind: Issuer}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

// TestTenantNameMayNotTakeAPlatformGroup: a tenant named like the prefix of
// an API group the platform serves (cert-manager.io for a tenant "cert")
// would take that group for one of its own; tenant create refuses the name,
// and a tenant's own CRD groups do not stop a re-run of create.
func TestTenantNameMayNotTakeAPlatformGroup(t *testing.T) {
	install(t)
	res := framework.Run(t.Context(), []byte(platformCRD), framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	require.Eventually(t, func() bool {
		return strings.Contains(framework.Kubectl(t, "api-versions"), "plat-manager.io/v1")
	}, time.Minute, 200*time.Millisecond, "the platform's group is never served")

	got := zoo(t, "tenant", "create", "plat")
	require.Error(t, got.Err, "tenant plat was created over the platform's group plat-manager.io")
	assert.Contains(t, got.Stderr, "the cluster serves the API group plat-manager.io, which tenant \"plat\" would take for one of its own")
	assert.NotContains(t, strings.TrimSpace(got.Stderr), "\n", "one line")
	framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "delete", "crd", "issuers.plat-manager.io")
}
