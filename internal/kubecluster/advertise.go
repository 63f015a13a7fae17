package kubecluster

import (
	"net"
)

// loopback is the address every component binds to.
const loopback = "127.0.0.1"

// advertiseAddress is the address kube-apiserver advertises in the endpoints
// of its default/kubernetes Service, as every real cluster has them. The API
// server still listens on loopback only; nothing connects to the advertised
// address (there is no kube-proxy), but Endpoints may not hold a loopback
// address, so advertising 127.0.0.1 leaves the Service without endpoints.
// It is the machine's first global IPv4 address, else loopback.
func advertiseAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return loopback
	}
	return pickAdvertise(addrs)
}

// pickAdvertise returns the first global unicast IPv4 address of addrs, or
// loopback when there is none.
func pickAdvertise(addrs []net.Addr) string {
	for _, a := range addrs {
		var ip net.IP
		switch v := a.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		}
		if ip4 := ip.To4(); ip4 != nil && ip4.IsGlobalUnicast() {
			return ip4.String()
		}
	}
	return loopback
}
