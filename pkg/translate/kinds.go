package translate

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Treatment says how the proxy treats a kind.
type Treatment int

// The treatments of the kinds table.
const (
	// Namespaced kinds live in tenant namespaces; their namespace is prefixed.
	Namespaced Treatment = iota + 1
	// TenantOwned kinds are cluster-scoped and owned by one tenant: their name
	// is prefixed, they carry TenantLabel, and lists are filtered by it.
	TenantOwned
	// Shared kinds are cluster-scoped classes: the cluster's own objects are
	// visible read-only and unprefixed, a tenant's own are stored prefixed
	// (with TenantLabel) and shown unprefixed, and may not shadow a shared one.
	Shared
	// ReadOnly kinds are the cluster's own, visible unprefixed, never writable.
	ReadOnly
	// TenantGroup marks cluster-scoped resources of a tenant CRD group: the
	// whole resource belongs to the tenant, so names are not prefixed.
	TenantGroup
	// Virtual kinds are create-only reviews that are never stored; only their
	// references are translated.
	Virtual
	// Hidden kinds do not exist for tenants (404 and absent from discovery).
	Hidden
	// Forbidden kinds are refused with 403 naming the reason.
	Forbidden
)

// String names the treatment.
func (t Treatment) String() string {
	switch t {
	case Namespaced:
		return "namespaced"
	case TenantOwned:
		return "tenant-owned"
	case Shared:
		return "shared"
	case ReadOnly:
		return "read-only"
	case TenantGroup:
		return "tenant-group"
	case Virtual:
		return "virtual"
	case Hidden:
		return "hidden"
	case Forbidden:
		return "forbidden"
	}
	return "unknown"
}

// Ref is one cross reference of a kind: a field that names another object
// (or a selector over them) and must be translated with the object.
type Ref struct {
	// Field is the JSON path of the reference, for documentation and explain.
	Field string
	// Target is what the field names; a target that is Refused marks a
	// field tenants may not set at all (refusedField).
	Target Target
	// Reason says why a refused field is refused (the 403 of both layers).
	Reason string
	// apply translates the reference in the direction of m.
	apply func(m *mapper, obj map[string]any) error
	// podSpec marks the priorityClassName reference of a pod spec (Field is
	// "<pod spec path>.priorityClassName"): checkPriority walks these.
	podSpec bool
	// matchCondition marks the reference that adds TenantMatchCondition
	// (matchConditionsRef): Reconfine rewrites these.
	matchCondition bool
	// Address is set on an address the cluster resolves or routes
	// (TargetServiceName, TargetEndpointAddress): what the field holds, from
	// which the proxy's check and the upstream policy's rule are derived
	// (refs_address.go).
	Address AddressKind
}

