package certs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// TestSyncGrantsKeepsOnlyValidCertificates: after a revoke (or an issue),
// the grants of a tenant's certificates that may no longer act — revoked,
// expired, no longer recorded, or of the zoo CA — are deleted; the valid
// ones of the cluster's signer stay; another tenant's are not touched.
func TestSyncGrantsKeepsOnlyValidCertificates(t *testing.T) {
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	rec := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"certificates": map[string]any{"issued": []any{
		map[string]any{"serial": "a1", "user": "carol", "signer": "kubernetes", "notAfter": "2026-11-29T00:00:00Z"},
		map[string]any{"serial": "b2", "user": "dave", "signer": "kubernetes", "notAfter": "2026-11-29T00:00:00Z", "revoked": "2026-11-27T00:00:00Z"},
		map[string]any{"serial": "c3", "user": "erin", "signer": "kubernetes", "notAfter": "2026-11-27T00:00:00Z"},
		map[string]any{"serial": "d4", "user": "fay", "signer": "zoo", "notAfter": "2026-11-29T00:00:00Z"},
	}}}}}
	rec.SetAPIVersion(tenantapi.TenantGVR.GroupVersion().String())
	rec.SetKind(tenantapi.TenantKind)
	rec.SetName("acme")
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{tenantapi.TenantGVR: tenantapi.TenantKind + "List"}, rec)
	kube := fake.NewClientset()
	grant := func(tenant, serial string) {
		name := platformobj.CertGrantName(translate.MustTenant(tenant), serial)
		meta := metav1.ObjectMeta{Name: name, Labels: map[string]string{platformobj.CertGrantTenantLabel: tenant}}
		_, err := kube.RbacV1().ClusterRoles().Create(context.Background(), &rbacv1.ClusterRole{ObjectMeta: meta}, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = kube.RbacV1().ClusterRoleBindings().Create(context.Background(), &rbacv1.ClusterRoleBinding{ObjectMeta: meta}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	for _, s := range []string{"a1", "b2", "c3", "d4", "e5"} {
		grant("acme", s)
	}
	grant("beta", "b2")
	c := certs.Client{Kube: kube, Dynamic: dyn, Grants: users.New(&upstream.Client{Kube: kube, Dynamic: dyn})}

	require.NoError(t, certs.SyncGrants(context.Background(), c, "acme", now))
	left, err := kube.RbacV1().ClusterRoleBindings().List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, b := range left.Items {
		names = append(names, b.Name)
	}
	assert.ElementsMatch(t, []string{"zoo:cert:acme:a1", "zoo:cert:beta:b2"}, names)
	roles, err := kube.RbacV1().ClusterRoles().List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, r := range roles.Items {
		assert.True(t, r.Name == "zoo:cert:acme:a1" || strings.HasPrefix(r.Name, "zoo:cert:beta:"), "role %s is gone with its binding", r.Name)
	}
}
