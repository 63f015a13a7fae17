package framework

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Balancer is a loopback TCP load balancer in front of the replicas, as a
// Service would be: each new connection goes to the next backend that
// accepts it (round robin), or to the first one that does (first), so TLS —
// and the client certificate in it — passes through untouched.
type Balancer struct {
	ln       net.Listener
	backends []string
	first    bool
	next     atomic.Uint64
	wg       sync.WaitGroup
}

// NewBalancer listens on loopback and forwards to backends until the test
// ends: round robin, or to the first backend that accepts when first.
func NewBalancer(t *testing.T, first bool, backends ...string) *Balancer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return BalanceOn(t, ln, first, backends...)
}

// BalanceOn is NewBalancer on a listener made before the backends (whose
// flags may need the balancer's address).
func BalanceOn(t *testing.T, ln net.Listener, first bool, backends ...string) *Balancer {
	t.Helper()
	b := &Balancer{ln: ln, backends: backends, first: first}
	b.wg.Add(1)
	go b.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		b.wg.Wait()
	})
	return b
}

// URL is the balancer's HTTPS URL.
func (b *Balancer) URL() string { return "https://" + b.ln.Addr().String() }

func (b *Balancer) serve() {
	defer b.wg.Done()
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		go b.forward(conn)
	}
}

// forward connects conn to a backend that accepts a connection.
func (b *Balancer) forward(conn net.Conn) {
	defer conn.Close()
	start := uint64(0)
	if !b.first {
		start = b.next.Add(1)
	}
	var up net.Conn
	for i := range len(b.backends) {
		c, err := net.Dial("tcp", b.backends[(start+uint64(i))%uint64(len(b.backends))])
		if err == nil {
			up = c
			break
		}
	}
	if up == nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, err := io.Copy(dst, src)
		if err != nil && !errors.Is(err, net.ErrClosed) {
			_ = err // a reset connection: the other direction ends too
		}
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(up, conn)
	go pipe(conn, up)
	<-done
	<-done
}
