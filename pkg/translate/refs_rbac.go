package translate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// unconfinableGroups are groups a tenant may not bind or route: upstream they
// would reach every tenant, and no tenant-only equivalent exists.
var unconfinableGroups = map[string]string{
	"system:serviceaccounts":  "it would grant every ServiceAccount of every tenant",
	"system:unauthenticated":  "it would grant anonymous users of the shared cluster",
	"system:masters":          "it is the shared cluster's superuser group",
	"system:nodes":            "it is the shared cluster's node group",
	"system:bootstrappers":    "it is the shared cluster's bootstrap group",
	"system:kube-controllers": "it is the shared cluster's controller group",
}

// subjectUser maps a user named in an RBAC or FlowSchema subject.
func (m *mapper) subjectUser(u string) (string, error) {
	if m.in {
		return m.tenant().UpstreamUser(u), nil
	}
	if local, ok := m.tenant().TenantUser(u); ok {
		return local, nil
	}
	return "", foreign("user", u)
}

// subjectGroup maps a group named in an RBAC or FlowSchema subject. The
// tenant's "system:authenticated" (every user of its cluster) is the tenant
// group upstream, never the shared cluster's system:authenticated.
func (m *mapper) subjectGroup(g string) (string, error) {
	t := m.tenant()
	if m.in {
		if why, bad := unconfinableGroups[g]; bad {
			return "", forbidden(schema.GroupResource{}, g, fmt.Sprintf("subjects may not name the group %q: %s", g, why))
		}
		if g == "system:authenticated" {
			return t.TenantGroup(), nil
		}
		return t.UpstreamGroup(g), nil
	}
	if g == t.TenantGroup() {
		return "system:authenticated", nil
	}
	if g == "system:authenticated" || g == "system:serviceaccounts" {
		return "", foreign("group", g)
	}
	if local, ok := t.TenantGroupName(g); ok {
		return local, nil
	}
	return "", foreign("group", g)
}

// rbacSubjects maps RoleBinding/ClusterRoleBinding subjects; outbound,
// subjects that are not the tenant's are dropped.
func rbacSubjects(m *mapper, obj map[string]any) error {
	subjects, ok := obj["subjects"].([]any)
	if !ok {
		return nil
	}
	out := subjects[:0]
	for _, s := range subjects {
		subj, ok := s.(map[string]any)
		if !ok {
			continue
		}
		var err error
		switch str(subj, "kind") {
		case "User":
			err = m.mapString(subj, "name", m.subjectUser)
		case "Group":
			err = m.mapString(subj, "name", m.subjectGroup)
		case "ServiceAccount":
			err = m.mapString(subj, "namespace", m.namespace)
		}
		if err != nil {
			return err
		}
		if !m.in && (str(subj, "name") == "" || (str(subj, "kind") == "ServiceAccount" && str(subj, "namespace") == "")) {
			continue
		}
		out = append(out, subj)
	}
	obj["subjects"] = out
	return nil
}

// roleRef maps roleRef: a ClusterRole is the tenant's own (prefixed), the
// standard cluster-admin/admin/edit/view included, since every tenant has its
// own copies of them.
func roleRef(m *mapper, obj map[string]any) error {
	ref := child(obj, "roleRef")
	if ref == nil || str(ref, "kind") != "ClusterRole" {
		return nil
	}
	return m.mapString(ref, "name", func(s string) (string, error) { return m.objectName(kindsByResource[grClusterRole], s) })
}

// policyRules maps Role/ClusterRole rules: apiGroups of tenant CRD groups, and
// resourceNames of tenant-owned cluster-scoped resources. A rule that names
// both tenant-owned cluster-scoped resources and others together with
// resourceNames is split in two on the way in.
func policyRules(m *mapper, obj map[string]any) error {
	rules, ok := obj["rules"].([]any)
	if !ok {
		return nil
	}
	out := make([]any, 0, len(rules))
	for _, r := range rules {
		rule, ok := r.(map[string]any)
		if !ok {
			out = append(out, r)
			continue
		}
		tenantGroups, _ := rule["apiGroups"].([]any)
		tenantGroups = append([]any(nil), tenantGroups...)
		if !m.in {
			if err := m.mapStrings(rule, "apiGroups", m.apiGroupOrWildcard); err != nil {
				return err
			}
			tenantGroups, _ = rule["apiGroups"].([]any)
		} else if err := m.mapStrings(rule, "apiGroups", m.apiGroupOrWildcard); err != nil {
			return err
		}
		names, _ := rule["resourceNames"].([]any)
		resources, _ := rule["resources"].([]any)
		if len(names) == 0 || len(resources) == 0 {
			out = append(out, rule)
			continue
		}
		var owned, other []any
		var ownedRule *KindRule
		for _, res := range resources {
			if kr := ownedRuleFor(tenantGroups, res); kr != nil {
				owned, ownedRule = append(owned, res), kr
			} else {
				other = append(other, res)
			}
		}
		if len(owned) == 0 {
			out = append(out, rule)
			continue
		}
		if len(other) > 0 {
			rest := shallowCopy(rule)
			rest["resources"] = other
			rest["resourceNames"] = append([]any(nil), names...)
			out = append(out, rest)
			rule["resources"] = owned
		}
		if err := m.mapStrings(rule, "resourceNames", func(s string) (string, error) { return m.objectName(ownedRule, s) }); err != nil {
			return err
		}
		out = append(out, rule)
	}
	obj["rules"] = out
	return nil
}

