package translate

import (
	"fmt"
)

// Storage classes as the PersistentVolume binder sees them.
//
// The kube-controller-manager's binder pairs a claim with an Available volume
// by storage class name (the string, whether or not a StorageClass object of
// that name exists), access modes, size, selector and volume mode. Selectors
// are the claim's to choose, so the class is the only thing a volume can use
// to keep other tenants' claims away. Hence:
//
//   - a tenant's volume always has a class in the tenant's prefix upstream:
//     class C (its own, a shared one or one that exists nowhere) is stored as
//     "<t>-C", and a volume without class as "<t>-"+NoStorageClass;
//   - a tenant's claim for class C names the tenant's own StorageClass C if it
//     has one ("<t>-C"), else the cluster's shared StorageClass C (so dynamic
//     provisioning and the platform's volumes of that class keep working),
//     else "<t>-C" (a class of the tenant's own volumes only). A claim with
//     storageClassName "" asks for the tenant's class-less volumes; a claim
//     without storageClassName is left to the cluster's default class.
//
// So no claim of another tenant can carry a tenant volume's class, and the
// binder never pairs across tenants; admission (zoo-tenant-storage) holds the
// same invariants for writes that do not come through the proxy. A tenant's
// volume of a shared class C is therefore never matched by a claim for C
// (that claim gets the cluster's volumes): pre-bind it with spec.claimRef.

// NoStorageClass is the tenant-local name of the reserved class of a tenant's
// volumes and claims without class: "<t>-zoo-no-class" upstream. Tenants may
// not name a class so.
const NoStorageClass = "zoo-no-class"

// BetaStorageClassAnnotation is the deprecated annotation the binder reads
// before spec.storageClassName; tenants may not set it.
const BetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

// pvClassRef is PersistentVolume spec.storageClassName: always in the
// tenant's prefix upstream; the reserved class is shown as no class.
var pvClassRef = Ref{Field: "spec.storageClassName", Target: TargetOwned, apply: func(m *mapper, obj map[string]any) error {
	spec := child(obj, "spec")
	if spec == nil {
		return nil
	}
	v, present := spec["storageClassName"]
	if !m.in {
		if s, ok := v.(string); ok && s != "" {
			local, err := m.classOut(s)
			if err != nil && !IsNotTenants(err) {
				return err
			}
			if local == "" {
				delete(spec, "storageClassName")
			} else {
				spec["storageClassName"] = local
			}
		}
		return nil
	}
	if !present {
		return nil // a patch that leaves the class alone; whole objects are completed by completePV
	}
	s, _ := v.(string) // null (a patch removing the class) counts as no class
	up, err := m.ownClass(s)
	if err != nil {
		return err
	}
	spec["storageClassName"] = up
	return nil
}}

// completePV makes the missing class of a whole PersistentVolume (create,
// update, server-side apply) explicit, so that pvClassRef gives it the
// tenant's reserved class.
func completePV(_ *mapper, obj map[string]any) error {
	spec := ensureChild(obj, "spec")
	if _, present := spec["storageClassName"]; !present {
		spec["storageClassName"] = ""
	}
	return nil
}

// claimClassRef is the storageClassName of a claim spec found at path: a
// PersistentVolumeClaim's, a StatefulSet's volumeClaimTemplates', a generic
// ephemeral volume's.
func claimClassRef(path string) Ref {
	field := "storageClassName"
	if path != "" {
		field = path + "." + field
	}
	return Ref{Field: field, Target: TargetShared, apply: func(m *mapper, obj map[string]any) error {
		return walk(obj, path, func(spec map[string]any) error {
			s, ok := spec["storageClassName"].(string)
			if !ok {
				return nil // absent (the cluster's default class) or null
			}
			var err error
			if m.in {
				s, err = m.claimClassIn(s)
			} else if s != "" {
				s, err = m.claimClassOut(s)
			}
			if !m.in && IsNotTenants(err) {
				delete(spec, "storageClassName")
				return nil
			}
			if err != nil {
				return err
			}
			spec["storageClassName"] = s
			return nil
		})
	}}
}

// ownClassRef is a storageClassName at path that only ever names a class of
// the tenant's own volumes (a CSIStorageCapacity's: the scheduler believes
// the capacity published for a class, whatever namespace publishes it, so a
// tenant publishes it for its own classes only).
func ownClassRef(path string) Ref {
	return stringField(TargetOwned, path, "storageClassName", func(m *mapper, _ map[string]any, v string) (string, error) {
		if m.in {
			return m.ownClass(v)
		}
		return m.classOut(v)
	})
}

// ownClass maps a class of a tenant volume: always into the tenant's prefix.
func (m *mapper) ownClass(local string) (string, error) {
	if local == NoStorageClass {
		return "", reservedClassError(local)
	}
	if local == "" {
		local = NoStorageClass
	}
	return m.tenant().UpstreamClusterName("StorageClass", grStorageClass.Group, local)
}

// claimClassIn maps the class a tenant claim asks for: its own StorageClass,
// else the cluster's shared one, else a class of its own volumes only.
func (m *mapper) claimClassIn(local string) (string, error) {
	if local == "" || local == NoStorageClass {
		return m.ownClass(local)
	}
	if err := m.lookups.take(grStorageClass, local); err != nil { // refs_budget.go
		return "", err
	}
	if sh := m.t.opts.Shared; sh == nil || (!sh.TenantOwns(grStorageClass, local) && sh.SharedExists(grStorageClass, local)) {
		return local, nil
	}
	return m.ownClass(local)
}

// classOut maps the upstream class of a tenant volume (or capacity) back:
// the tenant's own without prefix, the reserved class as "". Any other class
// is not the tenant's (an upstream admin or controller wrote it): shown as
// it is, its name would stand for the tenant's own class of that name, so
// it is an ErrNotTenants and left out.
func (m *mapper) classOut(up string) (string, error) {
	local, ok := m.tenant().TenantClusterName(up)
	switch {
	case !ok:
		return "", foreign("storage class", up)
	case local == NoStorageClass:
		return "", nil
	}
	return local, nil
}

// claimClassOut maps the upstream class a claim asks for back: the
// tenant's own as classOut does, the cluster's as it is, and one in
// another tenant's prefix (which no claim through the proxy can name) as
// ErrNotTenants, left out rather than shown as a name that may be the
// tenant's own class.
func (m *mapper) claimClassOut(up string) (string, error) {
	if _, ok := m.tenant().TenantClusterName(up); ok {
		return m.classOut(up)
	}
	if m.t.otherTenantsName(up) {
		return "", foreign("storage class", up)
	}
	return up, nil
}

func reservedClassError(name string) error {
	return forbidden(grStorageClass, name, fmt.Sprintf("the storage class name %q is reserved by kubectl-zoo for volumes without class", name))
}

// storageClassAnnotation is refused on volumes and claims: the binder reads
// it before spec.storageClassName, so it would take the class past the
// translation above.
var storageClassAnnotation = AnnotationRule{Key: BetaStorageClassAnnotation,
	Reason: "it is deprecated, and the binder would read it before spec.storageClassName: use spec.storageClassName"}

// checkStorageClass refuses a tenant StorageClass of the reserved name.
func checkStorageClass(m *mapper, obj map[string]any) error {
	if str(child(obj, "metadata"), "name") == m.tenant().Prefix()+NoStorageClass {
		return reservedClassError(NoStorageClass)
	}
	return nil
}