// KindRule is one row of the kinds table.
type KindRule struct {
	// Resource is the group and plural resource, as the tenant sees them.
	Resource schema.GroupResource
	// Kind is the object kind.
	Kind string
	// ShortNames are the resource's short names as the API server's
	// discovery serves them (`kubectl api-resources`, SHORTNAMES);
	// explain's aliases are built from them, and the e2e
	// TestDiscoveryIsClassified holds them to the server's.
	ShortNames []string
	// Treatment is how the kind is treated.
	Treatment Treatment
	// Reason explains a Forbidden or ReadOnly treatment (shown in the 403).
	Reason string
	// NameIsNamespace is set for Namespace: its name is a namespace name, with
	// the namespace length limit.
	NameIsNamespace bool
	// Refs are the kind's cross references.
	Refs []Ref
	// Check validates a tenant object beyond its references (403 on refusal).
	Check func(m *mapper, obj map[string]any) error
	// Access overrides what a tenant's admins may do with the kind directly
	// upstream, cluster-wide; zero means DefaultAccess of the treatment.
	Access Access
	// Subresources classifies every subresource the API server serves for
	// the kind (subresources.go): what is not classified is refused, in
	// the proxy and by the zoo-tenant policy upstream. A status that is
	// SubresourceReadOnly marks a kind whose status the platform's
	// controllers and kubelets write and others act on (PlatformStatus).
	Subresources []Subresource
	// PlatformStatusFields are status fields of an otherwise writable status
	// that tenants may not change (a pod's addresses, which the platform's
	// scrapers and the API server's proxy dial); the zoo-tenant policy holds
	// them upstream, where the old and new object can be compared.
	PlatformStatusFields []string
	// Complete fills in, on the way in, what a whole object (create, update,
	// server-side apply; not a merge or JSON patch) leaves out.
	Complete func(m *mapper, obj map[string]any) error
	// Annotations a tenant may not set on the kind (403 naming the key).
	Annotations []AnnotationRule
	// MaxPerTenant bounds how many objects of an AccessProxy kind one
	// tenant may have (the proxy counts them before a create): every
	// request of the shared cluster is matched against every admission
	// policy, webhook and FlowSchema, so their number is everyone's cost.
	MaxPerTenant int
	// WritesRefused marks a rule built for a namespaced resource of a
	// shared group that the table has no row for (a platform API there,
	// IsSharedGroup): tenants may read it in their namespaces and write
	// none.
	WritesRefused bool
	// ProxyCreates marks a cluster-wide review that no tenant identity may
	// create upstream, where its answer could be about every tenant's tokens
	// and rights: the proxy creates it for the tenant's admins with its own
	// identity, once the translator has confined it (a TokenReview's user
	// comes back only when it is one of the tenant's; a SubjectAccessReview
	// asks about the tenant's identities, namespaces and groups).
	ProxyCreates bool
	// LabelKeys are label keys of the kind stored under other keys upstream
	// (a tenant's ClusterRole aggregation labels; labelkeys.go).
	LabelKeys []LabelKeyMapping
	// PlatformDomains marks a kind whose labels and annotations the
	// platform's components read: keys in the platform's domains
	// (PlatformDomains, platform_domains.go) are platform-owned on it,
	// unless TenantAllowedKeys lists them. On pods this holds for the pod
	// templates of every kind as well (platform_templates.go): a
	// controller copies a template's keys to the pods it makes.
	PlatformDomains bool
	// StorageJudged marks a kind every write of which, whoever makes it
	// (the platform's volume binder and controllers too), the
	// zoo-tenant-storage policy judges upstream
	// (admissionrules/storage.go): volumes and claims, which bind
	// across tenants; classes, which could become every tenant's default;
	// published capacity, which steers every tenant's pods.
	StorageJudged bool
	// ExportSkip says why `kubectl zoo tenant export` leaves the tenant's
	// objects of the kind out (what the cluster makes by itself, what is
	// state rather than intent, what only the platform may write); ""
	// exports them (tenantctl's export_kinds.go, docs/export.md).
	ExportSkip string
	// PolicyObject marks a kind of which a tenant's policy implies one
	// object in each of its namespaces (tenantctl's propagate*.go): the
	// namespace gate, the server's ClusterRole and zoo-tenant-propagated
	// take these kinds from the rows (PolicyObjectResources).
	PolicyObject bool
	// Sleep is what `kubectl zoo tenant sleep` does to the kind's objects
	// so that they run no pods, and wake undoes (tenantctl's
	// sleep*.go; the zoo-sleep ClusterRole is derived from it): SleepNone
	// leaves them alone (SleepKinds).
	Sleep SleepAction
	// Selectors classify the label selectors of the kind's objects (their
	// Resource left out: the row's), who evaluates each and how far it
	// reaches (selectors_local.go); SelectorTable gathers them, and
	// TestSelectorTableCoversTheSchema fails on a selector of the kind's Go
	// types that they leave out. A pod spec's are podSpecSelectors.
	Selectors []SelectorRule
	// cells are the cells of the kind's Table (what `kubectl get` prints)
	// that show a reference, by lower-case column name (table_refs.go).
	cells map[string]refCell
}

// AnnotationRule is an annotation a tenant may not set on a kind at all,
// because it is a reference the translator does not map (the deprecated
// storage-class annotation of volumes and claims). Keys are compared
// without regard to case, so that variants are refused too. Metadata that
// the platform owns (a default class, Pod Security labels) is the
// platform-owned metadata table's (platform.go), not a kind's.
type AnnotationRule struct {
	// Key is the annotation key.
	Key string
	// Reason is shown in the 403.
	Reason string
}

// Access is what a tenant's admins may do with a cluster-scoped kind directly
// upstream (the RBAC that `kubectl zoo install` grants; admission confines
// every write to the tenant's own objects). Namespaced kinds are granted
// inside the tenant's namespaces only, by RoleBindings there.
type Access int

