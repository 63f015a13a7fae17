package tenant_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	zooinstall "github.com/kubectl-zoo/kubectl-zoo/pkg/install"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// installed returns the version of every install object, keyed by
// "kind/name": its generation (spec changes only: controllers update the
// status of CRDs and policies on their own), or its resourceVersion for kinds
// without one. Missing objects are absent.
func installed(t *testing.T) map[string]string {
	t.Helper()
	dyn := dynamicClient(t)
	out := map[string]string{}
	for _, obj := range zooinstall.InstallObjects(admissionrules.InstallConfig{}) {
		u, err := upstream.ToUnstructured(obj)
		require.NoError(t, err)
		gvk := u.GroupVersionKind()
		resource := strings.ToLower(gvk.Kind) + "s"
		if gvk.Kind == "ValidatingAdmissionPolicy" {
			resource = "validatingadmissionpolicies"
		}
		got, err := dyn.Resource(gvk.GroupVersion().WithResource(resource)).Get(t.Context(), u.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		require.NoError(t, err)
		version := got.GetResourceVersion()
		if got.GetGeneration() > 0 {
			version = "generation " + strconv.FormatInt(got.GetGeneration(), 10)
		}
		out[gvk.Kind+"/"+u.GetName()] = version
	}
	return out
}

// TestInstall covers install, re-install, --dry-run, and uninstall with and
// without tenants.
func TestInstall(t *testing.T) {
	mustZoo(t, "install", "--uninstall", "--force")
	require.Empty(t, installed(t))

	// Without the install, tenant commands say so in one line.
	framework.RequireOneLineError(t, zoo(t, "tenant", "create", "early"), "not installed")
	framework.RequireOneLineError(t, zoo(t, "tenant", "list"), "not installed")

	// --dry-run=client prints everything and changes nothing.
	out := mustZoo(t, "install", "--dry-run=client", "-o", "yaml")
	docs := strings.Split(out, "\n---\n")
	require.Len(t, docs, len(zooinstall.InstallObjects(admissionrules.InstallConfig{})))
	kinds := map[string]int{}
	for _, doc := range docs {
		u := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
		kinds[u.GetKind()]++
	}
	assert.Equal(t, map[string]int{"CustomResourceDefinition": 1, "ClusterRole": 8, "ClusterRoleBinding": 3, "ValidatingAdmissionPolicy": 9, "ValidatingAdmissionPolicyBinding": 10}, kinds)
	mustZoo(t, "install", "--dry-run=server")
	require.Empty(t, installed(t), "a dry run must not create anything")

	// Install, then install again: nothing changes the second time.
	out = mustZoo(t, "install")
	assert.Contains(t, out, "customresourcedefinition.apiextensions.k8s.io/tenants.zoo.kubectl-zoo.io serverside-applied")
	first := installed(t)
	require.Len(t, first, len(zooinstall.InstallObjects(admissionrules.InstallConfig{})))
	mustZoo(t, "install")
	assert.Equal(t, first, installed(t), "re-install must be a no-op")

	// An upgrade (here: a hand-edited policy) is put back by install.
	framework.Kubectl(t, "patch", "validatingadmissionpolicy", tenantapi.TenantPolicy, "--type=json",
		"-p", `[{"op":"replace","path":"/spec/failurePolicy","value":"Ignore"}]`)
	mustZoo(t, "install")
	assert.Equal(t, "Fail", framework.Kubectl(t, "get", "validatingadmissionpolicy", tenantapi.TenantPolicy, "-o", "jsonpath={.spec.failurePolicy}"))

	// Uninstall refuses while tenants exist, and --force deletes them too.
	mustZoo(t, "tenant", "create", "uninst")
	framework.RequireOneLineError(t, zoo(t, "install", "--uninstall"), "refusing to uninstall: 1 tenant(s) exist (uninst)")
	assert.Len(t, installed(t), len(zooinstall.InstallObjects(admissionrules.InstallConfig{})))
	mustZoo(t, "install", "--uninstall", "--force")
	assert.Empty(t, installed(t))
	ns, err := framework.AdminClient(t).CoreV1().Namespaces().Get(t.Context(), "uninst-default", metav1.GetOptions{})
	if err == nil {
		assert.NotNil(t, ns.DeletionTimestamp, "the forced uninstall must delete the tenant's namespaces")
	} else {
		assert.True(t, apierrors.IsNotFound(err), err)
	}
	_, err = framework.AdminClient(t).RbacV1().ClusterRoles().Get(t.Context(), "uninst-admin", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the tenant's ClusterRoles must be gone: %v", err)

	install(t)
}
