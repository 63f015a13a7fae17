package zooserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestTransformTenantKeepsRevokedSerials: the informer's copy of a record
// keeps the revoked serials only, stays deep-copyable, and a record without
// certificates revokes nothing.
func TestTransformTenantKeepsRevokedSerials(t *testing.T) {
	record := func(certificates any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "zoo.kubectl-zoo.io/v1alpha1", "kind": "Tenant",
			"metadata": map[string]any{"name": "acme", "managedFields": []any{map[string]any{"manager": "x"}}},
			"spec":     map[string]any{"admins": []any{"admin"}},
		}}
		if certificates != nil {
			require.NoError(t, unstructured.SetNestedField(u.Object, certificates, "spec", "certificates"))
		}
		return u
	}
	issued := map[string]any{"issued": []any{
		map[string]any{"serial": "aa", "user": "alice", "signer": "zoo", "notAfter": "2030-01-01T00:00:00Z", "revoked": "2026-01-01T00:00:00Z"},
		map[string]any{"serial": "bb", "user": "bob", "signer": "kubernetes", "notAfter": "2030-01-01T00:00:00Z"},
	}}
	for _, tc := range []struct {
		name    string
		in      *unstructured.Unstructured
		revoked map[string]bool
	}{
		{"no certificates", record(nil), map[string]bool{"aa": false, "bb": false}},
		{"one revoked, one valid", record(issued), map[string]bool{"aa": true, "bb": false, "cc": false}},
		{"malformed certificates revoke nothing", record(map[string]any{"issued": "nonsense"}), map[string]bool{"aa": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := transformTenant(tc.in)
			require.NoError(t, err)
			u := out.(*unstructured.Unstructured)
			assert.Empty(t, u.GetManagedFields())
			_, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "certificates")
			assert.False(t, found, "the records themselves are not kept")
			admins, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "admins")
			assert.Equal(t, []string{"admin"}, admins)
			copied := u.DeepCopy()
			for serial, want := range tc.revoked {
				assert.Equal(t, want, revokedIn(u, serial), serial)
				assert.Equal(t, want, revokedIn(copied, serial), "deep copy: %s", serial)
			}
		})
	}
}
