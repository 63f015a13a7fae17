package localproxy

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// An all-namespaces list or watch is served namespace by namespace, as the
// identity: a namespace it may not read (a tenant user bound in some of
// the tenant's namespaces only, a namespace whose RoleBindings are not made
// yet) would fail the whole request, every `-A` list and every cluster-wide
// informer. The fan-out leaves such a namespace out instead, and says so in
// a Warning header, as the API server sends its warnings (kubectl prints
// them). Only a refusal (403) is left out; any other failure of a leg is
// the answer, as is the refusal when the identity may read no namespace at
// all: a user with no right anywhere is refused, not served an empty list.

// warnSkipped adds the Warning that names the upstream namespaces nss, in
// the tenant's terms, which the fan-out u left out.
func (p *Proxy) warnSkipped(w http.ResponseWriter, u *translate.UpstreamRequest, nss []string) {
	if len(nss) == 0 {
		return
	}
	names := make([]string, 0, len(nss))
	for _, ns := range nss {
		if local, ok := p.tenant.TenantNamespace(ns); ok {
			names = append(names, local)
		}
	}
	_, resource := describe(u)
	msg := fmt.Sprintf("the %s leaves out the namespaces where you may not %s %s: %s",
		u.Info.Verb, u.Info.Verb, resource, strings.Join(names, ", "))
	w.Header().Add("Warning", fmt.Sprintf("299 - %q", msg))
}
