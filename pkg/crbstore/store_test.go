package crbstore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

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
	stored, err := Store(acme, crb)
	require.NoError(t, err)
	assert.Empty(t, stored.Subjects, "stored upstream without subjects")
	assert.Equal(t, "acme", stored.Labels[translate.TenantLabel])
	assert.Equal(t, subjects, crb.Subjects, "the input is not modified")
	got, err := Subjects(stored)
	require.NoError(t, err)
	assert.Equal(t, subjects, got)

	rb, err := Materialize(acme, stored, "acme-web")
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
			_, err := Materialize(acme, c, tc.namespace)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err = Store(acme, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin"}})
	assert.Error(t, err)
	_, err = Subjects(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{SubjectsAnnotation: "{"}}})
	assert.Error(t, err)
}

func TestMaterializedNames(t *testing.T) {
	acme := translate.MustTenant("acme")
	long := "acme-" + strings.Repeat("x", 70)
	for _, tc := range []struct {
		name, crb, wantRB string
		hashed            bool
	}{
		{"plain", "acme-readers", "zoo-crb-acme-readers", false},
		{"colon", "acme-system:coredns", "zoo-crb-acme-system:coredns", true},
		{"longer than a label", long, "zoo-crb-" + long, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored, err := Store(acme, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: tc.crb},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "acme-view"},
			})
			require.NoError(t, err)
			rb, err := Materialize(acme, stored, "acme-default")
			require.NoError(t, err)
			assert.Equal(t, tc.wantRB, rb.Name)
			value := rb.Labels[MaterializedFromLabel]
			assert.Equal(t, LabelValue(tc.crb), value)
			assert.Empty(t, validation.IsValidLabelValue(value), "a valid label value")
			assert.Equal(t, tc.hashed, value != tc.crb)
			assert.True(t, strings.HasPrefix(rb.Name, MaterializedPrefix))
		})
	}
	assert.NotEqual(t, LabelValue("acme-a:b"), LabelValue("acme-a:c"))

	t.Run("generateName", func(t *testing.T) {
		stored, err := Store(acme, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{GenerateName: "acme-r-"}})
		require.NoError(t, err)
		assert.Equal(t, "acme-r-", stored.GenerateName)
		_, err = Store(acme, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{GenerateName: "beta-r-"}})
		assert.ErrorContains(t, err, "generateName")
	})
	t.Run("no subjects", func(t *testing.T) {
		stored, err := Store(acme, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "acme-none"}})
		require.NoError(t, err)
		got, err := Subjects(stored)
		require.NoError(t, err)
		assert.Empty(t, got)
	})
}

// TestStoreOverwritesForgedSubjects: the annotation a tenant sends is never
// what is stored; the binding's own subjects are.
func TestStoreOverwritesForgedSubjects(t *testing.T) {
	acme := translate.MustTenant("acme")
	stored, err := Store(acme, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "acme-readers", Annotations: map[string]string{
			SubjectsAnnotation: `[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:masters"}]`}},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "zoo:acme:dev"}},
	})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"zoo:acme:dev"}]`, stored.Annotations[SubjectsAnnotation])
}

func TestReservedAndHidden(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reserved bool
	}{
		{"zoo-crb-acme-readers", true}, {"zoo-crb-", true}, {"zoo-crb", false}, {"my-zoo-crb-x", false}, {"Zoo-crb-x", false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.reserved, Reserved(tc.name)) })
	}
	assert.Equal(t, "!zoo.kubectl-zoo.io/clusterrolebinding", HiddenSelector(""))
	assert.Equal(t, "a=b,!zoo.kubectl-zoo.io/clusterrolebinding", HiddenSelector("a=b"))
}
