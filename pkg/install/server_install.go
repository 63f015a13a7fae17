package install

import (
	"context"
	"fmt"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

// InstallServer server-side applies ServerObjects (a server dry run when
// dryRun) and returns what the server answered. Without opts.TLS it keeps
// the certificate of an existing ServerTLSSecret while it is good
// (ServerTLSFromSecret), so that clients keep trusting the server, and
// issues a new one otherwise. A server dry run cannot check objects in a
// namespace that does not exist yet (the API server refuses them); it tells
// progress which ones it left out.
func (c *Client) InstallServer(ctx context.Context, opts ServerOptions, dryRun bool, progress func(format string, args ...any)) ([]*unstructured.Unstructured, error) {
	if progress == nil {
		progress = func(string, ...any) {}
	}
	if opts.TLS == nil {
		tlsPair, err := c.currentServerTLS(ctx)
		if err != nil {
			return nil, err
		}
		opts.TLS = tlsPair
	}
	if opts.ZooCA == nil {
		zooCA, err := c.currentZooCA(ctx)
		if err != nil {
			return nil, err
		}
		opts.ZooCA = zooCA
	}
	objs, err := ServerObjects(opts)
	if err != nil {
		return nil, err
	}
	nsExists := true
	if dryRun {
		_, err := c.Kube.CoreV1().Namespaces().Get(ctx, tenantapi.ServerNamespace, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			nsExists = false
		case err != nil:
			return nil, fmt.Errorf("get namespace %s: %w", tenantapi.ServerNamespace, err)
		}
	}
	var out []*unstructured.Unstructured
	for _, obj := range objs {
		u, err := upstream.ToUnstructured(obj)
		if err != nil {
			return out, err
		}
		if !nsExists && u.GetNamespace() == tenantapi.ServerNamespace {
			progress("%s not checked by the dry run: namespace %s does not exist yet", kindName(u), tenantapi.ServerNamespace)
			continue
		}
		applied, err := c.Apply(ctx, u, dryRun)
		if err != nil {
			return out, err
		}
		out = append(out, applied)
	}
	if !dryRun {
		return out, c.waitServerRights(ctx)
	}
	return out, nil
}

// waitServerRights waits until the cluster's aggregation controller has
// copied the rules of ServerBaseClusterRole into the aggregated
// ServerClusterRole: until then the server could not even read tenants.
func (c *Client) waitServerRights(ctx context.Context) error {
	return c.WaitAggregated(ctx, tenantapi.ServerName, tenantapi.ServerBaseName, ServerBaseClusterRole().Rules)
}

// currentServerTLS returns the certificate of ServerTLSSecret if it is still
// good, nil if there is none or it is not.
func (c *Client) currentServerTLS(ctx context.Context) (*ServerTLS, error) {
	s, err := c.Kube.CoreV1().Secrets(tenantapi.ServerNamespace).Get(ctx, tenantapi.ServerTLSSecret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the server certificate %s/%s: %w", tenantapi.ServerNamespace, tenantapi.ServerTLSSecret, err)
	}
	t, err := ServerTLSFromSecret(s, time.Now())
	if err != nil {
		klog.InfoS("Issuing a new server certificate", "secret", tenantapi.ServerNamespace+"/"+tenantapi.ServerTLSSecret, "reason", err)
		return nil, nil
	}
	return t, nil
}

// currentZooCA returns the zoo CA of certs.ZooCASecret if it is still good, nil
// if there is none or it is not: install keeps the CA, so that the
// certificates it signed stay valid.
func (c *Client) currentZooCA(ctx context.Context) (*certs.ZooCA, error) {
	s, err := c.Kube.CoreV1().Secrets(tenantapi.ServerNamespace).Get(ctx, certs.ZooCASecret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the zoo CA %s/%s: %w", tenantapi.ServerNamespace, certs.ZooCASecret, err)
	}
	z, err := certs.ZooCAFromSecret(s, time.Now())
	if err != nil {
		klog.InfoS("Issuing a new zoo CA", "secret", tenantapi.ServerNamespace+"/"+certs.ZooCASecret, "reason", err)
		return nil, nil
	}
	return z, nil
}

// UninstallServer removes what InstallServer applied, and waits until the
// namespace ServerNamespace is gone, so that an install right after does not
// meet a terminating namespace. Tenants and InstallObjects stay.
func (c *Client) UninstallServer(ctx context.Context, progress func(format string, args ...any)) ([]string, error) {
	if progress == nil {
		progress = func(string, ...any) {}
	}
	// Which certificate does not matter: only names are deleted.
	objs, err := ServerObjects(ServerOptions{Replicas: 1, Image: "unused", TLS: &ServerTLS{}, ZooCA: &certs.ZooCA{}})
	if err != nil {
		return nil, err
	}
	var removed []string
	for i := len(objs) - 1; i >= 0; i-- {
		u, err := upstream.ToUnstructured(objs[i])
		if err != nil {
			return removed, err
		}
		gvr, err := upstream.GVROf(u)
		if err != nil {
			return removed, err
		}
		err = c.Dynamic.Resource(gvr).Namespace(u.GetNamespace()).Delete(ctx, u.GetName(), metav1.DeleteOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return removed, fmt.Errorf("delete %s %s: %w", u.GetKind(), upstream.QualifiedName(u), err)
		}
		removed = append(removed, kindName(u))
		progress("%s deleted", kindName(u))
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.Kube.CoreV1().Namespaces().Get(ctx, tenantapi.ServerNamespace, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return removed, fmt.Errorf("wait for namespace %s to be gone: %w", tenantapi.ServerNamespace, err)
	}
	return removed, nil
}
