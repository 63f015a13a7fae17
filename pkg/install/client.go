package install

import "github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"

// Client installs kubectl-zoo's cluster-side objects as the upstream
// cluster's administrator: `kubectl zoo install` and `install --server`.
type Client struct {
	*upstream.Client
}

// New returns the install Client of the administrator's client c.
func New(c *upstream.Client) *Client {
	return &Client{Client: c}
}