// ownedRuleFor returns the kind rule of a resource (maybe "res/subresource")
// in one of groups when its names are prefixed upstream.
func ownedRuleFor(groups []any, res any) *KindRule {
	name, _ := res.(string)
	name, _, _ = strings.Cut(name, "/")
	for _, g := range groups {
		group, _ := g.(string)
		for gr, kr := range kindsByResource {
			if gr.Resource != name || (group != "*" && gr.Group != group) {
				continue
			}
			if kr.Treatment == TenantOwned {
				return kr
			}
		}
	}
	return nil
}

func shallowCopy(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// aggregationRule confines ClusterRole aggregation to the tenant's own
// ClusterRoles: every clusterRoleSelector gets matchLabels
// TenantLabel=<tenant> on the way in (the form the zoo-tenant admission
// policy demands), which is stripped on the way out. The requirement is
// AND-ed with whatever else the selector holds, so no expression
// (NotIn, DoesNotExist, an empty or null selector, which the API server
// reads as "every role") can widen it; a selector that names TenantLabel
// itself is refused. On the way out, a selector that does not carry the
// requirement for this tenant (another tenant's, or one written upstream
// without it) is left out, as without it it would read as selecting the
// tenant's own roles only. Aggregation label keys (AggregateLabelPrefix) are
// the tenant's upstream keys (TenantAggregateLabelPrefix), as on the roles
// they select.
func aggregationRule(m *mapper, obj map[string]any) error {
	agg := child(obj, "aggregationRule")
	if agg == nil {
		return nil
	}
	sels, _ := agg["clusterRoleSelectors"].([]any)
	kept := sels[:0]
	defer func() {
		if sels != nil {
			agg["clusterRoleSelectors"] = kept
		}
	}()
	for _, s := range sels {
		sel, ok := s.(map[string]any)
		switch {
		case !ok && m.in:
			sel = map[string]any{} // null: every role, confined below
		case !ok || (!m.in && !m.confinedToTenant(sel)):
			continue
		}
		kept = append(kept, sel)
		if err := m.aggregationSelector(sel); err != nil {
			return err
		}
	}
	return nil
}

// confinedToTenant reports whether an upstream aggregation selector selects
// only roles labeled TenantLabel=<tenant>: in matchLabels, or in the
// matchExpressions form of older versions.
func (m *mapper) confinedToTenant(sel map[string]any) bool {
	if labels, ok := sel["matchLabels"].(map[string]any); ok && labels[TenantLabel] == m.tenant().Name() {
		return true
	}
	exprs, _ := sel["matchExpressions"].([]any)
	for _, e := range exprs {
		expr, _ := e.(map[string]any)
		values, _ := expr["values"].([]any)
		if str(expr, "key") == TenantLabel && str(expr, "operator") == "In" && len(values) == 1 && values[0] == m.tenant().Name() {
			return true
		}
	}
	return false
}

// aggregationSelector maps one clusterRoleSelector in the mapper's
// direction.
func (m *mapper) aggregationSelector(sel map[string]any) error {
	// Namespace names in values; on the way out also the matchExpressions
	// form of the confinement of older versions.
	if err := m.labelSelector(sel, !m.in); err != nil {
		return err
	}
	// Aggregation labels select the tenant's own roles' upstream keys.
	if err := m.mapSelectorKeys(kindsByResource[grClusterRole], sel); err != nil {
		return err
	}
	if m.in {
		ensureChild(sel, "matchLabels")[TenantLabel] = m.tenant().Name()
		return nil
	}
	if labels, ok := sel["matchLabels"].(map[string]any); ok {
		delete(labels, TenantLabel)
		if len(labels) == 0 {
			delete(sel, "matchLabels")
		}
	}
	return nil
}
