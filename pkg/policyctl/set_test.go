package policyctl

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// TestChangePolicyRetriesOnConflict: a concurrent writer of the record
// (a Conflict on the update) makes ChangePolicy read and change again, so
// the other write and this one both survive; the stored policy is whole
// and the legacy annotation is gone.
func TestChangePolicyRetriesOnConflict(t *testing.T) {
	rec := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme", ResourceVersion: "1",
		Annotations: map[string]string{translate.PodSecurityLevelAnnotation: "privileged"}}, Spec: tenantapi.TenantSpec{Admins: []string{"admin"}}}
	u, err := rec.ToUnstructured()
	require.NoError(t, err)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{tenantapi.TenantGVR: tenantapi.TenantKind + "List"}, u)
	conflicts := 1
	updates := 0
	dyn.PrependReactor("update", tenantapi.TenantResource, func(action k8stesting.Action) (bool, runtime.Object, error) {
		updates++
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(tenantapi.TenantGVR.GroupResource(), "acme", nil)
		}
		return false, nil, nil
	})
	c := &Client{Client: &upstream.Client{Dynamic: dyn}}
	seen := 0
	stored, err := c.ChangePolicy(context.Background(), "acme", func(cur policy.Policy) (policy.Policy, error) {
		seen++
		assert.Equal(t, "privileged", cur.PodSecurity, "the legacy level is the starting point")
		return policy.Change{PriorityClasses: ptr.To("gold")}.Apply(cur)
	})
	require.NoError(t, err)
	assert.Equal(t, 2, seen, "read and changed again after the Conflict")
	assert.Equal(t, 2, updates)
	want := policy.Policy{PodSecurity: "privileged", NetworkIsolation: policy.NetworkIsolationTenant, PriorityClasses: []string{"gold"}}
	assert.Equal(t, want, stored)

	got, err := dyn.Resource(tenantapi.TenantGVR).Get(context.Background(), "acme", metav1.GetOptions{})
	require.NoError(t, err)
	back, err := tenantapi.TenantFromUnstructured(got)
	require.NoError(t, err)
	assert.NotContains(t, back.Annotations, translate.PodSecurityLevelAnnotation, "moved into spec.policy")
	p, err := tenantapi.PolicyOf(back)
	require.NoError(t, err)
	assert.Equal(t, want, p, "the record holds the whole policy")

	_, err = c.ChangePolicy(context.Background(), "ghost", func(cur policy.Policy) (policy.Policy, error) { return cur, nil })
	assert.EqualError(t, err, `tenant "ghost" does not exist`)
}
