package zooserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/lru"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// namespaceTTL is how long a namespace's owner, once read, is believed (as
// long as a TokenReview's answer).
const namespaceTTL = tokenCacheTTL

// maxNamespaces bounds the namespaces remembered.
const maxNamespaces = 4096

// namespaceOwners answers whose a ServiceAccount's namespace is: a
// namespace with a tenant's prefix is that tenant's only when it carries
// the tenant's label (the platform may have made one with the prefix, e.g.
// cert-manager for a tenant cert made earlier); its ServiceAccounts are
// then no tenant's identities.
type namespaceOwners struct {
	client kubernetes.Interface

	mu    sync.Mutex
	known *lru.Cache // upstream namespace → namespaceOwner
}

type namespaceOwner struct {
	tenant string
	at     time.Time
}

func newNamespaceOwners(client kubernetes.Interface) *namespaceOwners {
	return &namespaceOwners{client: client, known: lru.New(maxNamespaces)}
}

// owns reports whether the upstream namespace ns is labeled as tenant's.
func (n *namespaceOwners) owns(ctx context.Context, tenant translate.Tenant, ns string) (bool, error) {
	n.mu.Lock()
	v, ok := n.known.Get(ns)
	n.mu.Unlock()
	if o, fresh := v.(namespaceOwner); ok && fresh && time.Since(o.at) < namespaceTTL {
		return o.tenant == tenant.Name(), nil
	}
	owner := ""
	got, err := n.client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return false, fmt.Errorf("reading the namespace of a ServiceAccount: %w", err)
	default:
		owner = got.Labels[translate.TenantLabel]
	}
	n.mu.Lock()
	n.known.Add(ns, namespaceOwner{tenant: owner, at: time.Now()})
	n.mu.Unlock()
	return owner == tenant.Name(), nil
}