// The levels of Access.
const (
	// AccessDefault takes the treatment's default (DefaultAccess).
	AccessDefault Access = iota
	// AccessNone grants nothing upstream.
	AccessNone
	// AccessRead grants get, list and watch.
	AccessRead
	// AccessWrite grants reads and writes.
	AccessWrite
	// AccessProxy grants nothing to tenant identities upstream: Kubernetes
	// runs no admission on the kind (admission configuration), or none could
	// confine its effect, so no upstream policy could hold a tenant identity
	// that wrote it. The proxy reads and writes the tenant's objects of the
	// kind with its own identity instead, once the translator has confined
	// them, and only for the tenant's admins (pkg/localproxy/confined.go);
	// objects without the tenant's label are not the tenant's, whatever
	// their name.
	AccessProxy
)

// UpstreamAccess is what the tenant's admins may do with the kind upstream:
// the row's Access, else the treatment's default — tenant-owned and shared
// kinds are written (admission confines them to the tenant's prefix), the
// cluster's read-only kinds read, and nothing else granted.
func (r *KindRule) UpstreamAccess() Access {
	if r.Access != AccessDefault {
		return r.Access
	}
	switch r.Treatment {
	case TenantOwned, Shared:
		return AccessWrite
	case ReadOnly:
		return AccessRead
	}
	return AccessNone
}

// Fields lists the JSON paths of the rule's cross references that are
// translated (not those refused outright: RefusedFields).
func (r *KindRule) Fields() []string {
	out := make([]string, 0, len(r.Refs))
	for _, ref := range r.Refs {
		if !ref.Target.Refused() {
			out = append(out, ref.Field)
		}
	}
	return out
}

// RefusedFields lists the JSON paths that tenants may not set on the kind.
func (r *KindRule) RefusedFields() []string {
	var out []string
	for _, ref := range r.Refs {
		if ref.Target.Refused() {
			out = append(out, ref.Field)
		}
	}
	return out
}

// ScopeLookup tells the scope of upstream resources that are not in the kinds
// table (CRDs); the proxy answers it from the upstream's discovery.
type ScopeLookup interface {
	// Namespaced reports whether the upstream resource is namespaced; known
	// is false when discovery does not know the resource.
	Namespaced(upstream schema.GroupResource) (namespaced, known bool)
}

// SharedLookup answers what the pure core cannot know about shared kinds.
type SharedLookup interface {
	// TenantOwns reports whether the tenant has its own object of the shared
	// resource with the tenant-local name (stored prefixed upstream).
	TenantOwns(gr schema.GroupResource, name string) bool
	// SharedExists reports whether the cluster itself has an object of the
	// shared resource named name (one without TenantLabel).
	SharedExists(gr schema.GroupResource, name string) bool
	// OtherTenantOwns reports whether the upstream object of the shared
	// resource named name is labeled for a tenant other than the
	// translator's: a reference may never name it.
	OtherTenantOwns(gr schema.GroupResource, name string) bool
}

// OtherTenantsLister is an optional extension of SharedLookup: it tells
// whether a name is another tenant's, so that an answer naming a shared
// object in that tenant's prefix (which an upstream admin or controller
// wrote) never reads as the tenant's own object of that name. Without it,
// such names are shown as they are.
type OtherTenantsLister interface {
	IsOtherTenant(name string) bool
}

var (
	kindsByResource = map[schema.GroupResource]*KindRule{}
	kindsByKind     = map[schema.GroupKind]*KindRule{}
	// tableGroups are the API groups of the table's rows: a resource of one
	// of them that has no row is unclassified, and refused (Rule).
	tableGroups = map[string]bool{}
)

func init() {
	for i := range kindTable {
		r := &kindTable[i]
		if _, dup := kindsByResource[r.Resource]; dup {
			panic("translate: duplicate kind rule for " + r.Resource.String())
		}
		checkSubresourceNames(r)
		tableGroups[r.Resource.Group] = true
		kindsByResource[r.Resource] = r
		kindsByKind[schema.GroupKind{Group: r.Resource.Group, Kind: r.Kind}] = r
	}
}

// LookupKind returns the kinds-table row of a built-in resource.
func LookupKind(gr schema.GroupResource) (*KindRule, bool) {
	r, ok := kindsByResource[gr]
	return r, ok
}

// LookupKindByKind returns the kinds-table row of a built-in kind.
func LookupKindByKind(gk schema.GroupKind) (*KindRule, bool) {
	r, ok := kindsByKind[gk]
	return r, ok
}

