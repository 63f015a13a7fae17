package zooserver

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/nssetup"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// newNamespaceSetup returns the reconcile that keeps every tenant's
// namespaces set up, whatever made them (pkg/nssetup). It reads the
// records from the server's informer, and upstream only for one the
// informer does not hold (yet).
func (s *Server) newNamespaceSetup() (*nssetup.Reconciler, error) {
	store := s.tenants.informer.GetStore()
	record := func(ctx context.Context, tenant string) (*tenantapi.Tenant, error) {
		obj, ok, err := store.GetByKey(tenant)
		if u, isU := obj.(*unstructured.Unstructured); err == nil && ok && isU {
			return tenantapi.TenantFromUnstructured(u)
		}
		return s.policyClient.TenantRecord(ctx, tenant)
	}
	r, err := nssetup.New(nssetup.Config{Kube: s.policyClient.Kube, Client: s.policyClient, Upstream: s.cfg.Upstream, Record: record,
		RecordsSynced: s.tenants.informer.HasSynced})
	if err != nil {
		return nil, fmt.Errorf("namespace set-up: %w", err)
	}
	return r, nil
}
