package translate

// Target is what a reference of the kinds table names. Every Ref declares
// one; what the proxy does with the field, whether tenants may set it at
// all, what `kubectl zoo explain` shows and which references the upstream
// walk (test/e2e/tenant) probes are derived from it.
type Target int

// The targets of references. The set is closed: a newcomer adding a
// reference picks one of these (and a case in the walking tests).
const (
	// TargetNamespace is a namespace name: prefixed into the tenant's.
	TargetNamespace Target = iota + 1
	// TargetLocal is an object in the referring object's own namespace,
	// named by its kind and name; only its API group (a tenant CRD group) is
	// translated. The API server resolves it in that namespace, so it cannot
	// leave it.
	TargetLocal
	// TargetObject is an object reference that carries its own namespace
	// or names a cluster-scoped object ({apiVersion, kind, namespace, name}):
	// namespace, group and name are mapped by the referenced kind's rule.
	TargetObject
	// TargetOwned is the name of an object of a tenant-owned cluster-scoped
	// kind (a PersistentVolume, a ClusterRole, ...): prefixed.
	TargetOwned
	// TargetShared is the name of an object of a shared kind (a class): the
	// tenant's own if it has one, else the cluster's; never another
	// tenant's.
	TargetShared
	// TargetAPIGroup is an API group or apiVersion that selects resources
	// cluster-wide (a CRD's group, a webhook's rules): tenant CRD groups are
	// prefixed.
	TargetAPIGroup
	// TargetIdentity is a user, a group or a ServiceAccount: mapped into
	// the tenant's identities.
	TargetIdentity
	// TargetSelector selects namespaces, objects or requests: the proxy
	// adds a requirement that confines it to the tenant's.
	TargetSelector
	// TargetRules are RBAC rules or access checks (API groups, resource
	// names, namespaces together). They grant only where they are bound,
	// and a tenant binds only inside its own namespaces.
	TargetRules
	// TargetPlatform is a value whose effect reaches every tenant (a
	// class's priority, the global default): capped by the proxy.
	TargetPlatform
	// TargetAddress is a network address the cluster's machines route:
	// refused.
	TargetAddress
	// TargetURL is a URL the API server dials: refused.
	TargetURL
	// TargetHostPath is a path on the shared cluster's machines: refused.
	TargetHostPath
	// TargetServiceName is a DNS name the cluster resolves (a Service's
	// externalName): only a Service of the tenant's, its namespace
	// translated (refs_address.go).
	TargetServiceName
	// TargetEndpointAddress is an address the cluster sends traffic to (an
	// Endpoints or EndpointSlice address) or its family: only public
	// unicast IP addresses; it is checked, not translated.
	TargetEndpointAddress
	// TargetText is free text that quotes names (an Event's message): the
	// names the translator produced are shown in the tenant's terms on the
	// way out; what a tenant writes is kept as written, since text names
	// nothing the API server resolves.
	TargetText
	// TargetStorage is storage outside the cluster that the machines mount
	// at an address or by an identifier the tenant names (an NFS export, an
	// iSCSI target, a cloud disk, a CSI volume handle): only the kinds of
	// source the tenant's policy lists (volume_sources.go).
	TargetStorage
	// TargetIngressHost is a host name the shared ingress controllers route
	// (an Ingress rule's host, its TLS hosts): only the names the tenant's
	// policy lists (refs_ingress.go).
	TargetIngressHost
)

// Targets lists every target, in order.
func Targets() []Target {
	return []Target{TargetNamespace, TargetLocal, TargetObject, TargetOwned, TargetShared, TargetAPIGroup,
		TargetIdentity, TargetSelector, TargetRules, TargetPlatform, TargetAddress, TargetURL, TargetHostPath, TargetText,
		TargetServiceName, TargetEndpointAddress, TargetStorage, TargetIngressHost}
}

// String names the target.
func (t Target) String() string {
	switch t {
	case TargetNamespace:
		return "namespace"
	case TargetLocal:
		return "same-namespace object"
	case TargetObject:
		return "object reference"
	case TargetOwned:
		return "tenant-owned object"
	case TargetShared:
		return "shared object"
	case TargetAPIGroup:
		return "API group"
	case TargetIdentity:
		return "identity"
	case TargetSelector:
		return "selector"
	case TargetRules:
		return "access rules"
	case TargetPlatform:
		return "platform value"
	case TargetAddress:
		return "address"
	case TargetURL:
		return "URL"
	case TargetHostPath:
		return "machine path"
	case TargetText:
		return "text"
	case TargetServiceName:
		return "Service DNS name"
	case TargetEndpointAddress:
		return "endpoint address"
	case TargetStorage:
		return "storage outside the cluster"
	case TargetIngressHost:
		return "ingress host name"
	}
	return "unknown"
}

// Refused reports whether tenants may not set a field of the target at all:
// nothing in the tenant's space can stand for an address, a URL or a path of
// the shared machines.
func (t Target) Refused() bool {
	return t == TargetAddress || t == TargetURL || t == TargetHostPath
}

// PolicyAllowed reports whether a field of the target is refused unless
// the tenant's policy allows its value: it is checked, not translated.
func (t Target) PolicyAllowed() bool {
	return t == TargetStorage || t == TargetIngressHost
}

// NamesOutside reports whether a value of the target, written by a tenant
// identity directly upstream (where no proxy translates it), can name
// something outside the tenant: another namespace, a cluster-scoped
// object, an address, a URL. Such references must be held upstream by RBAC
// or admission, or be harmless by the referencing kind's semantics; the
// others cannot leave the referring object's namespace (TargetLocal) or
// take effect only where the tenant binds them (TargetRules).
func (t Target) NamesOutside() bool {
	return t != TargetLocal && t != TargetRules && t != TargetText
}

// Confined says in one sentence how the proxy confines a reference of the
// target (for `kubectl zoo explain` and docs/security.md).
func (t Target) Confined() string {
	switch t {
	case TargetNamespace:
		return "prefixed into the tenant's namespaces"
	case TargetLocal:
		return "resolved in the object's own namespace; its API group is the tenant's"
	case TargetObject:
		return "namespace, API group and name mapped by the referenced kind"
	case TargetOwned:
		return "prefixed: only the tenant's own objects"
	case TargetShared:
		return "the tenant's own, else the cluster's; never another tenant's"
	case TargetAPIGroup:
		return "tenant API groups prefixed"
	case TargetIdentity:
		return "mapped into the tenant's users, groups and ServiceAccounts"
	case TargetSelector:
		return "confined to the tenant's by an added requirement"
	case TargetRules:
		return "groups and names mapped; effective only where bound in the tenant's namespaces"
	case TargetPlatform:
		return "capped by the proxy"
	case TargetText:
		return "names the translator produced are shown in the tenant's terms; kept as written"
	case TargetServiceName:
		return "only the tenant's own Services (<service>.<namespace>.svc[.cluster.local]), namespace prefixed; anything else refused"
	case TargetEndpointAddress:
		return "only public unicast IP addresses (IPv4 or IPv6 slices); anything else refused"
	case TargetStorage:
		return "only the kinds of volume source the tenant's policy lists (policy set --volume-sources); anything else refused"
	case TargetIngressHost:
		return "only the host names the tenant's policy lists (policy set --ingress-hosts); anything else, and a rule for every host, refused"
	}
	if t.Refused() {
		return "refused (403 naming the field)"
	}
	return "unknown"
}
