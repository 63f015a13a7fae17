package admissionrules

import (
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// VolumeSourceResource is the virtual resource (in kubectl-zoo's API group)
// whose `use` on a volume source's name (translate.ExternalVolumeSources),
// granted to the registry identity in a tenant's MembershipNamespace, lets
// the tenant's pods, pod templates and PersistentVolumes have that source
// (volumeSourceValidations asks the authorizer). The grant is the tenant's
// policy's volumeSources.
const VolumeSourceResource = "volumesources"

// VolumeSourceGrantRoleBinding names the RoleBinding, in a tenant's
// MembershipNamespace, of its volume-source grant.
const VolumeSourceGrantRoleBinding = "zoo-tenant-volume-sources"

// VolumeSourceGrantTenantLabel marks the ClusterRole of a tenant's
// volume-source grant with the tenant's name (as PriorityGrantTenantLabel).
const VolumeSourceGrantTenantLabel = translate.APIGroup + "/volume-sources-grant-of"

// volumeSourceValidations hold upstream, for tenant identities and tenant
// ServiceAccounts, what translate.VolumeSources says of the external
// sources: one rule per source, which holds when no pod spec of the object
// (translate.KindRule.PodSpecPaths, every kind of the table that has pod
// specs) and no PersistentVolume has the source, or when the tenant's
// grant allows it. Each asks the authorizer at most once, and only for a
// source the object has.
func volumeSourceValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	var out []admissionv1.Validation
	for _, s := range translate.VolumeSources {
		var uses []string
		if s.Pod == translate.VolumeSourceExternal {
			for _, k := range translate.Kinds() {
				for _, p := range k.PodSpecPaths() {
					list := "object." + p + ".volumes"
					uses = append(uses, "("+kindMatch(k.Resource.Group, k.Resource.Resource)+" && !"+absent(list)+" && "+list+".exists(v, has(v."+s.Name+")))")
				}
			}
		}
		if s.Volume == translate.VolumeSourceExternal {
			uses = append(uses, "("+kindMatch("", translate.ResourceOf("", "PersistentVolume"))+" && has(object.spec) && has(object.spec."+s.Name+"))")
		}
		if len(uses) == 0 {
			continue
		}
		out = append(out, admissionv1.Validation{
			Expression: "object == null || variables.subres != '' || !(" + strings.Join(uses, " || ") + ") || " +
				memberCheck("variables.tenant", VolumeSourceResource, strconv.Quote(s.Name), "use"),
			MessageExpression: "'the volume source " + s.Name + " is not one the policy of tenant ' + variables.tenant + " +
				"' allows (kubectl zoo policy set --volume-sources): the machines mount storage outside the cluster that the tenant names'",
			Reason: forbidden,
		})
	}
	return out
}

// kindMatch is a CEL condition that the request is for the resource of
// group.
func kindMatch(group, resource string) string {
	return "variables.reqGroup == " + strconv.Quote(group) + " && request.resource.resource == " + strconv.Quote(resource)
}

// podVolumeSourceValidations are zoo-tenant-storage's rule 8: a pod created
// in a namespace of tenant t, whoever creates it, has each external source
// only where t's grant allows it, one rule per source (so that each asks
// the authorizer at most once). zoo-tenant refuses the sources in the pod
// templates a tenant writes already (volumeSourceValidations); this holds
// for the pods that anything makes from them, and from the custom resources
// of the platform's operators, and for templates written while the policy
// allowed a source that it no longer does. Its message begins as
// zoo-tenant's does: a tenant's own pod is refused by both, and which of
// the two the apiserver reports is not fixed.
func podVolumeSourceValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	var out []admissionv1.Validation
	for _, s := range translate.VolumeSources {
		if s.Pod != translate.VolumeSourceExternal {
			continue
		}
		out = append(out, admissionv1.Validation{
			Expression: "variables.resource != '" + translate.ResourceOf("", "Pod") + "' || variables.nsTenant == '' || object == null || !has(object.spec.volumes) || " +
				"!object.spec.volumes.exists(v, has(v." + s.Name + ")) || " + memberCheck("variables.nsTenant", VolumeSourceResource, strconv.Quote(s.Name), "use"),
			MessageExpression: "'the volume source " + s.Name + " is not one the policy of tenant ' + variables.nsTenant + " +
				"' allows (kubectl zoo policy set --volume-sources): no pod in its namespaces may have it, whoever creates the pod'",
			Reason: forbidden,
		})
	}
	return out
}
