package tenantctl

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// waitEnforced returns once the API server enforces the new tenant's
// boundary. RBAC and admission policies are loaded asynchronously, so it
// probes, as the tenant admin and with server-side dry runs (nothing is
// stored): creating a namespace inside the tenant's prefix must be admitted
// (RBAC and the IdentityPolicy know the tenant), one outside must be denied
// by TenantPolicy for this tenant.
func (c *Client) waitEnforced(ctx context.Context, t translate.Tenant, admin, level string) error {
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: t.UpstreamUser(admin), Groups: t.UpstreamGroups(nil, true)}
	as, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("create impersonating client: %w", err)
	}
	probe := func(name string) error {
		labels := tenantapi.OwnerLabels(t)
		for k, v := range translate.PodSecurityLabels(level) { // MetadataPolicy asks for them
			labels[k] = v
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		_, err := as.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	denial := fmt.Sprintf("ValidatingAdmissionPolicy '%s'", tenantapi.TenantPolicy)
	tenantDenial := fmt.Sprintf("tenant %s may only write", t)
	var last error
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, upstream.EnforcementTimeout, true, func(ctx context.Context) (bool, error) {
		// A tenant at its namespace limit has every namespace create refused
		// by zoo-tenant-namespace-limit (pkg/policyctl/maxns.go): that refusal says
		// nothing of the boundary this waits for, and waiting for it cannot
		// make the tenant any less confined (its writes are refused until
		// its membership is in force).
		if last = probe(t.Prefix() + "zoo-probe"); last != nil && !atNamespaceLimit(last) {
			return false, nil
		}
		last = probe("zoo-probe-" + t.Name())
		if last != nil && strings.Contains(last.Error(), denial) && strings.Contains(last.Error(), tenantDenial) {
			return true, nil
		}
		if last == nil {
			last = fmt.Errorf("a namespace outside the prefix %s was still admitted", t.Prefix())
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("the API server does not enforce the boundary of tenant %q yet (%v): %w", t, last, err)
	}
	return nil
}

// setReady records in the tenant's status that it is ready.
func (c *Client) setReady(ctx context.Context, tenant *tenantapi.Tenant, namespaces int32) error {
	cur, err := c.ReadTenant(ctx, tenant.Name)
	if err != nil {
		return err
	}
	status := cur.Status
	status.Sleep, status.LastActivity = nil, nil // owned by sleep, wake and the server, which update them with preconditions
	status.Namespaces = namespaces
	status.ObservedGeneration = cur.Generation
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type: tenantapi.ConditionReady, Status: metav1.ConditionTrue, Reason: "Reconciled", ObservedGeneration: cur.Generation,
		Message: fmt.Sprintf("namespaces, RBAC and admission of tenant %s are in place", tenant.Name),
	})
	patch := &tenantapi.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant.Name}, Status: status}
	u, err := patch.ToUnstructured()
	if err != nil {
		return err
	}
	delete(u.Object, "spec")
	out, err := c.Dynamic.Resource(tenantapi.TenantGVR).ApplyStatus(ctx, tenant.Name, u, metav1.ApplyOptions{FieldManager: tenantapi.FieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("record the status of tenant %q: %w", tenant.Name, err)
	}
	done, err := tenantapi.TenantFromUnstructured(out)
	if err != nil {
		return err
	}
	*tenant = *done
	return nil
}

// atNamespaceLimit reports whether err is the refusal of a tenant at its
// namespace limit.
func atNamespaceLimit(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), fmt.Sprintf("ValidatingAdmissionPolicy '%s'", admissionrules.NamespaceLimitPolicy))
}
