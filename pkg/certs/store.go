package certs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// FieldManager owns spec.certificates of Tenant records; the rest of the
// record is tenantapi.FieldManager's, which never applies this field.
const FieldManager = "kubectl-zoo-cert"

// getTenant reads a Tenant record, with a one-line error when it is not
// there.
func getTenant(ctx context.Context, dyn dynamic.Interface, tenant string) (*unstructured.Unstructured, error) {
	u, err := dyn.Resource(tenantapi.TenantGVR).Get(ctx, tenant, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("tenant %q does not exist", tenant)
	case err != nil:
		return nil, fmt.Errorf("read tenant %q: %w", tenant, err)
	case u.GetDeletionTimestamp() != nil:
		return nil, fmt.Errorf("tenant %q is being deleted", tenant)
	}
	return u, nil
}

// applyRetry is how often and how long updateCertificates retries after a
// Conflict: enough for tens of concurrent writers of one record.
var applyRetry = wait.Backoff{Steps: 30, Duration: 10 * time.Millisecond, Factor: 1.5, Jitter: 1, Cap: time.Second}

// updateCertificates changes spec.certificates of a Tenant record with
// change, by a server-side apply (FieldManager) that carries the
// resourceVersion it read: a concurrent writer makes it fail with a
// Conflict, and it reads and applies again, so no update is lost. A
// non-empty uid must be the record's: a record deleted and made again
// since the caller read it is not written.
func updateCertificates(ctx context.Context, dyn dynamic.Interface, tenant string, uid types.UID, change func(Certificates) (Certificates, error)) error {
	return retry.RetryOnConflict(applyRetry, func() error {
		u, err := getTenant(ctx, dyn, tenant)
		if err != nil {
			return err
		}
		if uid != "" && u.GetUID() != uid {
			return fmt.Errorf("tenant %q was deleted and made again meanwhile", tenant)
		}
		cur, err := CertificatesOf(u)
		if err != nil {
			return err
		}
		next, err := change(cur)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(next)
		if err != nil {
			return fmt.Errorf("encode the certificate records: %w", err)
		}
		var field map[string]any
		if err := json.Unmarshal(raw, &field); err != nil {
			return fmt.Errorf("encode the certificate records: %w", err)
		}
		patch := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": tenantapi.TenantGVR.GroupVersion().String(),
			"kind":       tenantapi.TenantKind,
			"metadata":   map[string]any{"name": tenant, "resourceVersion": u.GetResourceVersion()},
			"spec":       map[string]any{"certificates": field},
		}}
		_, err = dyn.Resource(tenantapi.TenantGVR).Apply(ctx, tenant, patch, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
		if err != nil && !apierrors.IsConflict(err) {
			return fmt.Errorf("record the certificates of tenant %q: %w", tenant, err)
		}
		return err
	})
}
