package crbstore

import (
	"context"
	"net/http"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

var rbGVR = rbacv1.SchemeGroupVersion.WithResource("rolebindings")
var crbGVR = rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings")

// storedCRB is the stored form of tenant acme's binding name (upstream)
// granting role to the users, at resourceVersion rv.
func storedCRB(t *testing.T, name, role, rv string, users ...string) *rbacv1.ClusterRoleBinding {
	t.Helper()
	var subjects []rbacv1.Subject
	for _, u := range users {
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: u})
	}
	crb, err := Store(translate.MustTenant("acme"), &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   subjects,
	})
	require.NoError(t, err)
	return crb
}

// newGrants returns Grants of tenant acme over a fake cluster holding objs,
// with the tenant namespaces namespaces. The fake serves deletecollection
// with a label selector, as the API server does.
func newGrants(t *testing.T, namespaces []string, objs ...runtime.Object) (*Grants, *fake.Clientset) {
	t.Helper()
	cs := fake.NewClientset(objs...)
	cs.PrependReactor("delete-collection", "rolebindings", func(a k8stesting.Action) (bool, runtime.Object, error) {
		dc := a.(k8stesting.DeleteCollectionAction)
		sel, err := labels.Parse(dc.GetListRestrictions().Labels.String())
		if err != nil {
			return true, nil, err
		}
		list, err := cs.Tracker().List(rbGVR, rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), dc.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		for _, rb := range list.(*rbacv1.RoleBindingList).Items {
			if sel.Matches(labels.Set(rb.Labels)) {
				if err := cs.Tracker().Delete(rbGVR, rb.Namespace, rb.Name); err != nil {
					return true, nil, err
				}
			}
		}
		return true, nil, nil
	})
	g := &Grants{Tenant: translate.MustTenant("acme"), AsTenant: cs.RbacV1(), Own: cs.RbacV1(),
		Namespaces: func(context.Context) ([]string, error) { return namespaces, nil }}
	return g, cs
}

// granted returns, per namespace, the users the materialized RoleBinding of
// the binding name grants (nil when there is none).
func granted(t *testing.T, cs *fake.Clientset, name string, namespaces ...string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, ns := range namespaces {
		rb, err := cs.RbacV1().RoleBindings(ns).Get(t.Context(), RoleBindingName(name), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			out[ns] = nil
			continue
		}
		require.NoError(t, err)
		users := []string{}
		for _, s := range rb.Subjects {
			users = append(users, s.Name)
		}
		sort.Strings(users)
		out[ns] = users
	}
	return out
}

func TestGrantsMaterialize(t *testing.T) {
	namespaces := []string{"acme-default", "acme-web"}
	for _, tc := range []struct {
		name string
		// existing RoleBindings before the grant
		existing []runtime.Object
		// during runs once, at the first RoleBinding write, as a
		// concurrent writer would
		during func(t *testing.T, cs *fake.Clientset)
		want   map[string][]string
	}{
		{name: "creates one per namespace",
			want: map[string][]string{"acme-default": {"zoo:acme:dev"}, "acme-web": {"zoo:acme:dev"}}},
		{name: "updates moved subjects",
			existing: []runtime.Object{&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "zoo-crb-acme-readers", Namespace: "acme-web"},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "acme-reader"},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "zoo:acme:old"}}}},
			want: map[string][]string{"acme-default": {"zoo:acme:dev"}, "acme-web": {"zoo:acme:dev"}}},
		{name: "replaces a changed roleRef",
			existing: []runtime.Object{&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "zoo-crb-acme-readers", Namespace: "acme-web"},
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "acme-admin"}}},
			want: map[string][]string{"acme-default": {"zoo:acme:dev"}, "acme-web": {"zoo:acme:dev"}}},
		{name: "a concurrent delete revokes",
			during: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.Tracker().Delete(crbGVR, "", "acme-readers"))
			},
			want: map[string][]string{"acme-default": nil, "acme-web": nil}},
		{name: "a concurrent update wins",
			during: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.Tracker().Update(crbGVR, storedCRB(t, "acme-readers", "acme-reader", "2", "zoo:acme:ops"), ""))
			},
			want: map[string][]string{"acme-default": {"zoo:acme:ops"}, "acme-web": {"zoo:acme:ops"}}},
		{name: "annotation dropped directly upstream revokes",
			during: func(t *testing.T, cs *fake.Clientset) {
				c := storedCRB(t, "acme-readers", "acme-reader", "2")
				delete(c.Annotations, SubjectsAnnotation)
				require.NoError(t, cs.Tracker().Update(crbGVR, c, ""))
			},
			want: map[string][]string{"acme-default": nil, "acme-web": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := storedCRB(t, "acme-readers", "acme-reader", "1", "zoo:acme:dev")
			g, cs := newGrants(t, namespaces, append(tc.existing, stored)...)
			if tc.during != nil {
				done := false
				cs.PrependReactor("*", "rolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
					if !done {
						done = true
						tc.during(t, cs)
					}
					return false, nil, nil
				})
			}
			require.NoError(t, g.Materialize(t.Context(), stored))
			assert.Equal(t, tc.want, granted(t, cs, "acme-readers", namespaces...))
			rb, err := cs.RbacV1().RoleBindings("acme-web").Get(t.Context(), "zoo-crb-acme-readers", metav1.GetOptions{})
			if err == nil {
				assert.Equal(t, "acme-reader", rb.RoleRef.Name)
				assert.Equal(t, map[string]string{translate.TenantLabel: "acme", MaterializedFromLabel: "acme-readers"}, rb.Labels)
			}
		})
	}
}

