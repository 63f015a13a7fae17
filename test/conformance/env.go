package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
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
	e = &env{cluster: cluster}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	if err := zoo(ctx, c, cluster.Kubeconfig, "install"); err != nil {
		return nil, err
	}
	if err := zoo(ctx, c, cluster.Kubeconfig, "tenant", "create", tenant); err != nil {
		return nil, err
	}
	if e.serve, err = startServe(ctx, c, cluster.Kubeconfig, tenant, filepath.Join(c.work, "serve")); err != nil {
		return nil, err
	}
	return e, nil
}

// close stops serve and the upstream; their logs stay in c.work.
func (e *env) close() {
	if e.serve != nil {
		e.serve.stop()
	}
	e.cluster.Stop()
}
