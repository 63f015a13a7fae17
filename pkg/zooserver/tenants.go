package zooserver

import (
	"context"
	"crypto/x509"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// tenantResync is the informer's resync period: none, the watch is the
// source of truth.
const tenantResync = 0 * time.Second

// tenantIndex follows the Tenant records with an informer: a caller whose
// tenant has no record is refused, spec.admins says which users act as the
// tenant's administrators, and a client certificate whose serial the record
// says is revoked (spec.certificates, `kubectl zoo cert revoke`), or that was
// issued under an earlier record of the same name, is refused.
type tenantIndex struct {
	informer cache.SharedIndexInformer
}

func newTenantIndex(client dynamic.Interface) *tenantIndex {
	inf := dynamicinformer.NewFilteredDynamicInformer(client, tenantapi.TenantGVR, "", tenantResync, cache.Indexers{}, nil)
	informer := inf.Informer()
	// Only the name, deletion, spec.admins and the revoked serials are read:
	// keep no managed fields, and the certificate records only as the set of
	// revoked serials (revokedField), computed once per change of the record.
	_ = informer.SetTransform(transformTenant)
	return &tenantIndex{informer: informer}
}

// onRevoke calls revoke with a tenant's name when its record is deleted,
// starts being deleted, or changes spec.admins: what its callers were
// served as may no longer hold.
func (t *tenantIndex) onRevoke(revoke func(tenant string)) {
	_, _ = t.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*unstructured.Unstructured)
			n, ok2 := newObj.(*unstructured.Unstructured)
			if !ok1 || !ok2 {
				return
			}
			oa, _, _ := unstructured.NestedStringSlice(o.Object, "spec", "admins")
			na, _, _ := unstructured.NestedStringSlice(n.Object, "spec", "admins")
			if !slices.Equal(oa, na) || (n.GetDeletionTimestamp() != nil && o.GetDeletionTimestamp() == nil) {
				revoke(n.GetName())
			}
		},
		DeleteFunc: func(obj any) { onDeleted(obj, revoke) },
	})
}

// onDelete calls gone with a tenant's name when its record is deleted.
func (t *tenantIndex) onDelete(gone func(tenant string)) {
	_, _ = t.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) { onDeleted(obj, gone) },
	})
}

// onDeleted calls f with the name of the record an informer's delete event
// carries.
func onDeleted(obj any, f func(tenant string)) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		f(u.GetName())
	}
}

// run follows the records until ctx ends.
func (t *tenantIndex) run(ctx context.Context) { t.informer.RunWithContext(ctx) }

// synced reports whether the first list is in.
func (t *tenantIndex) synced() bool { return t.informer.HasSynced() }

// lookup returns whether tenant has a record and whether user (tenant-local)
// is one of its administrators. A record being deleted counts as gone.
func (t *tenantIndex) lookup(tenant, user string) (exists, admin bool) {
	obj, ok, err := t.informer.GetStore().GetByKey(tenant)
	if err != nil || !ok {
		return false, false
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || beingDeleted(u) {
		return false, false
	}
	return true, isAdmin(u, user)
}

// beingDeleted is u.GetDeletionTimestamp() != nil, without making the
// timestamp of a record that has none.
func beingDeleted(u *unstructured.Unstructured) bool {
	ts, _, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "deletionTimestamp")
	if s, ok := ts.(string); !ok || s == "" {
		return false
	}
	return u.GetDeletionTimestamp() != nil
}

// isAdmin reports whether user is in u's spec.admins (none when it holds
// anything but strings, as unstructured.NestedStringSlice reads it),
// without copying the list.
func isAdmin(u *unstructured.Unstructured, user string) bool {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "admins")
	admins, _ := v.([]any)
	found := false
	for _, a := range admins {
		s, ok := a.(string)
		if !ok {
			return false
		}
		found = found || s == user
	}
	return found
}

// transformTenant keeps of a Tenant record what the server reads: no
// managed fields, and of spec.certificates only the set of revoked serials
// (revokedField), computed once per change of the record.
func transformTenant(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	u.SetManagedFields(nil)
	keepRateLimit(u) // tenants_ratelimit.go
	revoked := certs.RevokedSerials(u)
	if c, err := certs.CertificatesOf(u); err == nil {
		keepCertUsers(u, c) // certuser.go
	}
	unstructured.RemoveNestedField(u.Object, "spec", "certificates")
	if len(revoked) > 0 {
		set := make(map[string]any, len(revoked))
		for serial := range revoked {
			set[serial] = true
		}
		u.Object[revokedField] = set
	}
	return u, nil
}

// revokedField is where the transform keeps a record's revoked serials
// (a JSON object of serial: true, so that the object stays deep-copyable),
// beside the API fields, in the informer's copy only.
const revokedField = "zooRevokedSerials"

// refusesCertificate says why tenant's record refuses a client certificate
// of the tenant's, or "" when it does not: the record says it is revoked,
// or it was issued under an earlier record of the name
// (certs.CheckIssuedUnder: the tenant was deleted and made again since, and
// with the old record went its revocations).
func (t *tenantIndex) refusesCertificate(tenant string, leaf *x509.Certificate) string {
	obj, ok, err := t.informer.GetStore().GetByKey(tenant)
	if err != nil || !ok {
		return "" // no record: lookup refuses the caller
	}
	serial := certs.SerialString(leaf.SerialNumber)
	if revokedIn(obj, serial) {
		return "certificate " + serial + " is revoked"
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if err := certs.CheckIssuedUnder(leaf, u.GetUID()); err != nil {
			return err.Error()
		}
	}
	return ""
}

// revokedIn reports whether a transformed record lists serial as revoked.
func revokedIn(obj any, serial string) bool {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return false
	}
	set, _ := u.Object[revokedField].(map[string]any)
	_, found := set[serial]
	return found
}

// exists reports whether tenant has a record (the proxies' question whether
// a name in an answer is another tenant's prefix).
func (t *tenantIndex) exists(tenant string) bool {
	ok, _ := t.lookup(tenant, "")
	return ok
}
