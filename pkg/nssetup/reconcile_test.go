package nssetup

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

func namespace(name, tenant string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if tenant != "" {
		ns.Labels = map[string]string{translate.TenantLabel: tenant}
	}
	return ns
}

func record(name string, admins ...string) *tenantapi.Tenant {
	return &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: tenantapi.TenantSpec{Admins: admins}}
}

// TestTenantOf: a namespace is a tenant's only when both its name and its
// label say so, and a Reconciler of one tenant takes no other's.
func TestTenantOf(t *testing.T) {
	for _, tc := range []struct {
		name, ns, label, only string
		want                  string
	}{
		{name: "named and labeled", ns: "acme-web", label: "acme", want: "acme"},
		{name: "labeled for another tenant", ns: "acme-web", label: "beta"},
		{name: "named for another tenant", ns: "beta-web", label: "acme"},
		{name: "unlabeled", ns: "acme-web"},
		{name: "a prefix without its separator", ns: "acmeweb", label: "acme"},
		{name: "an invalid tenant label", ns: "a-b-web", label: "a-b"},
		{name: "another tenant than the one served", ns: "beta-web", label: "beta", only: "acme"},
		{name: "the tenant served", ns: "acme-web", label: "acme", only: "acme", want: "acme"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Reconciler{cfg: Config{Tenant: tc.only}}
			got, ok := r.tenantOf(namespace(tc.ns, tc.label))
			assert.Equal(t, tc.want != "", ok)
			if ok {
				assert.Equal(t, tc.want, got.Name())
			}
		})
	}
}

// TestSameBinding: the subjects, the role and the labels kubectl-zoo sets
// decide; labels of its own a RoleBinding may keep.
func TestSameBinding(t *testing.T) {
	want, err := adminsRoleBinding(record("acme", "admin"), "acme-web")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		change func(rb *rbacv1.RoleBinding)
		same   bool
	}{
		{name: "as made", change: func(*rbacv1.RoleBinding) {}, same: true},
		{name: "another label kept", change: func(rb *rbacv1.RoleBinding) { rb.Labels["x"] = "y" }, same: true},
		{name: "a subject replaced", change: func(rb *rbacv1.RoleBinding) { rb.Subjects[0].Name = "zoo:acme:nobody" }},
		{name: "a subject added", change: func(rb *rbacv1.RoleBinding) { rb.Subjects = append(rb.Subjects, rb.Subjects[0]) }},
		{name: "no subjects", change: func(rb *rbacv1.RoleBinding) { rb.Subjects = nil }},
		{name: "another role", change: func(rb *rbacv1.RoleBinding) { rb.RoleRef.Name = "view" }},
		{name: "the tenant label gone", change: func(rb *rbacv1.RoleBinding) { delete(rb.Labels, translate.TenantLabel) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have := want.DeepCopy()
			tc.change(have)
			assert.Equal(t, tc.same, sameBinding(have, want))
		})
	}
}

// TestReconcileWritesOnlyWhatIsMissing: a namespace that has what it needs,
// one that is nobody's, one being deleted and a tenant without admins cost
// no upstream request beyond the informers'.
func TestReconcileWritesOnlyWhatIsMissing(t *testing.T) {
	setUp, err := adminsRoleBinding(record("acme", "admin"), "acme-done")
	require.NoError(t, err)
	going := namespace("acme-going", "acme")
	going.Status.Phase = corev1.NamespaceTerminating
	objs := []runtime.Object{namespace("acme-done", "acme"), setUp, namespace("acme-mislabeled", "beta"),
		namespace("beta-foreign", "acme"), going, namespace("solo-web", "solo")}
	kube := fake.NewClientset(objs...)
	records := map[string]*tenantapi.Tenant{"acme": record("acme", "admin"), "solo": record("solo")}
	r, err := New(Config{Kube: kube, Client: policyctl.New(&upstream.Client{Kube: kube}), Upstream: &rest.Config{Host: "https://upstream.invalid"},
		Record: func(_ context.Context, tenant string) (*tenantapi.Tenant, error) { return records[tenant], nil }})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, f := range r.factories {
		f.Start(ctx.Done())
		f.WaitForCacheSync(ctx.Done())
	}
	kube.ClearActions()
	for _, ns := range []string{"acme-done", "acme-mislabeled", "beta-foreign", "acme-going", "solo-web", "acme-gone"} {
		require.NoError(t, r.reconcile(ctx, ns), ns)
	}
	assert.Empty(t, kube.Actions(), "no upstream request")
}

// TestRecordCache: a record is read once per recordTTL; an error is not
// remembered.
func TestRecordCache(t *testing.T) {
	reads := 0
	fail := true
	read := func(context.Context, string) (*tenantapi.Tenant, error) {
		reads++
		if fail {
			return nil, assert.AnError
		}
		return record("acme", "admin"), nil
	}
	c := newRecordCache(read, read)
	now := time.Unix(0, 0)
	c.now = func() time.Time { return now }
	_, err := c.get(t.Context(), "acme")
	require.Error(t, err)
	fail = false
	for range 3 {
		rec, err := c.get(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "acme", rec.Name)
	}
	assert.Equal(t, 2, reads, "the error, then one read")
	now = now.Add(recordTTL)
	_, err = c.get(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, 3, reads, "read again after recordTTL")
	_, err = c.fresh(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, 4, reads, "fresh reads at once")
}
