package translate

import (
	"fmt"
	"strings"
)

// Length limits an upstream name must respect once prefixed.
const (
	// MaxNamespaceLength is the longest namespace name (a DNS label).
	MaxNamespaceLength = 63
	// MaxNameLength is the longest name of most objects (a DNS subdomain).
	MaxNameLength = 253
)

// UpstreamNamespace maps a tenant namespace to its upstream namespace
// ("default" → "acme-default"). It fails with a 422 Invalid error naming the
// tenant's namespace and its limit when the prefixed name would be too long.
func (t Tenant) UpstreamNamespace(ns string) (string, error) {
	return t.prefixed("Namespace", "", ns, ns, MaxNamespaceLength)
}

// TenantNamespace maps an upstream namespace back; ok is false when the
// namespace is not the tenant's.
func (t Tenant) TenantNamespace(upstream string) (string, bool) { return t.unprefixed(upstream) }

// UpstreamClusterName maps the name of a tenant-owned cluster-scoped object
// (ClusterRole "view" → "acme-view"); over-long names fail with 422 Invalid.
func (t Tenant) UpstreamClusterName(kind, group, name string) (string, error) {
	return t.prefixed(kind, group, name, name, MaxNameLength)
}

// TenantClusterName maps the upstream name of a tenant-owned cluster-scoped
// object back; ok is false when it is not the tenant's.
func (t Tenant) TenantClusterName(upstream string) (string, bool) { return t.unprefixed(upstream) }

// UpstreamGenerateName maps metadata.generateName of a tenant-owned
// cluster-scoped object. The API server truncates a long generateName itself,
// and it truncates at the end, so the prefix always survives.
func (t Tenant) UpstreamGenerateName(generateName string) string {
	if generateName == "" {
		return ""
	}
	return t.Prefix() + generateName
}

func (t Tenant) prefixed(kind, group, objectName, local string, limit int) (string, error) {
	if local == "" {
		return "", nil
	}
	up := t.Prefix() + local
	if len(up) > limit {
		return "", invalid(kind, group, objectName, "metadata.name", local, fmt.Sprintf(
			"must be no more than %d characters in tenant %q (the limit is %d, and the tenant's prefix %q takes %d)",
			limit-len(t.Prefix()), t.name, limit, t.Prefix(), len(t.Prefix())))
	}
	return up, nil
}

func (t Tenant) unprefixed(upstream string) (string, bool) {
	if !t.Owns(upstream) {
		return "", false
	}
	return upstream[len(t.Prefix()):], true
}

// IsBuiltinGroup reports whether an API group belongs to Kubernetes itself:
// the core group "", every group without a dot (apps, batch, policy,
// autoscaling, ...) and every *.k8s.io and *.kubernetes.io group. Built-in
// groups are never prefixed, and a tenant may not define CRDs in them.
func IsBuiltinGroup(group string) bool {
	switch {
	case group == "", !strings.Contains(group, "."):
		return true
	case group == "k8s.io", strings.HasSuffix(group, ".k8s.io"):
		return true
	case group == "kubernetes.io", strings.HasSuffix(group, ".kubernetes.io"):
		return true
	}
	return false
}

// UpstreamAPIGroup maps a tenant API group to the upstream one: built-in
// groups stay, every other group is a tenant CRD group and gets the prefix
// ("stable.example.com" → "acme-stable.example.com").
func (t Tenant) UpstreamAPIGroup(group string) (string, error) {
	if IsBuiltinGroup(group) {
		return group, nil
	}
	return t.prefixed("CustomResourceDefinition", "apiextensions.k8s.io", group, group, MaxNameLength)
}

// TenantAPIGroup maps an upstream API group back; ok is false for CRD groups
// of other tenants and of the cluster itself.
func (t Tenant) TenantAPIGroup(upstream string) (string, bool) {
	if IsBuiltinGroup(upstream) {
		return upstream, true
	}
	return t.unprefixed(upstream)
}

// UpstreamAPIVersion maps an apiVersion ("stable.example.com/v1").
func (t Tenant) UpstreamAPIVersion(apiVersion string) (string, error) {
	group, version, found := strings.Cut(apiVersion, "/")
	if !found {
		return apiVersion, nil
	}
	up, err := t.UpstreamAPIGroup(group)
	if err != nil {
		return "", err
	}
	return up + "/" + version, nil
}

// TenantAPIVersion maps an upstream apiVersion back; ok is false when its
// group is not visible to the tenant.
func (t Tenant) TenantAPIVersion(upstream string) (string, bool) {
	group, version, found := strings.Cut(upstream, "/")
	if !found {
		return upstream, true
	}
	g, ok := t.TenantAPIGroup(group)
	if !ok {
		return "", false
	}
	return g + "/" + version, true
}

// UpstreamCRDName maps a CRD name "<plural>.<group>" to
// "<plural>.<upstream group>". CRDs in built-in groups are forbidden.
func (t Tenant) UpstreamCRDName(name string) (string, error) {
	plural, group, found := strings.Cut(name, ".")
	if !found || IsBuiltinGroup(group) {
		return "", forbidden(grCRD, name, fmt.Sprintf("tenants may not define resources in the built-in API group %q", group))
	}
	up := plural + "." + t.Prefix() + group
	if len(up) > MaxNameLength {
		return "", invalid("CustomResourceDefinition", "apiextensions.k8s.io", name, "metadata.name", name,
			fmt.Sprintf("must be no more than %d characters in tenant %q (the limit is %d)", MaxNameLength-len(t.Prefix()), t.name, MaxNameLength))
	}
	return up, nil
}

// TenantCRDName maps an upstream CRD name back; ok is false for CRDs that are
// not the tenant's.
func (t Tenant) TenantCRDName(upstream string) (string, bool) {
	plural, group, found := strings.Cut(upstream, ".")
	if !found || IsBuiltinGroup(group) {
		return "", false
	}
	g, ok := t.unprefixed(group)
	if !ok {
		return "", false
	}
	return plural + "." + g, true
}
