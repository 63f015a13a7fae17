package users

import "github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"

// Client manages a tenant's users as the upstream cluster's administrator:
// the user grants and the certificate grants.
type Client struct {
	*upstream.Client
}

// New returns the users' Client of the administrator's client c.
func New(c *upstream.Client) *Client {
	return &Client{Client: c}
}
