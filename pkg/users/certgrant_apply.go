package users

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ApplyCertGrant writes g's grant (the role first: a binding to a missing
// role grants nothing). The tenant must exist.
func (c *Client) ApplyCertGrant(ctx context.Context, g platformobj.CertGrant) error {
	rec, err := c.liveTenant(ctx, g.Tenant)
	if err != nil {
		return err
	}
	role, binding, err := platformobj.CertGrantRBAC(g, tenantOwnerRef(rec.Name, rec.UID))
	if err != nil {
		return err
	}
	if _, err := c.Apply(ctx, role, false); err != nil {
		return err
	}
	_, err = c.Apply(ctx, binding, false)
	return err
}

// DeleteCertGrant deletes the grant of the certificate with serial in
// tenant (the binding first: the grant ends with it); a missing one is no
// error.
func (c *Client) DeleteCertGrant(ctx context.Context, tenant, serial string) error {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return err
	}
	return c.deleteUserGrantObjects(ctx, platformobj.CertGrantName(t, serial))
}

// CertGrantSerials lists the serials of the certificates of tenant that
// have a grant.
func (c *Client) CertGrantSerials(ctx context.Context, tenant string) ([]string, error) {
	t, err := translate.NewTenant(tenant)
	if err != nil {
		return nil, err
	}
	l, err := c.Kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{LabelSelector: platformobj.CertGrantTenantLabel + "=" + t.Name()})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("list the certificate grants of tenant %s: %w", t, err)
	}
	var out []string
	if l == nil {
		return out, nil
	}
	for _, b := range l.Items {
		if serial, ok := strings.CutPrefix(b.Name, platformobj.CertGrantPrefix+t.Name()+":"); ok {
			out = append(out, serial)
		}
	}
	return out, nil
}

// Certs is c as the certificates library uses it: its clients, and c as
// the writer of certificate grants.
func (c *Client) Certs() certs.Client {
	return certs.Client{Config: c.Config, Kube: c.Kube, Dynamic: c.Dynamic, Grants: c}
}
