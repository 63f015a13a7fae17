package cmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeValidateAdvertise: the address and CA that tenant pods get go
// together, only with --listen, and the address is HOST:PORT.
func TestServeValidateAdvertise(t *testing.T) {
	for _, tc := range []struct {
		name        string
		listen      string
		address, ca string
		want        string // "" when valid
	}{
		{"neither", ":8443", "", "", ""},
		{"both", ":8443", "zoo-server.zoo-system.svc:443", "/ca.crt", ""},
		{"an IP", ":8443", "10.96.0.12:443", "/ca.crt", ""},
		{"an IPv6 address", ":8443", "[fd00::12]:443", "/ca.crt", ""},
		{"no CA", ":8443", "zoo-server.zoo-system.svc:443", "", "go together"},
		{"no address", ":8443", "", "/ca.crt", "go together"},
		{"no port", ":8443", "zoo-server.zoo-system.svc", "/ca.crt", "not HOST:PORT"},
		{"port 0", ":8443", "zoo-server:0", "/ca.crt", "port from 1 to 65535"},
		{"no host", ":8443", ":443", "/ca.crt", "port from 1 to 65535"},
		{"named port", ":8443", "zoo-server:https", "/ca.crt", "port from 1 to 65535"},
		{"without --listen", "", "zoo-server:443", "/ca.crt", "need --listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &ServeOptions{Server: ServerFlags{Listen: tc.listen, TLSCertFile: "c", TLSKeyFile: "k", MaxProxies: 1,
				AdvertiseAddress: tc.address, AdvertiseCAFile: tc.ca}}
			if tc.listen == "" {
				o.Tenant, o.Server.TLSCertFile, o.Server.TLSKeyFile = "acme", "", ""
			}
			err := o.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
