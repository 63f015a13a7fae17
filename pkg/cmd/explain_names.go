package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Effects of a name mapping, as `explain -o yaml|json` reports them.
const (
	EffectPrefixed   = "prefixed"
	EffectUnchanged  = "unchanged"
	EffectReadOnly   = "read-only"
	EffectVirtual    = "virtual"
	EffectHidden     = "hidden"
	EffectForbidden  = "forbidden"
	EffectOtherOwner = "other-tenant"
	EffectNoTenant   = "no-tenant"
)

// ObjectView names an object in one view, tenant or upstream.
type ObjectView struct {
	// Group is the API group ("" for the core group).
	Group string `json:"group,omitempty"`
	// Resource is the plural resource.
	Resource string `json:"resource"`
	// Namespace is empty for cluster-scoped objects.
	Namespace string `json:"namespace,omitempty"`
	// Name is the object's name.
	Name string `json:"name"`
}

// NameMapping is what `explain` reports for one TYPE/NAME argument.
type NameMapping struct {
	// Argument is the argument as given.
	Argument string `json:"argument"`
	// Kind is the object kind; empty for custom resources.
	Kind string `json:"kind,omitempty"`
	// Treatment is the kinds-table treatment of the resource.
	Treatment string `json:"treatment"`
	// Tenant is the tenant that owns (or would own) the object.
	Tenant string `json:"tenant,omitempty"`
	// TenantView is the object as the tenant sees it, if it can.
	TenantView *ObjectView `json:"tenantView,omitempty"`
	// Upstream is the object as the shared cluster stores it.
	Upstream *ObjectView `json:"upstream,omitempty"`
	// Effect is one of the Effect* constants.
	Effect string `json:"effect"`
	// Message explains the effect in a sentence.
	Message string `json:"message"`
	// References are the fields that name something else, with what they
	// name and how the proxy confines them (the kinds table's targets).
	References []Reference `json:"references,omitempty"`
}

// Reference is one cross reference of a kind, as `explain` reports it.
type Reference struct {
	// Field is the JSON path of the field.
	Field string `json:"field"`
	// Target is what the field names (translate.Target).
	Target string `json:"target"`
	// Confinement is how the proxy confines it: mapped into the tenant's
	// space, or refused.
	Confinement string `json:"confinement"`
	// Refused is set when tenants may not set the field at all.
	Refused bool `json:"refused,omitempty"`
	// ByPolicy is set when the field is checked against the tenant's
	// policy, not translated.
	ByPolicy bool `json:"byPolicy,omitempty"`
}

// referencesOf lists the references of a kinds-table row.
func referencesOf(rule *translate.KindRule) []Reference {
	out := make([]Reference, 0, len(rule.Refs))
	for _, ref := range rule.Refs {
		out = append(out, Reference{Field: ref.Field, Target: ref.Target.String(), Confinement: ref.Target.Confined(), Refused: ref.Target.Refused(),
			ByPolicy: ref.Target.PolicyAllowed()})
	}
	return out
}

// namer maps TYPE/NAME arguments in one direction.
type namer struct {
	tenant    *translate.Tenant
	reverse   bool
	namespace string
}

// mapArg maps one argument; errors are bad input (such as an over-long name).
func (n namer) mapArg(a resourceArg) (NameMapping, error) {
	m := NameMapping{Argument: a.Arg, Treatment: treatmentOf(a.Type).String()}
	if a.Type.Rule != nil {
		m.Kind = a.Type.Rule.Kind
		m.References = referencesOf(a.Type.Rule)
	}
	ns := ""
	if a.Type.Namespaced {
		ns = n.namespace
	}
	view := ObjectView{Group: a.Type.Resource.Group, Resource: a.Type.Resource.Resource, Namespace: ns, Name: a.Name}
	if n.reverse {
		return n.toTenant(m, a, view)
	}
	return n.toUpstream(m, a, view, *n.tenant)
}

