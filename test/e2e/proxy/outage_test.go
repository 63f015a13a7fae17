package proxy_test

import (
	"io"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// relay is a TCP relay on loopback between the proxy and the upstream that
// a test can cut and restore, as a network outage would.
type relay struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
}

func newRelay(t *testing.T, target string) *relay {
	t.Helper()
	r := &relay{target: target}
	r.up(t, "127.0.0.1:0")
	t.Cleanup(r.down)
	return r
}

func (r *relay) up(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	r.mu.Lock()
	r.ln, r.addr = ln, ln.Addr().String()
	r.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", r.target)
			if err != nil {
				_ = c.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, u)
			r.mu.Unlock()
			go func() { _, _ = io.Copy(u, c); _ = u.Close() }()
			go func() { _, _ = io.Copy(c, u); _ = c.Close() }()
		}
	}()
}

// down closes the listener and every relayed connection.
func (r *relay) down() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln != nil {
		_ = r.ln.Close()
		r.ln = nil
	}
	for _, c := range r.conns {
		_ = c.Close()
	}
	r.conns = nil
}

// TestUpstreamOutage: while the upstream cannot be reached, requests get a
// 503 Status that says so; once it is back, the same proxy serves again.
func TestUpstreamOutage(t *testing.T) {
	tenants(t)
	server, err := url.Parse(framework.Cluster().Server)
	require.NoError(t, err)
	r := newRelay(t, server.Host)

	// The admin kubeconfig, pointed at the relay.
	cfg, err := clientcmd.LoadFromFile(framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	for _, c := range cfg.Clusters {
		c.Server = "https://" + r.addr
	}
	kubeconfig := filepath.Join(t.TempDir(), "via-relay.kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, kubeconfig))

	acme := serve(t, "acme", "--kubeconfig", kubeconfig)
	acme.k(t, "get", "namespace", "default")

	r.down()
	res := acme.run(t, "", "get", "namespace", "default", "--request-timeout=20s")
	require.Error(t, res.Err, "the upstream is cut off")
	assert.Contains(t, res.Stderr, "ServiceUnavailable", res.Stderr)
	assert.Contains(t, res.Stderr, "upstream", "the message names the upstream: %s", res.Stderr)

	r.up(t, r.addr)
	require.Eventually(t, func() bool {
		return acme.run(t, "", "get", "namespace", "default").Err == nil
	}, 30*time.Second, 500*time.Millisecond, "the proxy did not recover once the upstream was back")
}
