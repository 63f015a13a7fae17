package translate

import (
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// MaxSharedRefs bounds the distinct references to shared kinds (storage,
// ingress, priority and runtime classes, ...) one object may hold. Each is
// resolved with a lookup upstream under the proxy's own identity (the tenant's
// own class first, else the cluster's), so without a bound one request
// could make the proxy send thousands of requests. Real objects hold a few:
// a Pod two, a StatefulSet one per volume claim template.
const MaxSharedRefs = 64

// lookupBudget counts the distinct shared references of one object. A nil
// budget is unbounded (the translator has no SharedLookup to protect).
type lookupBudget struct {
	seen map[sharedName]struct{}
}

// sharedName is one reference to a shared kind.
type sharedName struct {
	gr   schema.GroupResource
	name string
}

// take records a reference to the shared object gr/name and refuses, with
// 422, the first one past MaxSharedRefs. A name seen before is free: the
// proxy caches its lookups.
func (b *lookupBudget) take(gr schema.GroupResource, name string) error {
	if b == nil {
		return nil
	}
	key := sharedName{gr, name}
	if _, ok := b.seen[key]; ok {
		return nil
	}
	if len(b.seen) >= MaxSharedRefs {
		return &Error{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
			Message: fmt.Sprintf("the object refers to more than %d different shared objects (storage, ingress, priority or runtime classes, ...); kubectl-zoo resolves at most %d per object",
				MaxSharedRefs, MaxSharedRefs)}
	}
	if b.seen == nil {
		b.seen = make(map[sharedName]struct{}, 4)
	}
	b.seen[key] = struct{}{}
	return nil
}
