package tenantapi

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// NamespaceSource lists the namespaces labeled for tenant t (ok false: it
// cannot answer now). The caller keeps those with t's prefix.
type NamespaceSource func(ctx context.Context, t translate.Tenant) (nss []corev1.Namespace, ok bool)

// NamespaceCount is a tenant's limit (nil: none) and how many namespaces it
// has (labeled and prefixed as its own, Terminating ones included: a
// namespace counts until it is gone).
type NamespaceCount struct {
	Limit *int32
	Count int
}

// Reached reports whether no further namespace fits.
func (n NamespaceCount) Reached() bool { return n.Limit != nil && n.Count >= int(*n.Limit) }

// SleepResult is what SleepTenant and WakeTenant did.
type SleepResult struct {
	// Changed are the workloads scaled or (un)suspended, resource/ns/name.
	Changed []string
	// Recorded is the number of workloads the record holds.
	Recorded int
	// Pods and Jobs are the bare pods and unfinished Jobs left running
	// (without IncludePods) or deleted (with it), as namespace/name.
	Pods, Jobs []string
	// Deleted tells that Pods and Jobs were deleted.
	Deleted bool
}

// PolicyClient is what the proxy's policy hooks ask of the tenant library
// (tenantctl.Client is one): the namespace limit, the policy objects of a
// new namespace, and the wake of a sleeping tenant. The proxy gets it from
// its Config, so that it need not import the library.
type PolicyClient interface {
	// CountNamespaces counts tenant's namespaces against its limit.
	CountNamespaces(ctx context.Context, tenant string) (NamespaceCount, error)
	// SetNamespaceLimitReached records n in the tenant's limit gate, and
	// reports whether the limit was lifted.
	SetNamespaceLimitReached(ctx context.Context, tenant string, n NamespaceCount) (lifted bool, err error)
	// WaitNamespaceLimitLifted waits, at most timeout, until the gate of
	// tenant is lifted.
	WaitNamespaceLimitLifted(ctx context.Context, tenant string, timeout time.Duration) error
	// ReconcileNamespaceLimit sets the gate of tenant to its count.
	ReconcileNamespaceLimit(ctx context.Context, tenant string) error
	// ReconcileNamespacePolicyObjects makes the policy objects of tenant's
	// namespace ns.
	ReconcileNamespacePolicyObjects(ctx context.Context, tenant, ns string) error
	// WakeTenant wakes tenant if it sleeps.
	WakeTenant(ctx context.Context, tenant string) (SleepResult, error)
}
