package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
)

// startServer runs the multi-tenant server (`kubectl zoo serve --listen`)
// on a free loopback port with its audit log on, and reaches it as the bench
// tenant's admin with a client certificate the cluster signed.
func startServer(ctx context.Context, c config, cluster *kubecluster.Cluster, dir string) (*endpoint, error) {
	pair, err := kubecluster.NewServingPair(filepath.Join(dir, "server-pki"))
	if err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := cluster.SignClientCertificate(ctx, "zoo:"+benchTenant+":admin", "zoo:tenant:"+benchTenant)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, c.zoo, "serve", "--kubeconfig", serverKubeconfig(cluster), "--listen", "127.0.0.1:0",
		"--tls-cert-file", pair.CertFile, "--tls-private-key-file", pair.KeyFile, "--audit-log", filepath.Join(dir, "server-audit.log"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ep := &endpoint{name: "server", cmd: cmd}
	addr := make(chan string, 1)
	go func() { // echo the server's output, noting its address
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(os.Stderr, sc.Text())
			if a, ok := strings.CutPrefix(sc.Text(), "Serving every tenant on https://"); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		ep.config = &rest.Config{Host: "https://" + a, TLSClientConfig: rest.TLSClientConfig{CAData: pair.CAPEM, CertData: certPEM, KeyData: keyPEM}}
	case <-time.After(30 * time.Second):
		return ep, errors.New("kubectl zoo serve --listen printed no address in 30s")
	}
	return ep, waitReady(ctx, ep.config.Host, pair.CAPEM)
}

// serverKubeconfig is the server's upstream credential.
func serverKubeconfig(cluster *kubecluster.Cluster) string { return cluster.Kubeconfig }

// waitReady waits for the server's /readyz.
func waitReady(ctx context.Context, base string, caPEM []byte) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}, Timeout: 5 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("kubectl zoo serve --listen was not ready in 60s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
