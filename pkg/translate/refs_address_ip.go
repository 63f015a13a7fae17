package translate

import (
	"errors"
	"fmt"
	"net/netip"
)

// The IP addresses a tenant may write as an endpoint are public unicast
// ones. The cluster's own addresses are private (pod, Service and node
// networks: RFC 1918, CGNAT, ULA), or loopback and link-local (the
// machine itself, the cloud's metadata service at 169.254.169.254), and a
// pod IP of another tenant is one of them; no lookup could tell which
// private address is whose, so none is allowed. The zoo-tenant policy
// holds the same lists upstream (CEL's ip() and cidr(), which refuse
// zones and IPv4-mapped IPv6 addresses as ParseAddr below does).

// RefusedIPv4 are the IPv4 ranges an endpoint may not be in: this
// network, private, shared (CGNAT), loopback, link-local, IETF protocol
// assignments, benchmarking, multicast, reserved and broadcast.
var RefusedIPv4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/24"), netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("224.0.0.0/4"), netip.MustParsePrefix("240.0.0.0/4"),
}

// PublicIPv6 is the IPv6 global unicast range; an endpoint outside it
// (loopback, unspecified, ULA fc00::/7, link-local fe80::/10, multicast,
// IPv4-mapped and NAT64 addresses, which stand for IPv4 ones) is refused.
var PublicIPv6 = netip.MustParsePrefix("2000::/3")

// RefusedIPv6 are the ranges of PublicIPv6 that carry IPv4 addresses
// (6to4, Teredo and the other IETF protocol assignments of 2001::/23).
var RefusedIPv6 = []netip.Prefix{netip.MustParsePrefix("2001::/23"), netip.MustParsePrefix("2002::/16")}

var errNotIP = errors.New("not an IP address (dotted IPv4 or IPv6, without zone; IPv4-mapped IPv6 is refused)")

// PublicUnicast returns nil when s is an IP address a tenant may write as
// an endpoint, else why not.
func PublicUnicast(s string) error {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" || a.Is4In6() {
		return errNotIP
	}
	if a.Is4() {
		for _, p := range RefusedIPv4 {
			if p.Contains(a) {
				return fmt.Errorf("%s is in %s", s, p)
			}
		}
		return nil
	}
	if !PublicIPv6.Contains(a) {
		return fmt.Errorf("%s is not in %s", s, PublicIPv6)
	}
	for _, p := range RefusedIPv6 {
		if p.Contains(a) {
			return fmt.Errorf("%s is in %s", s, p)
		}
	}
	return nil
}
