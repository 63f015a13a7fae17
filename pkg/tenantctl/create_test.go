package tenantctl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateCreateOptions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       CreateOptions
		wantErr    string
		wantAdmins []string
	}{
		{"default admin", CreateOptions{Name: "acme"}, "", []string{"admin"}},
		{"given admins", CreateOptions{Name: "acme", Admins: []string{"alice", "bob"}}, "", []string{"alice", "bob"}},
		{"reserved kube", CreateOptions{Name: "kube"}, "reserved", nil},
		{"reserved system", CreateOptions{Name: "system"}, "reserved", nil},
		{"reserved tenant", CreateOptions{Name: "tenant"}, "reserved", nil},
		{"reserved zoo", CreateOptions{Name: "zoo"}, "reserved", nil},
		{"separator", CreateOptions{Name: "kube-s"}, "no \"-\"", nil},
		{"too long", CreateOptions{Name: "abcdefghijklm"}, "longer than 12", nil},
		{"duplicate admin", CreateOptions{Name: "acme", Admins: []string{"a", "a"}}, "given twice", nil},
		{"empty admin", CreateOptions{Name: "acme", Admins: []string{""}}, "must not be empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			err := ValidateCreateOptions(&opts)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantAdmins, opts.Admins)
		})
	}
}
