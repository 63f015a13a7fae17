package tenantctl

import (
	"context"

	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/install"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policyctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// Client manages tenants as the upstream cluster's administrator: the
// shared client (upstream.Client) and its verbs, with the tenant
// lifecycle's methods.
type Client struct {
	*upstream.Client
}

// NewClient returns a Client for config (upstream.NewClient).
func NewClient(config *rest.Config) (*Client, error) {
	c, err := upstream.NewClient(config)
	if err != nil {
		return nil, err
	}
	return &Client{Client: c}, nil
}

// PolicyClientFor is the tenant library's client of the proxy's policy
// hooks (localproxy.Config.NewPolicyClient): the policy client (policyctl)
// and the wake of a Client for config, which lists
// a tenant's namespaces from namespaces when set.
func PolicyClientFor(config *rest.Config, namespaces tenantapi.NamespaceSource) (tenantapi.PolicyClient, error) {
	c, err := NewClient(config)
	if err != nil {
		return nil, err
	}
	c.Namespaces = namespaces
	return policyClient{Client: c.policy(), tenants: c}, nil
}

// policy is c's policyctl client.
func (c *Client) policy() *policyctl.Client { return policyctl.New(c.Client) }

// policyClient is the proxy's tenantapi.PolicyClient: the policy reconciles
// of policyctl, and the wake of a sleeping tenant.
type policyClient struct {
	*policyctl.Client
	tenants *Client
}

// WakeTenant is Client.WakeTenant.
func (p policyClient) WakeTenant(ctx context.Context, tenant string) (tenantapi.SleepResult, error) {
	return p.tenants.WakeTenant(ctx, tenant)
}

// install is c's install client.
func (c *Client) install() *install.Client { return install.New(c.Client) }
