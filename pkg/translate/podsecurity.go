package translate

import (
	"fmt"
	"slices"
	"strings"
)

// Pod Security: every namespace of a tenant carries the platform's Pod
// Security labels. The level is the tenant's (the podSecurity of its
// policy, spec.policy of its Tenant record, DefaultPodSecurityLevel by
// default); the labels are
// platform-owned metadata (platformTable), so a tenant can neither lower nor
// drop them.
const (
	PodSecurityPrefix  = "pod-security.kubernetes.io/"
	PodSecurityEnforce = PodSecurityPrefix + "enforce"
	PodSecurityWarn    = PodSecurityPrefix + "warn"
	PodSecurityAudit   = PodSecurityPrefix + "audit"
	// DefaultPodSecurityLevel is the level of a tenant whose record names
	// none.
	DefaultPodSecurityLevel = "baseline"
	// PodSecurityLevelAnnotation on a Tenant record named the Pod Security
	// level of the tenant's namespaces before spec.policy did; it is read
	// only when spec.policy names no level (tenantapi.EffectivePolicy).
	// Only the platform writes Tenant records.
	PodSecurityLevelAnnotation = APIGroup + "/pod-security"
	// PriorityClassesAnnotation on a tenant namespace lists, comma-separated,
	// the cluster's PriorityClasses of positive value that pods in that
	// namespace may use beside those of the tenant's policy: a per-namespace
	// exception of the platform. It is platform-owned metadata.
	PriorityClassesAnnotation = APIGroup + "/priority-classes"
)

// PodSecurityLevels are the valid Pod Security levels.
var PodSecurityLevels = []string{"privileged", "baseline", "restricted"}

// PodSecurityLabelKeys are the labels the platform sets on every tenant
// namespace, all to the tenant's level.
var PodSecurityLabelKeys = []string{PodSecurityEnforce, PodSecurityWarn, PodSecurityAudit}

// PodSecurityLabels returns the labels of a tenant namespace at level.
func PodSecurityLabels(level string) map[string]string {
	out := make(map[string]string, len(PodSecurityLabelKeys))
	for _, k := range PodSecurityLabelKeys {
		out[k] = level
	}
	return out
}

// PodSecurityRank orders the Pod Security levels from the loosest
// (privileged, 0) to the strictest (restricted, 2); it is -1 for anything
// else.
func PodSecurityRank(level string) int { return slices.Index(PodSecurityLevels, level) }

// PodSecurityAtLeast reports whether level is a valid Pod Security level at
// least as strict as floor. A tenant may label its namespaces with such a
// level: stricter than its own is never a way around it.
func PodSecurityAtLeast(level, floor string) bool {
	r := PodSecurityRank(level)
	return r >= 0 && r >= PodSecurityRank(floor)
}

// ValidatePodSecurityLevel checks a Pod Security level.
func ValidatePodSecurityLevel(level string) error {
	if !slices.Contains(PodSecurityLevels, level) {
		return fmt.Errorf("pod security level %q is not one of %s", level, strings.Join(PodSecurityLevels, ", "))
	}
	return nil
}

// setPodSecurity gives a new namespace (upstream form) the platform's Pod
// Security labels, keeping those the tenant set stricter (createBody has
// judged them).
func setPodSecurity(obj map[string]any, level string) {
	labels := ensureChild(ensureChild(obj, "metadata"), "labels")
	for k, v := range PodSecurityLabels(level) {
		if cur, ok := labels[k].(string); !ok || !PodSecurityAtLeast(cur, level) {
			labels[k] = v
		}
	}
}
