package main

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

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
	if c.kubernetesService {
		if err := createKubernetesService(ctx, e.serve.kubeconfig); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// createKubernetesService creates, through the proxy, the Service
// default/kubernetes a real cluster always has and a tenant's view lacks:
// e2e.test's suite set-up reads its ClusterIP to learn the IP family and,
// without it, fails before any spec runs. It is a plain ClusterIP Service
// without endpoints; no spec of the focus connects to it.
func createKubernetesService(ctx context.Context, kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(6443)}}},
	}
	_, err = cs.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create the tenant's Service default/kubernetes through the proxy: %w", err)
	}
	return nil
}

// close stops serve and the upstream; their logs stay in c.work.
func (e *env) close() {
	if e.serve != nil {
		e.serve.stop()
	}
	e.cluster.Stop()
}
