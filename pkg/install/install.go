package install

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
)

// InstallObjects returns, in apply order, the cluster-side pieces of
// kubectl-zoo for the platform's cfg: the Tenant CRD, the ClusterRoles, the
// one ClusterRoleBinding, the admission policies and their bindings.
func InstallObjects(cfg admissionrules.InstallConfig) []runtime.Object {
	objs := []runtime.Object{TenantCRD()}
	for _, r := range InstallClusterRoles() {
		objs = append(objs, r)
	}
	for _, b := range InstallClusterRoleBindings() {
		objs = append(objs, b)
	}
	policies, bindings := admissionrules.InstallPolicies(cfg)
	for _, p := range policies {
		objs = append(objs, p)
	}
	for _, b := range bindings {
		objs = append(objs, b)
	}
	return objs
}

// Install server-side applies InstallObjects (a server dry run when dryRun)
// and returns what the server answered. Applying is idempotent, and applying
// a newer version upgrades in place: it also re-confines the tenants'
// webhooks and admission policies (ReconfineTenantAdmission). It waits for
// the CRD to be Established before it applies the policy whose parameter
// kind the CRD defines. A nil cfg keeps the installed one.
func (c *Client) Install(ctx context.Context, dryRun bool, cfg *admissionrules.InstallConfig) ([]*unstructured.Unstructured, error) {
	if cfg == nil {
		installed, err := c.InstalledConfig(ctx)
		if err != nil {
			return nil, err
		}
		cfg = &installed
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for i, obj := range InstallObjects(*cfg) {
		u, err := c.Apply(ctx, obj, dryRun)
		if err != nil {
			return out, err
		}
		out = append(out, u)
		if i == 0 && !dryRun {
			if err := c.waitEstablished(ctx, tenantapi.TenantCRDName); err != nil {
				return out, err
			}
		}
	}
	if !dryRun {
		if _, err := c.ReconfineTenantAdmission(ctx); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (c *Client) waitEstablished(ctx context.Context, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		u, err := c.Dynamic.Resource(upstream.CRDGVR).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, raw := range conds {
			cond, _ := raw.(map[string]any)
			if cond["type"] == string(apiextensionsv1.Established) && cond["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("wait for CustomResourceDefinition %s to be established: %w", name, err)
	}
	return nil
}

// RemoveObjects removes what Install and InstallServer applied, and waits
// until the Tenant CRD is gone. Call it through tenantctl.Client.Uninstall,
// which refuses while tenants exist (or deletes them first): tenants left
// without the policies that confine them would be worse than either.
func (c *Client) RemoveObjects(ctx context.Context, progressFn func(format string, args ...any)) ([]string, error) {
	progress := progressFn
	if progress == nil {
		progress = func(string, ...any) {}
	}
	// The server pieces go first: a server without the CRD serves no one.
	removed, err := c.UninstallServer(ctx, progressFn)
	if err != nil {
		return removed, err
	}
	objs := InstallObjects(admissionrules.InstallConfig{})
	for i := len(objs) - 1; i >= 0; i-- {
		u, err := upstream.ToUnstructured(objs[i])
		if err != nil {
			return removed, err
		}
		gvr, err := upstream.GVROf(u)
		if err != nil {
			return removed, err
		}
		err = c.Dynamic.Resource(gvr).Delete(ctx, u.GetName(), metav1.DeleteOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return removed, fmt.Errorf("delete %s %s: %w", u.GetKind(), u.GetName(), err)
		}
		removed = append(removed, kindName(u))
		progress("%s deleted", kindName(u))
	}
	// The CRD lingers while the API server deletes its Tenant records; wait,
	// so that a new install right after does not meet a terminating CRD.
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.Dynamic.Resource(upstream.CRDGVR).Get(ctx, tenantapi.TenantCRDName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return removed, fmt.Errorf("wait for CustomResourceDefinition %s to be gone: %w", tenantapi.TenantCRDName, err)
	}
	return removed, nil
}

// kindName is the kubectl-style "kind.group/name" of an object.
func kindName(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	k := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		k += "." + gvk.Group
	}
	return k + "/" + u.GetName()
}