// treatmentOf is the treatment of a resolved type; custom resources follow
// their scope as translate.Translator.Rule does.
func treatmentOf(rt resolvedType) translate.Treatment {
	switch {
	case rt.Rule != nil:
		return rt.Rule.Treatment
	case rt.Namespaced:
		return translate.Namespaced
	}
	return translate.TenantGroup
}

func (n namer) toUpstream(m NameMapping, a resourceArg, tv ObjectView, t translate.Tenant) (NameMapping, error) {
	m.Tenant = t.Name()
	m.TenantView = &tv
	up := tv
	var err error
	if a.Type.Rule == nil {
		if up.Group, err = t.UpstreamAPIGroup(tv.Group); err != nil {
			return m, err
		}
	}
	switch treatmentOf(a.Type) {
	case translate.Namespaced:
		up.Namespace, err = t.UpstreamNamespace(tv.Namespace)
		m.Effect, m.Message = EffectPrefixed, fmt.Sprintf("the namespace carries the tenant's prefix %q", t.Prefix())
		if a.Type.Rule == nil {
			m.Message = fmt.Sprintf("custom resource: its API group and namespace carry the tenant's prefix %q", t.Prefix()) + assumedNote(a.Type)
		}
	case translate.TenantOwned:
		switch {
		case a.Type.Rule.NameIsNamespace:
			up.Name, err = t.UpstreamNamespace(tv.Name)
		case a.Type.Rule.Kind == "CustomResourceDefinition":
			up.Name, err = t.UpstreamCRDName(tv.Name)
		default:
			up.Name, err = t.UpstreamClusterName(a.Type.Rule.Kind, tv.Group, tv.Name)
		}
		m.Effect, m.Message = EffectPrefixed, fmt.Sprintf("a cluster-scoped object the tenant owns: its name carries the prefix %q", t.Prefix())
		if a.Type.Rule.Kind == "CustomResourceDefinition" {
			m.Message = fmt.Sprintf("a CRD the tenant owns: its API group carries the prefix %q", t.Prefix())
		}
	case translate.Shared:
		up.Name, err = t.UpstreamClusterName(a.Type.Rule.Kind, tv.Group, tv.Name)
		m.Effect, m.Message = EffectPrefixed, fmt.Sprintf("shared kind: the tenant's own %s is stored as %s; the cluster's own %s, if any, is visible read-only and unprefixed (and the tenant may not create one of that name)", tv.Name, up.Name, tv.Name)
	case translate.TenantGroup:
		m.Effect, m.Message = EffectPrefixed, fmt.Sprintf("cluster-scoped custom resource: its API group carries the tenant's prefix %q, the name stays", t.Prefix())
	case translate.ReadOnly:
		m.Effect, m.Message = EffectReadOnly, "the cluster's own object, visible unprefixed but never writable ("+a.Type.Rule.Reason+")"
	case translate.Virtual:
		m.Effect, m.Message = EffectVirtual, "a create-only review that is never stored; only its references are translated"
	case translate.Hidden:
		up, m.Effect, m.Message = ObjectView{}, EffectHidden, "this kind does not exist for tenants (404, absent from discovery)"
	case translate.Forbidden:
		up, m.Effect, m.Message = ObjectView{}, EffectForbidden, a.Type.Rule.Reason
	}
	var te *translate.Error
	if errors.As(err, &te) && te.Code == http.StatusForbidden {
		m.Effect, m.Message, err = EffectForbidden, te.Message, nil
		up = ObjectView{}
	}
	if err != nil {
		return m, err
	}
	if up != (ObjectView{}) {
		m.Upstream = &up
	}
	return m, nil
}

func assumedNote(rt resolvedType) string {
	if !rt.Assumed {
		return ""
	}
	return " (assumed namespaced: pass --cluster-scoped for a cluster-scoped one)"
}

