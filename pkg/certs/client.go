package certs

import (
	"context"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
)

// Client is what certs needs of the cluster: its clientsets, and the
// grants that let a certificate's user act as its tenant identity, which
// the tenant library (tenantctl.Client) applies as it applies every object
// of a tenant.
type Client struct {
	// Config is the caller's own REST config (the cluster's address and
	// CA, for a kubeconfig of the cluster's signer).
	Config  *rest.Config
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	Grants  Granter
}

// Granter writes, deletes and lists the grants of the certificates of the
// cluster's signer (platformobj.CertGrant).
type Granter interface {
	// ApplyCertGrant writes g's grant; the tenant must exist.
	ApplyCertGrant(ctx context.Context, g platformobj.CertGrant) error
	// DeleteCertGrant deletes the grant of serial in tenant; a missing
	// one is no error.
	DeleteCertGrant(ctx context.Context, tenant, serial string) error
	// CertGrantSerials lists the serials of tenant's certificates that
	// have a grant.
	CertGrantSerials(ctx context.Context, tenant string) ([]string, error)
}
