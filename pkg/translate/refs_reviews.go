package translate

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// resourceAttributesRef maps SubjectAccessReview-style resourceAttributes:
// namespace, API group and the name of tenant-owned cluster-scoped objects.
func resourceAttributesRef(path string) Ref {
	return atPath(TargetRules, path, func(m *mapper, attrs map[string]any) error {
		group := str(attrs, "group")
		if err := m.mapString(attrs, "group", m.apiGroupOrWildcard); err != nil {
			return err
		}
		if !m.in {
			group = str(attrs, "group")
		}
		if err := m.mapString(attrs, "namespace", m.namespace); err != nil {
			return err
		}
		rule, ok := kindsByResource[schema.GroupResource{Group: group, Resource: str(attrs, "resource")}]
		if !ok {
			return nil
		}
		return m.mapString(attrs, "name", func(s string) (string, error) { return m.objectName(rule, s) })
	})
}

// reviewUser maps SubjectAccessReview spec.user and spec.groups: the tenant
// group is added on the way in (every tenant identity has it) and hidden on
// the way out.
func reviewUser(m *mapper, obj map[string]any) error {
	spec := child(obj, "spec")
	if spec == nil {
		return nil
	}
	if err := m.mapString(spec, "user", m.identityUser); err != nil {
		return err
	}
	if _, ok := spec["groups"]; !ok && !m.in {
		return nil
	}
	if err := m.mapStrings(spec, "groups", m.identityGroup); err != nil {
		return err
	}
	groups, _ := spec["groups"].([]any)
	switch {
	case m.in && str(spec, "user") != "":
		spec["groups"] = append(groups, m.tenant().TenantGroup())
	case !m.in && len(groups) == 0:
		delete(spec, "groups")
	}
	return nil
}

// identityUser maps a user as impersonation does (identity.go).
func (m *mapper) identityUser(u string) (string, error) {
	if m.in {
		return m.tenant().UpstreamUser(u), nil
	}
	if local, ok := m.tenant().TenantUser(u); ok {
		return local, nil
	}
	return "", foreign("user", u)
}

// identityGroup maps a group as impersonation does; the tenant group itself is
// hidden on the way out.
func (m *mapper) identityGroup(g string) (string, error) {
	if m.in {
		return m.tenant().UpstreamGroup(g), nil
	}
	if local, ok := m.tenant().TenantGroupName(g); ok {
		return local, nil
	}
	return "", foreign("group", g)
}

// userInfoRef maps a status.userInfo / status.user of SelfSubjectReview and
// TokenReview. A TokenReview of a token that is not one of the tenant's
// identities comes back unauthenticated.
func userInfoRef(path, key string) Ref {
	return withField(atPath(TargetIdentity, path, func(m *mapper, status map[string]any) error {
		info := child(status, key)
		if info == nil {
			return nil
		}
		if u := str(info, "username"); u != "" {
			mapped, err := m.identityUser(u)
			if err != nil {
				delete(status, key)
				if _, isTokenReview := status["authenticated"]; isTokenReview {
					status["authenticated"] = false
					status["error"] = "the token does not belong to this cluster"
				}
				return nil
			}
			info["username"] = mapped
		}
		return m.mapStrings(info, "groups", m.identityGroup)
	}), path+"."+key)
}

// ruleReviewRefs map SelfSubjectRulesReview: spec.namespace and the rules of
// status.resourceRules.
var ruleReviewRefs = []Ref{
	namespaceRef("spec", "namespace"),
	withField(atPath(TargetRules, "status", func(m *mapper, status map[string]any) error {
		if _, ok := status["resourceRules"]; !ok {
			return nil
		}
		wrapper := map[string]any{"rules": status["resourceRules"]}
		if err := policyRules(m, wrapper); err != nil {
			return err
		}
		status["resourceRules"] = wrapper["rules"]
		return nil
	}), "status.resourceRules"),
}
