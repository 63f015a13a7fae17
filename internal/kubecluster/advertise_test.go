package kubecluster

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPickAdvertise(t *testing.T) {
	ipnet := func(s string) net.Addr { ip, n, _ := net.ParseCIDR(s); n.IP = ip; return n }
	for _, tc := range []struct {
		name  string
		addrs []net.Addr
		want  string
	}{
		{"none", nil, "127.0.0.1"},
		{"loopback only", []net.Addr{ipnet("127.0.0.1/8"), ipnet("::1/128")}, "127.0.0.1"},
		{"link-local is skipped", []net.Addr{ipnet("169.254.1.1/16"), ipnet("192.0.2.2/24")}, "192.0.2.2"},
		{"IPv6 only", []net.Addr{ipnet("fd00::2/64")}, "127.0.0.1"},
		{"first global IPv4", []net.Addr{ipnet("127.0.0.1/8"), ipnet("10.1.2.3/8"), ipnet("192.0.2.2/24")}, "10.1.2.3"},
		{"IPAddr", []net.Addr{&net.IPAddr{IP: net.ParseIP("10.0.0.5")}}, "10.0.0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, pickAdvertise(tc.addrs))
		})
	}
}
