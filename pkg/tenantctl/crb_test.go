package tenantctl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func TestClusterRoleBindingStorage(t *testing.T) {
	acme := translate.MustTenant("acme")
	subjects := []rbacv1.Subject{
		{Kind: "User", APIGroup: rbacv1.GroupName, Name: "zoo:acme:dev"},
		{Kind: "ServiceAccount", Name: "builder", Namespace: "acme-default"},
	}
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "acme-readers"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "acme-view"},
		Subjects:   subjects,
	}
	stored, err := StoreClusterRoleBinding(acme, crb)
	require.NoError(t, err)
	assert.Empty(t, stored.Subjects, "stored upstream without subjects")
	assert.Equal(t, "acme", stored.Labels[translate.TenantLabel])
	assert.Equal(t, subjects, crb.Subjects, "the input is not modified")
	got, err := StoredSubjects(stored)
	require.NoError(t, err)
	assert.Equal(t, subjects, got)

	rb, err := MaterializeClusterRoleBinding(acme, stored, "acme-web")
	require.NoError(t, err)
	assert.Equal(t, "zoo-crb-acme-readers", rb.Name)
	assert.Equal(t, "acme-web", rb.Namespace)
	assert.Equal(t, crb.RoleRef, rb.RoleRef)
	assert.Equal(t, subjects, rb.Subjects)
	assert.Equal(t, "acme-readers", rb.Labels[MaterializedFromLabel])

	for _, tc := range []struct {
		name, crb, namespace, want string
	}{
		{"foreign namespace", "acme-readers", "acmeb-web", "namespace"},
		{"system namespace", "acme-readers", "kube-system", "namespace"},
		{"foreign binding", "acmeb-readers", "acme-web", "does not belong"},
		{"bare prefix", "acme", "acme-web", "does not belong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := stored.DeepCopy()
			c.Name = tc.crb
			_, err := MaterializeClusterRoleBinding(acme, c, tc.namespace)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err = StoreClusterRoleBinding(acme, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin"}})
	assert.Error(t, err)
	_, err = StoredSubjects(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{SubjectsAnnotation: "{"}}})
	assert.Error(t, err)
}
