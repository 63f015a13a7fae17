package translate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/client-go/kubernetes/scheme"
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

// platformGroups are groups of the built-in domains that are not the pinned
// API's but that every tenant reads as the platform serves them: the
// resource metrics APIs of `kubectl top` and autoscalers. kubernetesGroups
// are those of Kubernetes' own kinds that no resource serves (a Table's,
// discovery's, an AdmissionReview's).
var (
	platformGroups   = []string{"metrics.k8s.io", "custom.metrics.k8s.io", "external.metrics.k8s.io"}
	kubernetesGroups = []string{"meta.k8s.io", "apidiscovery.k8s.io", "admission.k8s.io", "audit.k8s.io"}
)

// schemeGroups are the groups of client-go's scheme: every group of the
// pinned Kubernetes, alpha ones included, served or not.
var schemeGroups = func() map[string]bool {
	out := map[string]bool{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		out[gvk.Group] = true
	}
	return out
}()

// IsSharedGroup reports whether a built-in group is one every tenant shares
// as it is: the core group, a group without a dot, a group of the pinned
// Kubernetes (the kinds table's, client-go's scheme's, kubernetesGroups) or
// a platform group (platformGroups). Any other
// group of the built-in domains (*.k8s.io, *.kubernetes.io: a
// sample-controller's, the Gateway API's) is a tenant's own, as a group of
// any other domain is; a platform's CRDs there are not the tenants'.
func IsSharedGroup(group string) bool {
	if group == "" || !strings.Contains(group, ".") {
		return true
	}
	return IsBuiltinGroup(group) && (tableGroups[group] || schemeGroups[group] ||
		slices.Contains(kubernetesGroups, group) || slices.Contains(platformGroups, group))
}

// The built-in domains are protected upstream (the API server asks a CRD
// there for an API review annotation, and the platform's policies take them
// for the platform's): a tenant's group of one lives upstream outside them,
// its domain's last dot a dash ("samplecontroller.k8s.io" →
// "acme-samplecontroller.k8s-io"). A tenant group that already ends so is
// refused, so that the mapping stays injective.
var protectedDomains = [][2]string{{"k8s.io", "k8s-io"}, {"kubernetes.io", "kubernetes-io"}}

// openGroup returns a tenant group of a built-in domain in the form it
// takes upstream (before the prefix), and whether it is one.
func openGroup(group string) (string, bool) {
	for _, d := range protectedDomains {
		if base, ok := strings.CutSuffix(group, "."+d[0]); ok {
			return base + "." + d[1], true
		}
	}
	return group, false
}

// closedGroup is openGroup's inverse.
func closedGroup(group string) string {
	for _, d := range protectedDomains {
		if base, ok := strings.CutSuffix(group, "."+d[1]); ok {
			return base + "." + d[0]
		}
	}
	return group
}

// UpstreamAPIGroup maps a tenant API group to the upstream one: shared
// groups stay, every other group is a tenant CRD group and gets the prefix
// ("stable.example.com" → "acme-stable.example.com"), a group of a built-in
// domain outside that domain ("samplecontroller.k8s.io" →
// "acme-samplecontroller.k8s-io").
func (t Tenant) UpstreamAPIGroup(group string) (string, error) {
	if IsSharedGroup(group) {
		return group, nil
	}
	if closedGroup(group) != group || group == "k8s.io" || group == "kubernetes.io" {
		return "", invalid("CustomResourceDefinition", "apiextensions.k8s.io", group, "spec.group", group,
			"k8s.io, kubernetes.io and a group ending in .k8s-io or .kubernetes-io are reserved: kubectl-zoo stores a tenant's *.k8s.io and *.kubernetes.io groups so upstream")
	}
	open, _ := openGroup(group)
	return t.prefixed("CustomResourceDefinition", "apiextensions.k8s.io", group, open, MaxNameLength)
}

// TenantAPIGroup maps an upstream API group back; ok is false for CRD groups
// of other tenants and of the cluster itself (a platform's CRD group of a
// built-in domain among them).
func (t Tenant) TenantAPIGroup(upstream string) (string, bool) {
	if IsBuiltinGroup(upstream) {
		return upstream, IsSharedGroup(upstream)
	}
	g, ok := t.unprefixed(upstream)
	if !ok {
		return "", false
	}
	return closedGroup(g), true
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
// "<plural>.<upstream group>". CRDs in shared groups are forbidden.
func (t Tenant) UpstreamCRDName(name string) (string, error) {
	plural, group, found := strings.Cut(name, ".")
	if !found || IsSharedGroup(group) {
		return "", forbidden(grCRD, name, fmt.Sprintf("tenants may not define resources in the built-in API group %q", group))
	}
	upGroup, err := t.UpstreamAPIGroup(group)
	if err != nil {
		return "", err
	}
	up := plural + "." + upGroup
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
	g, ok := t.TenantAPIGroup(group)
	if !ok {
		return "", false
	}
	return plural + "." + g, true
}
