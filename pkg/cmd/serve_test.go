package cmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServeValidateProfileAddress(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want string // "" when valid
	}{
		{"", ""},
		{"127.0.0.1:0", ""},
		{"127.0.0.1:6060", ""},
		{"127.1.2.3:6060", ""},
		{"[::1]:6060", ""},
		{"localhost:6060", ""},
		{"0.0.0.0:6060", "not a loopback address"},
		{":6060", "not a loopback address"},
		{"[::]:6060", "not a loopback address"},
		{"192.168.1.10:6060", "not a loopback address"},
		{"example.com:6060", "not a loopback address"},
		{"127.0.0.1", "missing port"},
		{"127.0.0.1:", "has no port"},
	} {
		for mode, o := range map[string]*ServeOptions{
			"serve":  {Tenant: "acme"},
			"server": {Server: ServerFlags{Listen: ":8443", TLSCertFile: "c", TLSKeyFile: "k", MaxProxies: 1}},
		} {
			t.Run(mode+"/"+tc.addr, func(t *testing.T) {
				o.ProfileAddress = tc.addr
				err := o.Validate()
				if tc.want == "" {
					require.NoError(t, err)
					return
				}
				require.Error(t, err)
				assert.Contains(t, err.Error(), "--profile-address")
				assert.Contains(t, err.Error(), tc.want)
			})
		}
	}
}

func TestServeValidateServerFlags(t *testing.T) {
	listen := func(f func(o *ServeOptions)) *ServeOptions {
		o := &ServeOptions{User: "admin", Server: ServerFlags{Listen: ":8443", TLSCertFile: "tls.crt", TLSKeyFile: "tls.key", MaxProxies: 256}}
		f(o)
		return o
	}
	for _, tc := range []struct {
		name string
		o    *ServeOptions
		want string // "" when valid
	}{
		{"server", listen(func(*ServeOptions) {}), ""},
		{"server with a zoo CA", listen(func(o *ServeOptions) { o.Server.ClientCAFile = "ca.crt" }), ""},
		{"no certificate", listen(func(o *ServeOptions) { o.Server.TLSCertFile = "" }), "needs --tls-cert-file and --tls-private-key-file"},
		{"no key", listen(func(o *ServeOptions) { o.Server.TLSKeyFile = "" }), "needs --tls-cert-file and --tls-private-key-file"},
		{"a tenant from a flag", listen(func(o *ServeOptions) { o.Tenant = "acme" }), "--tenant, --user, --group"},
		{"a user from a flag", listen(func(o *ServeOptions) { o.User = "alice" }), "--tenant, --user, --group"},
		{"groups from a flag", listen(func(o *ServeOptions) { o.Groups = []string{"devs"} }), "--tenant, --user, --group"},
		{"a port", listen(func(o *ServeOptions) { o.Port = 8001 }), "--port"},
		{"no identities", listen(func(o *ServeOptions) { o.Server.MaxProxies = 0 }), "--max-identities must be at least 1"},
		{"negative grace", listen(func(o *ServeOptions) { o.Server.ShutdownGrace = -1 }), "--shutdown-grace"},
		{"server flags without --listen", &ServeOptions{Tenant: "acme", Server: ServerFlags{TLSCertFile: "tls.crt"}}, "need --listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
