package localproxy

import (
	"net/http"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// forgetShared drops the cached lookups of a shared kind once a write of it
// succeeded, so that the answer's translation and the tenant's next request
// see the tenant's own class (shared.go). A write that failed changed
// nothing to see, and a lookup is believed for sharedTTL only.
type forgetShared struct{}

// isSharedRow selects the kinds the cluster and its tenants share
// (translate.Shared).
func isSharedRow(k *translate.KindRule) bool { return k.Treatment == translate.Shared }

func (forgetShared) after(p *Proxy, x *exchange, _ *http.Response) {
	switch x.u.Info.Verb {
	case "get", "list", "watch":
		return
	}
	p.shared.forget(x.u.Info.GroupResource())
}