// toTenant maps an upstream name back: the owning tenant comes from the name.
func (n namer) toTenant(m NameMapping, a resourceArg, up ObjectView) (NameMapping, error) {
	m.Upstream = &up
	tr := treatmentOf(a.Type)
	switch tr {
	case translate.ReadOnly, translate.Virtual:
		tv := up
		m.TenantView = &tv
		m.Effect, m.Message = EffectReadOnly, "the cluster's own object, visible to every tenant unprefixed and read-only"
		if tr == translate.Virtual {
			m.Effect, m.Message = EffectVirtual, "a create-only review that is never stored"
		}
		return m, nil
	case translate.Hidden:
		m.Effect, m.Message = EffectHidden, "the cluster's own object; this kind does not exist for tenants"
		return m, nil
	case translate.Forbidden:
		m.Effect, m.Message = EffectForbidden, "the cluster's own object; tenants may not use this kind: "+a.Type.Rule.Reason
		return m, nil
	}
	owner, ok := upstreamOwner(a, up)
	if !ok {
		if tr == translate.Shared {
			tv := up
			m.TenantView = &tv
			m.Effect, m.Message = EffectUnchanged, "the cluster's own object of a shared kind: every tenant sees it unprefixed, read-only"
			return m, nil
		}
		m.Effect, m.Message = EffectNoTenant, "no tenant's prefix in "+ownerField(a)+": the cluster's own object, which no tenant sees"
		return m, nil
	}
	if n.tenant != nil && owner != *n.tenant {
		m.Tenant = owner.Name()
		m.Effect, m.Message = EffectOtherOwner, fmt.Sprintf("it belongs to tenant %s, not to tenant %s", owner.Name(), n.tenant.Name())
		return m, nil
	}
	tv := up
	switch tr {
	case translate.Namespaced:
		tv.Namespace, _ = owner.TenantNamespace(up.Namespace)
	case translate.TenantOwned, translate.Shared:
		if a.Type.Rule.Kind == "CustomResourceDefinition" {
			tv.Name, _ = owner.TenantCRDName(up.Name)
		} else {
			tv.Name, _ = owner.TenantClusterName(up.Name)
		}
	}
	if a.Type.Rule == nil {
		tv.Group, _ = owner.TenantAPIGroup(up.Group)
	}
	m.Tenant, m.TenantView = owner.Name(), &tv
	m.Effect = EffectPrefixed
	m.Message = fmt.Sprintf("tenant %s's object: the tenant sees it without the prefix %q", owner.Name(), owner.Prefix())
	if tr == translate.Shared {
		m.Message = fmt.Sprintf("tenant %s's own object of a shared kind (if it carries the label %s=%s): the tenant sees it without the prefix %q",
			owner.Name(), translate.TenantLabel, owner.Name(), owner.Prefix())
	}
	return m, nil
}

// upstreamOwner finds the tenant of an upstream name from the part of the
// name that carries the prefix.
func upstreamOwner(a resourceArg, up ObjectView) (translate.Tenant, bool) {
	var owner translate.Tenant
	var ok bool
	switch treatmentOf(a.Type) {
	case translate.Namespaced:
		owner, _, ok = translate.SplitUpstreamName(up.Namespace)
	case translate.TenantGroup:
		owner, _, ok = translate.SplitUpstreamName(up.Group)
	default:
		name := up.Name
		if a.Type.Rule != nil && a.Type.Rule.Kind == "CustomResourceDefinition" {
			_, name, _ = strings.Cut(up.Name, ".")
		}
		owner, _, ok = translate.SplitUpstreamName(name)
	}
	if ok && a.Type.Rule == nil && treatmentOf(a.Type) == translate.Namespaced {
		// A custom resource's group must be the same tenant's.
		g, _, gok := translate.SplitUpstreamName(up.Group)
		ok = gok && g == owner
	}
	return owner, ok
}

func ownerField(a resourceArg) string {
	switch {
	case a.Type.Rule == nil && a.Type.Namespaced:
		return "its namespace and API group"
	case a.Type.Rule == nil:
		return "its API group"
	case a.Type.Namespaced:
		return "its namespace"
	case a.Type.Rule.Kind == "CustomResourceDefinition":
		return "its API group"
	}
	return "its name"
}
