package certs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func TestValidateUser(t *testing.T) {
	for _, tc := range []struct{ user, want string }{
		{"alice", ""},
		{"alice@corp.example", ""},
		{"a.b_c-d", ""},
		{"", "--user must not be empty"},
		{"system:admin", `user "system:admin" is refused: system: names belong to the cluster`},
		{"zoo:acme:alice", `user "zoo:acme:alice" is refused: give the tenant-local name (alice), not the upstream one`},
		{"al:ice", `user "al:ice" may contain only letters`},
		{"-alice", `user "-alice" may contain only letters`},
		{"alice ", `user "alice " may contain only letters`},
		{string(make([]byte, 65)), "is longer than 64 characters"},
	} {
		t.Run(tc.user, func(t *testing.T) {
			err := ValidateUser(tc.user)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestTenantGroups(t *testing.T) {
	acme, err := translate.NewTenant("acme")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		groups []string
		want   []string
		err    string
	}{
		{"none", nil, []string{}, ""},
		{"local and upstream forms, sorted, unique", []string{"ops", "zoo:acme:dev", "dev"}, []string{"dev", "ops"}, ""},
		{"another tenant's group", []string{"zoo:globex:dev"}, nil, `group "zoo:globex:dev" is refused: it names tenant "globex", not "acme"`},
		{"the admins group", []string{"zoo:admins"}, nil, `group "zoo:admins" is refused: tenant administrators are named in the Tenant record`},
		{"another tenant's tenant group", []string{"zoo:tenant:globex"}, nil, `group "zoo:tenant:globex" is refused`},
		{"its own tenant group", []string{"zoo:tenant:acme"}, nil, `group "zoo:tenant:acme" is refused`},
		{"system:masters", []string{"system:masters"}, nil, `group "system:masters" is refused: system: groups belong to the cluster`},
		{"system:authenticated", []string{"system:authenticated"}, nil, `refused: system: groups`},
		{"a colon", []string{"a:b"}, nil, `group "a:b" may contain only letters`},
		{"empty upstream local part", []string{"zoo:acme:"}, nil, "--group must not be empty"},
		{"empty", []string{""}, nil, "--group must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TenantGroups(acme, tc.groups)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSubject(t *testing.T) {
	acme, err := translate.NewTenant("acme")
	require.NoError(t, err)
	cn, orgs := Subject(acme, "alice", []string{"dev"})
	assert.Equal(t, "zoo:acme:alice", cn)
	assert.Equal(t, []string{"zoo:tenant:acme", "zoo:acme:dev"}, orgs)
}

func TestRequestValidate(t *testing.T) {
	ok := Request{Tenant: "acme", User: "alice", TTL: DefaultTTL, Signer: SignerZoo}
	for _, tc := range []struct {
		name   string
		change func(*Request)
		want   string
	}{
		{"valid", func(*Request) {}, ""},
		{"bad tenant", func(r *Request) { r.Tenant = "Acme" }, `tenant name "Acme" must start with a lower-case letter`},
		{"reserved tenant", func(r *Request) { r.Tenant = "system" }, `tenant name "system" is reserved`},
		{"ttl too short", func(r *Request) { r.TTL = MinTTL - 1 }, "--ttl must be between 10m0s and 8760h"},
		{"ttl too long", func(r *Request) { r.TTL = MaxTTL + 1 }, "--ttl must be between"},
		{"signer", func(r *Request) { r.Signer = "vault" }, `--signer must be "kubernetes" or "zoo", not "vault"`},
		{"group", func(r *Request) { r.Groups = []string{"zoo:globex:dev"} }, "names tenant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.change(&r)
			err := r.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
