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
		t.Run(tc.addr, func(t *testing.T) {
			o := &ServeOptions{Tenant: "acme", ProfileAddress: tc.addr}
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
