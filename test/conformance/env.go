package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// env is the running set-up: the upstream with kubectl-zoo installed, the
// tenant, and `kubectl zoo serve` for it.
type env struct {
	cluster *kubecluster.Cluster
	serve   *served
}

// setUp starts the upstream in c.work/cluster, installs kubectl-zoo, creates
// the tenant and serves its view. On error nothing is left running.
func setUp(ctx context.Context, c config) (e *env, err error) {
	cluster, err := kubecluster.Start(ctx, kubecluster.Options{BinDir: c.kubeBin, Dir: filepath.Join(c.work, "cluster")})
	if err != nil {
		return nil, fmt.Errorf("start the upstream: %w", err)
	}
	started := &env{cluster: cluster}
	defer func() {
		if err != nil { // e is nil then: stop what was started
			started.close()
		}
	}()
	e = started
	if err := zoo(ctx, c, cluster.Kubeconfig, "install"); err != nil {
		return nil, err
	}
	if err := zoo(ctx, c, cluster.Kubeconfig, "tenant", "create", tenant); err != nil {
		return nil, err
	}
	if err := setPodSecurityLevel(ctx, c, cluster.Kubeconfig); err != nil {
		return nil, err
	}
	if started.serve, err = startServe(ctx, c, cluster.Kubeconfig, tenant, filepath.Join(c.work, "serve")); err != nil {
		return nil, err
	}
	return started, nil
}

// setPodSecurityLevel gives the tenant the level c.podSecurity as the
// platform does: `kubectl zoo policy set --pod-security`, which relabels
// its namespaces and grants the tenant `use` of the level.
func setPodSecurityLevel(ctx context.Context, c config, adminKubeconfig string) error {
	if c.podSecurity == translate.DefaultPodSecurityLevel {
		return nil
	}
	return zoo(ctx, c, adminKubeconfig, "policy", "set", tenant, "--pod-security", c.podSecurity)
}

// close stops serve and the upstream; their logs stay in c.work.
func (e *env) close() {
	if e.serve != nil {
		e.serve.stop()
	}
	e.cluster.Stop()
}