// ResourceFor maps a built-in kind to its resource by the kinds table: the
// RESTMapper of the kinds the table knows, for where no cluster's
// discovery is at hand (what kubectl-zoo writes itself).
func ResourceFor(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool) {
	r, ok := kindsByKind[gvk.GroupKind()]
	if !ok {
		return schema.GroupVersionResource{}, false
	}
	return gvk.GroupVersion().WithResource(r.Resource.Resource), true
}

// MustResourceFor is ResourceFor of a kind the table has a row for, for
// code that names the kinds it reads and writes itself (verify's attempts):
// a kind without a row is a programming error, and it panics, at the
// package's initialization where the kind is a package variable.
func MustResourceFor(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	gvr, ok := ResourceFor(gvk)
	if !ok {
		panic("translate: no row of the kinds table for kind " + gvk.GroupKind().String())
	}
	return gvr
}

// ResourceOf returns the plural resource of a built-in kind the table has a
// row for, for generated code (the CEL of the upstream policies) that names
// it. A kind without a row is a programming error: it panics, which every
// test of the generated policies shows.
func ResourceOf(group, kind string) string {
	r, ok := kindsByKind[schema.GroupKind{Group: group, Kind: kind}]
	if !ok {
		panic("translate: no row of the kinds table for kind " + kind + " of group " + group)
	}
	return r.Resource.Resource
}

// PolicyObjectResources are the resources of the rows marked PolicyObject,
// in table order.
func PolicyObjectResources() []schema.GroupResource {
	var out []schema.GroupResource
	for i := range kindTable {
		if kindTable[i].PolicyObject {
			out = append(out, kindTable[i].Resource)
		}
	}
	return out
}

// KindResource is ResourceOf as a GroupResource.
func KindResource(group, kind string) schema.GroupResource {
	return schema.GroupResource{Group: group, Resource: ResourceOf(group, kind)}
}

// Kinds returns every row of the kinds table, in table order.
func Kinds() []*KindRule {
	out := make([]*KindRule, len(kindTable))
	for i := range kindTable {
		out[i] = &kindTable[i]
	}
	return out
}

// Rule returns the treatment of a tenant resource: its kinds-table row, or for
// other resources (CRDs) a rule built from their group and discovered scope.
// namespacedHint is used when the scope lookup does not know the resource
// (for example a request path that names a namespace).
func (t *Translator) Rule(gr schema.GroupResource, namespacedHint bool) *KindRule {
	if r, ok := kindsByResource[gr]; ok {
		return r
	}
	namespaced := namespacedHint
	if t.opts.Scopes != nil {
		up := gr
		if g, err := t.tenant.UpstreamAPIGroup(gr.Group); err == nil {
			up.Group = g
		}
		if n, known := t.opts.Scopes.Namespaced(up); known {
			namespaced = n
		}
	}
	switch {
	case tableGroups[gr.Group]:
		// A resource of a group the table knows, which the table does not
		// name: one a newer API server serves, unclassified.
		return &KindRule{Resource: gr, Treatment: Forbidden, Reason: "the resource is not classified for tenants in the kinds table"}
	case namespaced && IsSharedGroup(gr.Group):
		// A platform API in a shared group (platformGroups: the metrics
		// APIs): the platform serves it, tenants read it.
		return &KindRule{Resource: gr, Treatment: Namespaced, WritesRefused: true, Reason: unclassifiedBuiltin}
	case namespaced:
		return &KindRule{Resource: gr, Treatment: Namespaced}
	case IsSharedGroup(gr.Group):
		return &KindRule{Resource: gr, Treatment: ReadOnly, Reason: "cluster-scoped resources of built-in groups belong to the cluster"}
	default:
		return &KindRule{Resource: gr, Treatment: TenantGroup}
	}
}

// unclassifiedBuiltin is the refusal of a write to a namespaced resource of
// a built-in group that the table does not classify.
const unclassifiedBuiltin = "the resource is not classified for tenants in the kinds table: a platform API in a shared group is the platform's to write, read-only for tenants"

// ruleForKind is Rule for an apiVersion/kind pair, as found in references.
func (t *Translator) ruleForKind(group, kind string) *KindRule {
	if r, ok := kindsByKind[schema.GroupKind{Group: group, Kind: kind}]; ok {
		return r
	}
	if IsSharedGroup(group) {
		return &KindRule{Resource: schema.GroupResource{Group: group}, Kind: kind, Treatment: ReadOnly}
	}
	return &KindRule{Resource: schema.GroupResource{Group: group}, Kind: kind, Treatment: TenantGroup}
}
