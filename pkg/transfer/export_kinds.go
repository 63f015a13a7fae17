package transfer

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ExportKind is a kind of the kinds table as `tenant export` treats it.
type ExportKind struct {
	// Resource is the tenant-side group and resource.
	Resource schema.GroupResource
	// Kind is the object kind.
	Kind string
	// Namespaced says the kind lives in the tenant's namespaces.
	Namespaced bool
	// Shared says the kind is a shared class (translate.Shared): the view
	// shows the cluster's objects and the tenant's own alike, and only the
	// tenant's own are exported (export_shared.go).
	Shared bool
	// Skip says why the kind is not exported; "" exports it.
	Skip string
}

// exportSkipped are the tenant's kinds (namespaced or tenant-owned rows of
// the kinds table) that an export leaves out, each with why: the rows'
// ExportSkip. Objects of exported kinds may still be left out one by one
// (exportOmit, export_clean.go).
var exportSkipped = func() map[schema.GroupResource]string {
	out := map[schema.GroupResource]string{}
	for _, r := range translate.Kinds() {
		if r.ExportSkip != "" {
			out[r.Resource] = r.ExportSkip
		}
	}
	return out
}()

// ExportKinds lists the kinds of the kinds table a tenant owns objects of
// (its namespaced, tenant-owned and shared rows), in apply order, with why a
// kind is skipped. Read-only, virtual, hidden and forbidden kinds are not
// the tenant's and never exported; the tenant's CRDs add their own kinds.
func ExportKinds() []ExportKind {
	var out []ExportKind
	for _, r := range translate.Kinds() {
		if !ownedTreatment(r.Treatment) {
			continue
		}
		out = append(out, ExportKind{Resource: r.Resource, Kind: r.Kind, Namespaced: r.Treatment == translate.Namespaced,
			Shared: r.Treatment == translate.Shared, Skip: exportSkipped[r.Resource]})
	}
	sortByApplyOrder(out, func(k ExportKind) (schema.GroupKind, bool) {
		return schema.GroupKind{Group: k.Resource.Group, Kind: k.Kind}, k.Namespaced
	})
	return out
}

// ownedTreatment reports whether a tenant owns objects of kinds of treatment.
func ownedTreatment(treatment translate.Treatment) bool {
	return treatment == translate.Namespaced || treatment == translate.TenantOwned || treatment == translate.Shared
}

// exportable reports whether objects of the resource gr are exported, and
// whether it is a shared kind: a row of ExportKinds that is not skipped, or
// a resource of one of the tenant's CRD groups (custom, from its CRDs).
func exportable(gr schema.GroupResource, custom map[string]bool) (export, shared bool) {
	if r, ok := translate.LookupKind(gr); ok {
		return ownedTreatment(r.Treatment) && exportSkipped[gr] == "", r.Treatment == translate.Shared
	}
	return custom[gr.Group], false
}