func TestGrantsMaterializeInto(t *testing.T) {
	readers := storedCRB(t, "acme-readers", "acme-reader", "1", "zoo:acme:dev")
	foreign := storedCRB(t, "acme-readers", "acme-reader", "1", "zoo:acme:dev")
	foreign.Name, foreign.Labels[translate.TenantLabel] = "acmeb-readers", "acmeb"
	unstored := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "acme-plain", Labels: map[string]string{translate.TenantLabel: "acme"}}}

	t.Run("every stored binding of the tenant, no other", func(t *testing.T) {
		g, cs := newGrants(t, nil, readers.DeepCopy(), foreign, unstored)
		require.NoError(t, g.MaterializeInto(t.Context(), "acme-new"))
		list, err := cs.RbacV1().RoleBindings("acme-new").List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		require.Len(t, list.Items, 1)
		assert.Equal(t, "zoo-crb-acme-readers", list.Items[0].Name)
	})
	t.Run("a binding deleted meanwhile is revoked", func(t *testing.T) {
		g, cs := newGrants(t, nil, readers.DeepCopy())
		cs.PrependReactor("create", "rolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
			_ = cs.Tracker().Delete(crbGVR, "", "acme-readers")
			return false, nil, nil
		})
		require.NoError(t, g.MaterializeInto(t.Context(), "acme-new"))
		assert.Equal(t, map[string][]string{"acme-new": nil}, granted(t, cs, "acme-readers", "acme-new"))
	})
	t.Run("a binding updated meanwhile is granted as stored", func(t *testing.T) {
		g, cs := newGrants(t, nil, readers.DeepCopy())
		done := false
		cs.PrependReactor("create", "rolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
			if !done {
				done = true
				require.NoError(t, cs.Tracker().Update(crbGVR, storedCRB(t, "acme-readers", "acme-reader", "2", "zoo:acme:ops"), ""))
			}
			return false, nil, nil
		})
		require.NoError(t, g.MaterializeInto(t.Context(), "acme-new"))
		assert.Equal(t, map[string][]string{"acme-new": {"zoo:acme:ops"}}, granted(t, cs, "acme-readers", "acme-new"))
	})
	t.Run("a terminating namespace needs none", func(t *testing.T) {
		g, cs := newGrants(t, nil, readers.DeepCopy())
		cs.PrependReactor("create", "rolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
			err := apierrors.NewForbidden(rbGVR.GroupResource(), "zoo-crb-acme-readers", nil)
			err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
			return true, nil, err
		})
		require.NoError(t, g.MaterializeInto(t.Context(), "acme-old"))
	})
	t.Run("a refused RoleBinding is an error", func(t *testing.T) {
		g, cs := newGrants(t, nil, readers.DeepCopy())
		cs.PrependReactor("create", "rolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, &apierrors.StatusError{ErrStatus: metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: "denied by admission"}}
		})
		assert.ErrorContains(t, g.MaterializeInto(t.Context(), "acme-new"), "denied by admission")
	})
}

func TestGrantsRevokeAndPrune(t *testing.T) {
	namespaces := []string{"acme-default", "acme-web"}
	readers := storedCRB(t, "acme-readers", "acme-reader", "1", "zoo:acme:dev")
	writers := storedCRB(t, "acme-writers", "acme-writer", "1", "zoo:acme:ops")
	mine := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "acme-web"}}
	setup := func(t *testing.T) (*Grants, *fake.Clientset) {
		g, cs := newGrants(t, namespaces, readers.DeepCopy(), writers.DeepCopy(), mine.DeepCopy())
		require.NoError(t, g.Materialize(t.Context(), readers))
		require.NoError(t, g.Materialize(t.Context(), writers))
		return g, cs
	}
	t.Run("revoke one", func(t *testing.T) {
		g, cs := setup(t)
		require.NoError(t, g.Revoke(t.Context(), "acme-readers"))
		assert.Equal(t, map[string][]string{"acme-default": nil, "acme-web": nil}, granted(t, cs, "acme-readers", namespaces...))
		assert.Equal(t, map[string][]string{"acme-default": {"zoo:acme:ops"}, "acme-web": {"zoo:acme:ops"}}, granted(t, cs, "acme-writers", namespaces...))
	})
	t.Run("prune what is gone", func(t *testing.T) {
		g, cs := setup(t)
		require.NoError(t, cs.Tracker().Delete(crbGVR, "", "acme-writers"))
		require.NoError(t, g.Prune(t.Context()))
		assert.Equal(t, map[string][]string{"acme-default": nil, "acme-web": nil}, granted(t, cs, "acme-writers", namespaces...))
		assert.Equal(t, map[string][]string{"acme-default": {"zoo:acme:dev"}, "acme-web": {"zoo:acme:dev"}}, granted(t, cs, "acme-readers", namespaces...))
		_, err := cs.RbacV1().RoleBindings("acme-web").Get(t.Context(), "mine", metav1.GetOptions{})
		assert.NoError(t, err, "the tenant's own RoleBinding stays")
	})
}
