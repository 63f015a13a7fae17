package policyctl

import "github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"

// Client brings tenants' policies into force as the upstream cluster's
// administrator: the stored policy, the grants admission reads, the policy
// objects of every tenant namespace and the namespace limit.
type Client struct {
	*upstream.Client
}

// New returns the policies' Client of the administrator's client c.
func New(c *upstream.Client) *Client {
	return &Client{Client: c}
}
