package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// DefaultNames are the scratch tenants' names: the attacker, then the
// victim.
var DefaultNames = [2]string{"zooverify1", "zooverify2"}

// ScratchLabel marks the Tenant record of a scratch tenant of verify's
// (value ScratchValue): verify deletes only tenants that carry it.
const (
	ScratchLabel = translate.APIGroup + "/verify"
	ScratchValue = "scratch"
)

// CleanupTimeout bounds the deletion of the scratch tenants, which runs
// with a context of its own (also after an interrupt).
const CleanupTimeout = 3 * time.Minute

// scratch makes and removes the scratch tenants.
type scratch struct {
	client *tenantctl.Client
	log    func(format string, args ...any)
}

// preflight refuses a scratch name held by a tenant that is not verify's,
// and one held by a scratch tenant of an earlier run unless yes (it is then
// deleted first).
func (s *scratch) preflight(ctx context.Context, names []string, yes bool) error {
	var earlier []string
	for _, name := range names {
		info, _, err := s.client.GetTenant(ctx, name)
		if isTenantNotFound(err, name) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read tenant %s: %w", name, err)
		}
		if info.Tenant.Labels[ScratchLabel] != ScratchValue {
			return fmt.Errorf("tenant %s exists and is not a scratch tenant of verify (no label %s=%s); verify touches only what it made", name, ScratchLabel, ScratchValue)
		}
		earlier = append(earlier, name)
	}
	if len(earlier) == 0 {
		return nil
	}
	if !yes {
		return fmt.Errorf("the scratch tenants %s of an earlier run exist; run again with --yes to delete and remake them", strings.Join(earlier, ", "))
	}
	return s.remove(earlier)
}

// create makes the scratch tenant name and labels its record as verify's.
func (s *scratch) create(ctx context.Context, name string) (*tenantctl.CreateResult, error) {
	s.log("creating scratch tenant %s", name)
	res, err := s.client.CreateTenant(ctx, tenantctl.CreateOptions{Name: name, DisplayName: "kubectl zoo verify: scratch tenant"})
	if err != nil {
		return nil, err
	}
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, ScratchLabel, ScratchValue)
	if _, err := s.client.Dynamic.Resource(tenantapi.TenantGVR).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return nil, fmt.Errorf("label scratch tenant %s: %w", name, err)
	}
	return res, nil
}

// remove deletes the scratch tenants names and waits until their namespaces
// are gone, with a context of its own bounded by CleanupTimeout, so that an
// interrupt of the run does not interrupt it.
func (s *scratch) remove(names []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
	defer cancel()
	var failed []string
	for _, name := range names {
		s.log("deleting scratch tenant %s", name)
		_, err := s.client.DeleteTenant(ctx, name, tenantctl.DeleteOptions{Wait: true, Timeout: CleanupTimeout})
		if err != nil && !isTenantNotFound(err, name) {
			failed = append(failed, fmt.Sprintf("delete scratch tenant %s (run `kubectl zoo tenant delete %s`): %s", name, name, oneLine(err.Error(), 200)))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return errors.New(strings.Join(failed, "; "))
}

// isTenantNotFound says err is tenantctl's answer for a tenant name that
// holds nothing.
func isTenantNotFound(err error, name string) bool {
	return apierrors.IsNotFound(err) || (err != nil && err.Error() == fmt.Sprintf("tenant %q not found", name))
}
