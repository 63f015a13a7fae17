package policyctl

import (
	"context"
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// DefaultPolicyAnnotation on the Tenant CRD holds the cluster's default
// tenant policy (JSON), set by `install --default-policy`. The CRD is
// kubectl-zoo's one cluster-wide object that every reader of tenants
// already reads (checkInstalled), that no tenant may write (TenantPolicy
// confines CRD writes to the tenant's own groups), that needs no namespace,
// and that goes away with `install --uninstall`. PolicyFieldManager owns
// the annotation, so `install` run again without --default-policy keeps it.
const DefaultPolicyAnnotation = translate.APIGroup + "/default-policy"

// DefaultPolicy returns the cluster's default tenant policy: what `install
// --default-policy` stored, with every unset field from policy.Default().
// `tenant create` copies it into a new tenant's record.
func (c *Client) DefaultPolicy(ctx context.Context) (policy.Policy, error) {
	crd, err := c.Dynamic.Resource(upstream.CRDGVR).Get(ctx, tenantapi.TenantCRDName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return policy.Policy{}, tenantapi.ErrNotInstalled
	case err != nil:
		return policy.Policy{}, fmt.Errorf("read the default policy: %w", err)
	}
	raw, ok := crd.GetAnnotations()[DefaultPolicyAnnotation]
	if !ok {
		return policy.Default(), nil
	}
	p, err := policy.Parse([]byte(raw))
	if err != nil {
		return policy.Policy{}, fmt.Errorf("the default policy (annotation %s of CustomResourceDefinition %s): %w", DefaultPolicyAnnotation, tenantapi.TenantCRDName, err)
	}
	return policy.Effective(p, policy.Default()), nil
}

// defaultPolicyValue is the annotation value of p: JSON, every unset field
// from policy.Default().
func defaultPolicyValue(p policy.Policy) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	raw, err := json.Marshal(policy.Effective(p, policy.Default()))
	if err != nil {
		return "", fmt.Errorf("encode the default policy: %w", err)
	}
	return string(raw), nil
}

// AnnotateDefaultPolicy puts p, as DefaultPolicyAnnotation, on the Tenant
// CRD among objs (what `install --dry-run=client --default-policy` prints).
func AnnotateDefaultPolicy(objs []runtime.Object, p policy.Policy) error {
	value, err := defaultPolicyValue(p)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok && crd.Name == tenantapi.TenantCRDName {
			metav1.SetMetaDataAnnotation(&crd.ObjectMeta, DefaultPolicyAnnotation, value)
			return nil
		}
	}
	return fmt.Errorf("no CustomResourceDefinition %s to annotate", tenantapi.TenantCRDName)
}

// SetDefaultPolicy stores p as the cluster's default tenant policy, with
// every unset field from policy.Default(). It changes no existing tenant.
func (c *Client) SetDefaultPolicy(ctx context.Context, p policy.Policy, dryRun bool) error {
	value, err := defaultPolicyValue(p)
	if err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{DefaultPolicyAnnotation: value}}})
	if err != nil {
		return fmt.Errorf("encode the default policy: %w", err)
	}
	opts := metav1.PatchOptions{FieldManager: PolicyFieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if _, err := c.Dynamic.Resource(upstream.CRDGVR).Patch(ctx, tenantapi.TenantCRDName, types.MergePatchType, patch, opts); err != nil {
		return fmt.Errorf("store the default policy: %w", err)
	}
	return nil
}

// InitialPolicy stores the first policy of a tenant whose record has none:
// the cluster's DefaultPolicy for a new tenant, and for a tenant made before
// records held a policy, the policy it had (EffectivePolicy: the level of
// its legacy annotation, the built-in defaults), so that an upgrade
// changes nothing it enforces. A record with a policy is left as it is.
func (c *Client) InitialPolicy(ctx context.Context, tenant string, created bool) (policy.Policy, error) {
	var defaults policy.Policy
	if created {
		var err error
		if defaults, err = c.DefaultPolicy(ctx); err != nil {
			return defaults, err
		}
	}
	return c.changePolicy(ctx, tenant, func(rec *tenantapi.Tenant, cur policy.Policy) (policy.Policy, error) {
		if rec.Spec.Policy != nil && len(rec.Spec.Policy.Raw) > 0 {
			return cur, nil
		}
		if created {
			return defaults, nil
		}
		return cur, nil
	})
}
