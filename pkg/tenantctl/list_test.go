package tenantctl

import (
	"bytes"
	"testing"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPrintTableAndDescribe(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ready := &tenantapi.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "acme", CreationTimestamp: metav1.NewTime(now.Add(-90 * time.Minute))},
		Spec:       tenantapi.TenantSpec{Admins: []string{"alice", "bob"}, DisplayName: "ACME Corp"},
		Status: tenantapi.TenantStatus{Conditions: []metav1.Condition{{
			Type: tenantapi.ConditionReady, Status: metav1.ConditionTrue, Reason: "Reconciled", Message: "ok",
		}}},
	}
	deleting := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "beta", CreationTimestamp: metav1.NewTime(now.Add(-3 * 24 * time.Hour)),
		DeletionTimestamp: &metav1.Time{Time: now}}}
	fresh := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "gamma"}}

	var table bytes.Buffer
	require.NoError(t, PrintTable(&table, []TenantInfo{
		{Tenant: ready, Namespaces: []string{"acme-default", "acme-web"}},
		{Tenant: deleting},
		{Tenant: fresh},
	}, now))
	assert.Equal(t, `NAME    NAMESPACES   STATUS        SLEEP   ADMINS      AGE
acme    2            Ready         awake   alice,bob   90m
beta    0            Terminating   awake               3d
gamma   0            NotReady      awake               <unknown>
`, table.String())

	var details bytes.Buffer
	require.NoError(t, Describe(&details, TenantInfo{Tenant: ready, Namespaces: []string{"acme-default", "acme-web"}}, now))
	for _, want := range []string{
		"Name:", "acme", "Display name:", "ACME Corp", "Upstream prefix:", "acme-", "Tenant group:", "zoo:tenant:acme",
		"alice (zoo:acme:alice), bob (zoo:acme:bob)", "default", "→ acme-default", "web", "→ acme-web",
		"Condition Ready:", "True (Reconciled) ok", "kubectl zoo serve --tenant acme",
	} {
		assert.Contains(t, details.String(), want)
	}
}

func TestTenantRoundTrip(t *testing.T) {
	in := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}, Spec: tenantapi.TenantSpec{Admins: []string{"admin"}}, Status: tenantapi.TenantStatus{Namespaces: 4}}
	u, err := in.ToUnstructured()
	require.NoError(t, err)
	assert.Equal(t, "zoo.kubectl-zoo.io/v1alpha1", u.GetAPIVersion())
	assert.Equal(t, "Tenant", u.GetKind())
	_, found := u.Object["metadata"].(map[string]any)["creationTimestamp"]
	assert.False(t, found, "no null creationTimestamp in what is applied")
	out, err := tenantapi.TenantFromUnstructured(u)
	require.NoError(t, err)
	assert.Equal(t, in.Spec, out.Spec)
	assert.Equal(t, int32(4), out.Status.Namespaces)
}
