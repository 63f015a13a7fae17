package translate

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// resourceAttributesRef maps SubjectAccessReview-style resourceAttributes:
// namespace, API group and the name of tenant-owned cluster-scoped objects.
// On the way out, attributes naming what is not the tenant's are left out
// whole: without their namespace they would read as a question about every
// namespace, without their group as one about the core group.
func resourceAttributesRef(path string) Ref {
	parentPath, key := splitField(path)
	return Ref{Field: path, Target: TargetRules, apply: func(m *mapper, obj map[string]any) error {
		return walk(obj, parentPath, func(parent map[string]any) error {
			attrs, ok := parent[key].(map[string]any)
			if !ok {
				return nil
			}
			err := m.resourceAttributes(attrs)
			if !m.in && IsNotTenants(err) {
				delete(parent, key)
				return nil
			}
			return err
		})
	}}
}

// resourceAttributes maps one resourceAttributes; out, a name that is not
// the tenant's is an ErrNotTenants.
func (m *mapper) resourceAttributes(attrs map[string]any) error {
	group := str(attrs, "group")
	mapped, err := m.apiGroupOrWildcard(group)
	if group != "" && err != nil {
		return err
	}
	if group != "" {
		attrs["group"] = mapped
	}
	if !m.in {
		group = mapped
	}
	if ns := str(attrs, "namespace"); ns != "" {
		if attrs["namespace"], err = m.namespace(ns); err != nil {
			return err
		}
	}
	rule, ok := kindsByResource[schema.GroupResource{Group: group, Resource: str(attrs, "resource")}]
	if name := str(attrs, "name"); ok && name != "" {
		if attrs["name"], err = m.objectName(rule, name); err != nil {
			return err
		}
	}
	return nil
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

// reviewReasonRef empties, on the way out, the reason and drops the
// evaluation error of an access review's status: the authorizer's text names the upstream
// objects that decided it (`RBAC: allowed by RoleBinding
// "zoo-tenant-admins/acme-default" of ClusterRole "zoo-tenant-admin" to
// User "zoo:acme:admin"`), the platform's among them, and no structure
// tells which of its words are names. What a tenant sends there is
// ignored by the API server.
var reviewReasonRef = withField(atPath(TargetText, "status", func(m *mapper, status map[string]any) error {
	if _, ok := status["reason"]; ok && !m.in {
		status["reason"] = ""
	}
	if !m.in {
		delete(status, "evaluationError")
	}
	return nil
}), "status.reason")
