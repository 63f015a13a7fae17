package translate

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SubresourceClass says what tenants may do with one subresource of a kind.
// The zero value is unclassified, which both layers refuse: the proxy with a
// 403, the zoo-tenant policy upstream (for writes and connects; reads of a
// tenant's own objects are RBAC's).
type SubresourceClass int

// The classes of a subresource.
const (
	// SubresourceUnclassified is a subresource the table does not know:
	// refused.
	SubresourceUnclassified SubresourceClass = iota
	// SubresourceAllowed is served as in any cluster, on the tenant's own
	// objects: every verb the API server serves on it (exec and attach
	// streams, a tenant object's own status).
	SubresourceAllowed
	// SubresourceTranslated is allowed, and its body is translated: the
	// object itself (a pod's ephemeral containers) or an object that names
	// its parent (Scale, Eviction, Binding, TokenRequest).
	SubresourceTranslated
	// SubresourceConfined is allowed under a rule of the row
	// (Subresource.Guard, Subresource.Reason) that both layers hold.
	SubresourceConfined
	// SubresourceReadOnly may be read but never written: what it holds is
	// written by the platform's controllers, and others act on it.
	SubresourceReadOnly
	// SubresourceRefused is refused for every verb.
	SubresourceRefused
)

// String names the class.
func (c SubresourceClass) String() string {
	switch c {
	case SubresourceAllowed:
		return "allowed"
	case SubresourceTranslated:
		return "translated"
	case SubresourceConfined:
		return "confined"
	case SubresourceReadOnly:
		return "read-only"
	case SubresourceRefused:
		return "refused"
	}
	return "unclassified"
}

// Writable reports whether tenants may write (update, patch, create,
// connect) a subresource of the class.
func (c SubresourceClass) Writable() bool {
	return c == SubresourceAllowed || c == SubresourceTranslated || c == SubresourceConfined
}

// Subresource is the classification of one subresource of a kind.
type Subresource struct {
	// Name is the subresource ("status", "finalize", "exec").
	Name string
	// Class is what tenants may do with it.
	Class SubresourceClass
	// Reason says why (shown in the 403 of a refused or read-only one, and
	// in docs/kinds.md for every class).
	Reason string
	// Guard is the rule of a confined subresource, when it is one the
	// table can state (a pod's status fields are PlatformStatusFields').
	Guard *SubresourceGuard
}

// SubresourceGuard is what a write of a confined subresource must hold.
// Guards compare the new object with the old one, which only the upstream
// knows at the moment of the write, so the zoo-tenant policy holds them on
// every path (the proxy's requests are the tenant identity's).
type SubresourceGuard struct {
	// CEL is a CEL boolean over object and oldObject that must be true
	// for a write of a judged identity.
	CEL string
}

// Every kind the API server serves status or scale for gets them from these
// helpers, so a row says only what differs.
var (
	// statusOwn is the status of a tenant object that no platform component
	// acts on: the tenant's controllers write it, as in any cluster.
	statusOwn = Subresource{Name: "status", Class: SubresourceAllowed,
		Reason: "the tenant's own object; no component of the platform acts on its status"}
	// scaleOwn is the Scale of a tenant workload: its name is the parent's.
	scaleOwn = Subresource{Name: "scale", Class: SubresourceTranslated,
		Reason: "a Scale names its parent, translated like it; it changes only the tenant's own workload"}
	// proxyRefused is the proxy subresource of every kind that has one.
	proxyRefused = Subresource{Name: "proxy", Class: SubresourceRefused,
		Reason: "the proxy subresource makes the API server dial an address the tenant controls"}
)

// platformStatus is the status of a kind whose status the platform's
// controllers write and others act on (PlatformStatus).
func platformStatus(what string) Subresource {
	return Subresource{Name: "status", Class: SubresourceReadOnly, Reason: what}
}

// subresources returns the list, checking names are unique at init.
func subresources(subs ...Subresource) []Subresource { return subs }

