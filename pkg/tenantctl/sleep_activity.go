package tenantctl

import (
	"context"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// RecordActivity stores at as the tenant's status.lastActivity unless the
// record holds a later one: server replicas share when they last saw a
// request of the tenant's, so that one that saw none does not put to sleep
// a tenant busy on another. The update carries the record's
// resourceVersion; after a Conflict it reads and compares again.
func (c *Client) RecordActivity(ctx context.Context, name string, at time.Time) error {
	return retry.RetryOnConflict(policyctl.ConflictRetry, func() error {
		rec, err := c.readRecord(ctx, name)
		if err != nil {
			return err
		}
		if last := rec.Status.LastActivity; last != nil && !at.After(last.Time) {
			return nil
		}
		rec.Status.LastActivity = &metav1.Time{Time: at.UTC().Truncate(time.Second)}
		_, err = c.storeSleep(ctx, rec) // a Conflict is retried
		return err
	})
}
