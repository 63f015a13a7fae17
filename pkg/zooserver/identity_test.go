package zooserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestIdentityOf(t *testing.T) {
	tests := []struct {
		name       string
		user       string
		groups     []string
		wantTenant string
		wantUser   string
		wantGroups []string
		wantErr    string
	}{
		{name: "tenant user", user: "zoo:acme:alice", groups: []string{"zoo:tenant:acme", "system:authenticated"},
			wantTenant: "acme", wantUser: "alice"},
		{name: "tenant groups", user: "zoo:acme:alice", groups: []string{"zoo:acme:devs", "zoo:tenant:acme", "zoo:acme:devs", "zoo:acme:ops"},
			wantTenant: "acme", wantUser: "alice", wantGroups: []string{"devs", "ops"}},
		{name: "user name with colons", user: "zoo:acme:oidc:alice", groups: []string{"zoo:tenant:acme"},
			wantTenant: "acme", wantUser: "oidc:alice"},
		{name: "CN and O name different tenants", user: "zoo:acme:alice", groups: []string{"zoo:tenant:beta"},
			wantErr: `may not be in group "zoo:tenant:beta"`},
		{name: "both tenant groups", user: "zoo:acme:alice", groups: []string{"zoo:tenant:acme", "zoo:tenant:beta"},
			wantErr: `may not be in group "zoo:tenant:beta"`},
		{name: "another tenant's group", user: "zoo:acme:alice", groups: []string{"zoo:tenant:acme", "zoo:beta:devs"},
			wantErr: `may not be in group "zoo:beta:devs"`},
		{name: "the admins group comes from the record, never the credential", user: "zoo:acme:alice",
			groups: []string{"zoo:tenant:acme", "zoo:admins"}, wantErr: `may not be in group "zoo:admins"`},
		{name: "cluster group", user: "zoo:acme:alice", groups: []string{"zoo:tenant:acme", "system:masters"},
			wantErr: `may not be in group "system:masters"`},
		{name: "no tenant group", user: "zoo:acme:alice", wantErr: "not in its tenant's group"},
		{name: "cluster admin", user: "kubernetes-admin", groups: []string{"system:masters"}, wantErr: "no tenant identity"},
		{name: "the tenant group as a user", user: "zoo:tenant:acme", groups: []string{"zoo:tenant:tenant"}, wantErr: "no tenant identity"},
		{name: "zoo:admins as a user", user: "zoo:admins", wantErr: "no tenant identity"},
		{name: "empty local user", user: "zoo:acme:", groups: []string{"zoo:tenant:acme"}, wantErr: "no tenant identity"},
		{name: "invalid tenant", user: "zoo:Acme:alice", groups: []string{"zoo:tenant:Acme"}, wantErr: "no tenant identity"},
		{name: "tenant ServiceAccount", user: "system:serviceaccount:acme-default:builder",
			groups:     []string{"system:serviceaccounts", "system:serviceaccounts:acme-default", "system:authenticated"},
			wantTenant: "acme", wantUser: "system:serviceaccount:default:builder",
			wantGroups: []string{"system:serviceaccounts", "system:serviceaccounts:default"}},
		{name: "ServiceAccount in a namespace of no tenant", user: "system:serviceaccount:kube-system:default",
			groups: []string{"system:serviceaccounts"}, wantErr: "in no tenant's namespace"},
		{name: "ServiceAccount of the platform", user: "system:serviceaccount:zoo-system:zoo-server", wantErr: "in no tenant's namespace"},
		{name: "ServiceAccount with another namespace's group", user: "system:serviceaccount:acme-default:builder",
			groups: []string{"system:serviceaccounts:beta-default"}, wantErr: `may not be in group "system:serviceaccounts:beta-default"`},
		{name: "ServiceAccount with a tenant group", user: "system:serviceaccount:acme-default:builder",
			groups: []string{"zoo:tenant:acme"}, wantErr: `may not be in group "zoo:tenant:acme"`},
		{name: "malformed ServiceAccount", user: "system:serviceaccount:acme-default", wantErr: "no ServiceAccount user"},
		// A certificate is never a ServiceAccount: upstream its CN is the
		// user zoo:acme:system:serviceaccount:..., so the server must not
		// make it the ServiceAccount it would impersonate for that name.
		{name: "certificate posing as a ServiceAccount", user: "zoo:acme:system:serviceaccount:default:builder",
			groups: []string{"zoo:tenant:acme"}, wantErr: "ServiceAccount"},
		{name: "certificate in the ServiceAccounts' group", user: "zoo:acme:alice",
			groups: []string{"zoo:tenant:acme", "zoo:acme:system:serviceaccounts"}, wantErr: `may not be in group "zoo:acme:system:serviceaccounts"`},
		{name: "certificate in a namespace's ServiceAccounts' group", user: "zoo:acme:alice",
			groups:  []string{"zoo:tenant:acme", "zoo:acme:system:serviceaccounts:kube-system"},
			wantErr: `may not be in group "zoo:acme:system:serviceaccounts:kube-system"`},
		// Names no header can carry upstream, and that could make two
		// identities share one proxy.
		{name: "control character in the user", user: "zoo:acme:alice\x00true\x00", groups: []string{"zoo:tenant:acme"},
			wantErr: "control character"},
		{name: "newline in the user", user: "zoo:acme:alice\nbob", groups: []string{"zoo:tenant:acme"}, wantErr: "control character"},
		{name: "control character in a group", user: "zoo:acme:alice", groups: []string{"zoo:tenant:acme", "zoo:acme:devs\x00false"},
			wantErr: "control character"},
		{name: "unicode user", user: "zoo:acme:zoë", groups: []string{"zoo:tenant:acme"}, wantTenant: "acme", wantUser: "zoë"},
		{name: "tenant group twice", user: "zoo:acme:alice", groups: []string{"zoo:tenant:acme", "zoo:tenant:acme"},
			wantTenant: "acme", wantUser: "alice"},
		{name: "ServiceAccount in a prefix-sharing tenant's namespace", user: "system:serviceaccount:ab-c:x",
			groups: []string{"system:serviceaccounts", "system:serviceaccounts:ab-c"}, wantTenant: "ab", wantUser: "system:serviceaccount:c:x",
			wantGroups: []string{"system:serviceaccounts", "system:serviceaccounts:c"}},
		{name: "ServiceAccount of a reserved prefix", user: "system:serviceaccount:system-x:x", wantErr: "in no tenant's namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := identityOf(&user.DefaultInfo{Name: tt.user, Groups: tt.groups})
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantTenant, id.Tenant.Name())
			assert.Equal(t, tt.wantUser, id.User)
			assert.Equal(t, tt.wantGroups, id.Groups)
		})
	}
}

func TestIdentityKeySeparatesAdmins(t *testing.T) {
	id, err := identityOf(&user.DefaultInfo{Name: "zoo:acme:alice", Groups: []string{"zoo:tenant:acme"}})
	require.NoError(t, err)
	assert.NotEqual(t, id.key(true), id.key(false))
	other, err := identityOf(&user.DefaultInfo{Name: "zoo:acme:alice", Groups: []string{"zoo:tenant:acme", "zoo:acme:devs"}})
	require.NoError(t, err)
	assert.NotEqual(t, id.key(false), other.key(false))
}