// SubresourceOf returns the classification of the subresource sub of the
// row; the class is SubresourceUnclassified when the row does not name it.
// Rules built for CRDs (not rows of the table) get what the API server
// serves for custom resources: status and scale, the tenant's own.
func (r *KindRule) SubresourceOf(sub string) Subresource {
	for _, s := range r.Subresources {
		if s.Name == sub {
			return s
		}
	}
	// Only a tenant's own CRDs (a group of the protected domains that
	// Kubernetes does not serve is one too, IsSharedGroup): a platform API
	// in a shared group has a status its controllers write and others act
	// on, as an Ingress's.
	if _, row := kindsByResource[r.Resource]; !row && !IsSharedGroup(r.Resource.Group) && (r.Treatment == Namespaced || r.Treatment == TenantGroup) {
		switch sub {
		case "status":
			return statusOwn
		case "scale":
			return scaleOwn
		}
	}
	return Subresource{Name: sub}
}

// PlatformStatus reports whether the kind's status is the platform's
// (written by its controllers, acted on by others): its status
// subresource is read-only for tenants.
func (r *KindRule) PlatformStatus() bool {
	return r.SubresourceOf("status").Class == SubresourceReadOnly
}

// checkSubresource refuses what the row's classification of the request's
// subresource does not allow for the verb.
func checkSubresource(rule *KindRule, info RequestInfo) error {
	if info.Subresource == "" {
		return nil
	}
	s := rule.SubresourceOf(info.Subresource)
	read := info.Verb == "get" || info.Verb == "list" || info.Verb == "watch"
	if s.Class == SubresourceUnclassified || s.Class == SubresourceRefused || (s.Class == SubresourceReadOnly && !read) {
		return forbidden(rule.Resource, info.Name, s.Refusal(rule.Resource))
	}
	return nil
}

// Refusal is the message of a refused request of the subresource of gr
// (an unclassified or refused one, or a write of a read-only one): the
// proxy's 403 and the zoo-tenant policy's say the same.
func (s Subresource) Refusal(gr schema.GroupResource) string {
	switch {
	case s.Class == SubresourceUnclassified:
		return fmt.Sprintf("the subresource %s of %s is not classified for tenants in the kinds table", s.Name, gr.String())
	case s.Class == SubresourceReadOnly && s.Name == "status":
		return fmt.Sprintf("the status of %s is written by the shared cluster's controllers; tenants may read it but not write it (%s)", gr.String(), s.Reason)
	case s.Class == SubresourceReadOnly:
		return fmt.Sprintf("tenants may read %s/%s but not write it (%s)", gr.String(), s.Name, s.Reason)
	}
	return fmt.Sprintf("tenants may not use %s/%s: %s", gr.String(), s.Name, s.Reason)
}

// ClassifiedSubresource is one classified subresource of a table row, for
// the generated upstream rule and docs/kinds.md.
type ClassifiedSubresource struct {
	Resource schema.GroupResource
	Subresource
}

// Subresources returns every subresource the kinds table classifies, in
// table order.
func Subresources() []ClassifiedSubresource {
	var out []ClassifiedSubresource
	for i := range kindTable {
		for _, s := range kindTable[i].Subresources {
			out = append(out, ClassifiedSubresource{Resource: kindTable[i].Resource, Subresource: s})
		}
	}
	return out
}

// CustomResourceSubresources are the subresources the API server may serve
// for a custom resource, with their class for a tenant's own CRDs.
func CustomResourceSubresources() []Subresource { return []Subresource{statusOwn, scaleOwn} }

// checkSubresourceNames panics on a row that names a subresource twice.
func checkSubresourceNames(r *KindRule) {
	seen := make([]string, 0, len(r.Subresources))
	for _, s := range r.Subresources {
		if slices.Contains(seen, s.Name) || s.Class == SubresourceUnclassified || s.Reason == "" {
			panic("translate: subresource " + s.Name + " of " + r.Resource.String() + " is repeated, unclassified or has no reason")
		}
		seen = append(seen, s.Name)
	}
}
