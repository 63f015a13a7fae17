package policyctl

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// gateWait bounds how long a reconcile waits for a namespace it wrote the
// quota of to admit creates again.
const gateWait = 30 * time.Second

// gateProbeName names the ResourceQuota a dry-run create asks the gate with.
const gateProbeName = "zoo-policy-probe"

// isGated reports whether err is zoo-tenant-policy-objects' refusal.
func isGated(err error) bool {
	return err != nil && strings.Contains(err.Error(), "ValidatingAdmissionPolicy '"+admissionrules.PolicyObjectsPolicy+"'")
}

// waitAdmits waits until each of namespaces admits creates again after the
// reconcile wrote its policy ResourceQuota: the API server's informer has
// it, and the quota controller has brought it into force (quotaInForce). So
// a namespace made through the proxy admits the tenant's first create as
// soon as the namespace create is answered, and `policy set` returns once
// the new shares hold. It asks with a dry-run create of a ResourceQuota,
// which the gate judges like any create (and which creates nothing); any
// other answer, an admission or a refusal of another kind, means the gate
// is open.
func (c *Client) waitAdmits(ctx context.Context, namespaces []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(applyLimit)
	for _, ns := range namespaces {
		g.Go(func() error {
			var last error
			err := wait.PollUntilContextTimeout(gctx, 50*time.Millisecond, gateWait, true, func(ctx context.Context) (bool, error) {
				_, last = c.Kube.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: gateProbeName}},
					metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				return !isGated(last), nil
			})
			if err != nil {
				return fmt.Errorf("namespace %s does not admit creates yet: %w (last answer: %v)", ns, err, last)
			}
			return nil
		})
	}
	return g.Wait()
}

// readyForQuota are the namespaces of active that have a policy
// ResourceQuota already, or every other policy object p implies there.
func (io policyIO) readyForQuota(ctx context.Context, t translate.Tenant, p policy.Policy, active []string) ([]string, error) {
	quotas, err := policyObjectsIn(ctx, t, active, io.resourceQuota)
	if err != nil {
		return nil, fmt.Errorf("read the policy ResourceQuotas of tenant %s: %w", t, err)
	}
	ready := slices.Clone(active)
	for _, k := range []policyKind{limitRangeKind, networkPolicyKind} {
		found, err := policyObjectsIn(ctx, t, active, func(ctx context.Context, ns string) (metav1.Object, error) { return k.get(ctx, io, ns) })
		if err != nil {
			return nil, fmt.Errorf("read the policy %ss of tenant %s: %w", k.kind, t, err)
		}
		ready = slices.DeleteFunc(ready, func(ns string) bool {
			_, held := quotas[ns]
			_, made := found[ns]
			obj, _, _ := k.build(t, ns, p)
			return !held && obj != nil && !made
		})
	}
	return ready, nil
}
