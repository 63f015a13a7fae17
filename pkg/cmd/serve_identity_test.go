package cmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/zooserver"
)

func TestServeAsTenantIdentity(t *testing.T) {
	acme, err := translate.NewTenant("acme")
	require.NoError(t, err)
	id := zooserver.Identity{Tenant: acme, User: "alice", Groups: []string{"dev", "qa"}}
	for _, tc := range []struct {
		name string
		o    ServeOptions
		want string // "" when served
	}{
		{"no flags", ServeOptions{User: translate.DefaultAdminUser}, ""},
		{"agreeing flags", ServeOptions{Tenant: "acme", User: "alice", userSet: true, Groups: []string{"qa"}}, ""},
		{"another tenant", ServeOptions{Tenant: "beta"}, `--tenant beta contradicts your credential: your credential is user "alice" of tenant acme`},
		{"another user", ServeOptions{User: "admin", userSet: true}, "--user admin contradicts your credential"},
		{"a group it is not in", ServeOptions{Groups: []string{"ops"}}, "--group ops contradicts your credential: your credential is user \"alice\" of tenant acme in groups [dev, qa]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			err := o.serveAs(id)
			if tc.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				assert.False(t, o.direct)
				return
			}
			require.NoError(t, err)
			assert.True(t, o.direct)
			assert.Equal(t, "acme", o.Tenant)
			assert.Equal(t, "alice", o.User)
			assert.Equal(t, []string{"dev", "qa"}, o.Groups)
		})
	}
}
