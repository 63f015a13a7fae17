package localproxy

import (
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The rows whose requests the proxy may send with its own identity
// (tenant_group.go, confined.go, reviews.go): each row is in one of them at
// most (TestBehavioursAreRegisteredByKind), so that a refusal of the own
// identity is answered by the behaviour that chose it.

// isTenantGroupRow selects the resources of a tenant's CRD groups.
func isTenantGroupRow(k *translate.KindRule) bool { return k.Treatment == translate.TenantGroup }

// isConfinedRow selects the tenant-owned kinds no tenant identity may write
// upstream (translate.AccessProxy).
func isConfinedRow(k *translate.KindRule) bool {
	return k.Access == translate.AccessProxy && k.Treatment == translate.TenantOwned
}

// isProxyCreatesRow selects the reviews the proxy creates for the tenant.
func isProxyCreatesRow(k *translate.KindRule) bool { return k.ProxyCreates }

// ownIdentity reports whether r's upstream requests go with the proxy's own
// identity.
func ownIdentity(r *http.Request) bool { return r.Context().Value(ownIdentityKey{}) != nil }

// switchIdentity goes on with own, the request with the identity a
// behaviour chose, or answers st (answered) when it refused the request.
func (x *exchange) switchIdentity(own *http.Request, st *metav1.Status) (answered bool) {
	if st != nil {
		writeStatus(x.w, st)
		return true
	}
	x.r = own
	return false
}

// readRefusal reads the beginning of a refusal, for the log.
func readRefusal(resp *http.Response) []byte {
	upstream, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return upstream
}
