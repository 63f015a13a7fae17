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
	certPEM, keyPEM, err := cluster.SignClientCertificate(ctx, "zoo:"+benchTenant+":admin", "zoo:tenant:"+benchTenant)
	if err != nil {
		return nil, err
	}
	ep, _, err := launchServer(ctx, c, dir, serverKubeconfig(cluster), certPEM, keyPEM, 60*time.Second)
	return ep, err
}

// launchServer runs `kubectl zoo serve --listen` with the upstream
// credential of kubeconfig and its files in dir, reached with the client
// certificate certPEM (key keyPEM). It returns once /readyz answers ok
// (within readyWithin), with the time from the process's start until then.
func launchServer(ctx context.Context, c config, dir, kubeconfig string, certPEM, keyPEM []byte, readyWithin time.Duration) (*endpoint, time.Duration, error) {
	pair, err := kubecluster.NewServingPair(filepath.Join(dir, "server-pki"))
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.CommandContext(ctx, c.zoo, "serve", "--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0",
		"--tls-cert-file", pair.CertFile, "--tls-private-key-file", pair.KeyFile, "--audit-log", filepath.Join(dir, "server-audit.log"),
		"--profile-address", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	ep := &endpoint{name: "server", cmd: cmd}
	addr := make(chan string, 1)
	profiles := make(chan string, 1)
	go func() { // echo the server's output, noting its address and profile URL (printed first)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(os.Stderr, sc.Text())
			if u, ok := strings.CutPrefix(sc.Text(), "Serving profiles on "); ok {
				profiles <- strings.TrimSpace(u)
			}
			if a, ok := strings.CutPrefix(sc.Text(), "Serving every tenant on https://"); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		select {
		case ep.profiles = <-profiles:
		default:
			return ep, 0, errors.New("kubectl zoo serve --listen printed no profile URL before its address")
		}
		ep.config = &rest.Config{Host: "https://" + a, TLSClientConfig: rest.TLSClientConfig{CAData: pair.CAPEM, CertData: certPEM, KeyData: keyPEM}}
	case <-time.After(readyWithin):
		return ep, 0, fmt.Errorf("kubectl zoo serve --listen printed no address in %s", readyWithin)
	}
	if err := waitReady(ctx, ep.config.Host, pair.CAPEM, start.Add(readyWithin)); err != nil {
		return ep, 0, err
	}
	return ep, time.Since(start), nil
}

// serverKubeconfig is the server's upstream credential.
func serverKubeconfig(cluster *kubecluster.Cluster) string { return cluster.Kubeconfig }

// waitReady waits until deadline for the server's /readyz.
func waitReady(ctx context.Context, base string, caPEM []byte, deadline time.Time) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}, Timeout: 5 * time.Second}
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
			return errors.New("kubectl zoo serve --listen was not ready in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
