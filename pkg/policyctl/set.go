package policyctl

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// PolicyFieldManager owns spec.policy of Tenant records (and the cluster's
// default policy on the Tenant CRD); FieldManager never applies them.
const PolicyFieldManager = "kubectl-zoo-policy"

// policyRetry is how often and how long ChangePolicy retries after a
// Conflict: enough for tens of concurrent writers of one record.
var ConflictRetry = wait.Backoff{Steps: 30, Duration: 10 * time.Millisecond, Factor: 1.5, Jitter: 1, Cap: time.Second}

// ChangePolicy changes the stored policy of a tenant with change, which is
// given the tenant's effective policy (EffectivePolicy), and stores the
// result with every unset field filled from policy.Default(), so a record
// always says in full what is enforced. The update carries the
// resourceVersion it read: a concurrent writer (another `policy set`, `cert
// issue`) makes it fail with a Conflict, and it reads and changes again, so
// no update is lost. It also drops the legacy Pod Security annotation, whose
// level is then in spec.policy. It returns the stored policy.
func (c *Client) ChangePolicy(ctx context.Context, tenant string, change func(policy.Policy) (policy.Policy, error)) (policy.Policy, error) {
	return c.changePolicy(ctx, tenant, func(_ *tenantapi.Tenant, cur policy.Policy) (policy.Policy, error) { return change(cur) })
}

// changePolicy is ChangePolicy with a change that also sees the record.
func (c *Client) changePolicy(ctx context.Context, tenant string, change func(*tenantapi.Tenant, policy.Policy) (policy.Policy, error)) (policy.Policy, error) {
	if _, err := translate.NewTenant(tenant); err != nil {
		return policy.Policy{}, err
	}
	var stored policy.Policy
	err := retry.RetryOnConflict(ConflictRetry, func() error {
		u, err := c.Dynamic.Resource(tenantapi.TenantGVR).Get(ctx, tenant, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Errorf("tenant %q does not exist", tenant)
		case err != nil:
			return fmt.Errorf("read tenant %q: %w", tenant, err)
		case u.GetDeletionTimestamp() != nil:
			return fmt.Errorf("tenant %q is being deleted", tenant)
		}
		rec, err := tenantapi.TenantFromUnstructured(u)
		if err != nil {
			return err
		}
		cur, err := tenantapi.EffectivePolicy(rec)
		if err != nil {
			return err
		}
		next, err := change(rec, cur)
		if err != nil {
			return err
		}
		next = policy.Effective(next, policy.Default())
		next = next.Canonical()
		if err := next.Validate(); err != nil {
			return err
		}
		if err := setPolicyField(u, next); err != nil {
			return err
		}
		ann := u.GetAnnotations()
		if _, ok := ann[translate.PodSecurityLevelAnnotation]; ok {
			delete(ann, translate.PodSecurityLevelAnnotation)
			u.SetAnnotations(ann)
		}
		_, err = c.Dynamic.Resource(tenantapi.TenantGVR).Update(ctx, u, metav1.UpdateOptions{FieldManager: PolicyFieldManager})
		if err != nil && !apierrors.IsConflict(err) {
			return fmt.Errorf("store the policy of tenant %q: %w", tenant, err)
		}
		stored = next
		return err
	})
	return stored, err
}

// setPolicyField writes p at spec.policy of a Tenant record.
func setPolicyField(u *unstructured.Unstructured, p policy.Policy) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode the policy of tenant %q: %w", u.GetName(), err)
	}
	var field map[string]any
	if err := json.Unmarshal(raw, &field); err != nil {
		return fmt.Errorf("encode the policy of tenant %q: %w", u.GetName(), err)
	}
	return unstructured.SetNestedField(u.Object, field, "spec", "policy")
}

// TenantPolicy returns the effective policy of a tenant (`policy show`).
func (c *Client) TenantPolicy(ctx context.Context, tenant string) (policy.Policy, error) {
	if _, err := translate.NewTenant(tenant); err != nil {
		return policy.Policy{}, err
	}
	if err := c.CheckInstalled(ctx); err != nil {
		return policy.Policy{}, err
	}
	rec, err := c.ReadTenant(ctx, tenant)
	switch {
	case apierrors.IsNotFound(err):
		return policy.Policy{}, fmt.Errorf("tenant %q does not exist", tenant)
	case err != nil:
		return policy.Policy{}, fmt.Errorf("read tenant %q: %w", tenant, err)
	}
	return tenantapi.EffectivePolicy(rec)
}
