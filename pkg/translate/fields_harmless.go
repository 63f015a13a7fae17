package translate

// defRules classify a schema definition's property wherever it appears:
// mostly the pod spec, which nine kinds hold (pods, templates, workloads).
// Each reason says why the field cannot reach another tenant's objects, or
// which check holds it.
var defRules = concatRules(metaRules, podLocalRules, podMachineRules, podSchedulingRules, claimSpecRules)

func concatRules(lists ...[]FieldRule) []FieldRule {
	var out []FieldRule
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// def is a FieldRule of a definition's property.
func def(d string, class FieldClass, reason string) FieldRule {
	return FieldRule{Def: d, Class: class, Reason: reason}
}

// defs is one FieldRule per property, with one class and reason.
func defs(class FieldClass, reason string, ds ...string) []FieldRule {
	out := make([]FieldRule, 0, len(ds))
	for _, d := range ds {
		out = append(out, def(d, class, reason))
	}
	return out
}

// metaRules: ObjectMeta, at the top and in every template.
var metaRules = []FieldRule{
	def("meta.ObjectMeta.namespace", FieldTranslated,
		"the request's namespace, prefixed (the API server refuses a body naming another); in a template, the controller uses its owner's"),
	def("meta.ObjectMeta.generateName", FieldHarmless, "a prefix of the object's own name, which is prefixed or in the tenant's namespace"),
	def("meta.ObjectMeta.ownerReferences", FieldTranslated,
		"API group and cluster-scoped owners' names mapped (ownerReferences); an owner only makes the tenant's own object its dependent"),
}

// sameNamespace is why a reference resolved in the object's own namespace
// is harmless: the API server, the kubelet or the controller looks it up
// there, and the namespace is the tenant's.
const sameNamespace = "resolved in the object's own namespace, which is the tenant's"

// podLocalRules: what a pod names in its own namespace or inside itself.
var podLocalRules = concatRules(
	defs(FieldHarmless, sameNamespace,
		"core.PodSpec.serviceAccountName", "core.PodSpec.serviceAccount", "core.PodSpec.imagePullSecrets",
		"core.EnvFromSource.configMapRef", "core.EnvFromSource.secretRef", "core.EnvVarSource.configMapKeyRef",
		"core.EnvVarSource.secretKeyRef", "core.SecretVolumeSource.secretName", "core.PersistentVolumeClaimVolumeSource.claimName",
		"core.CSIVolumeSource.nodePublishSecretRef",
		"core.PodResourceClaim.resourceClaimName", "core.PodResourceClaim.resourceClaimTemplateName",
		"core.PodResourceClaimStatus.resourceClaimName", "core.PodExtendedResourceClaimStatus.resourceClaimName"),
	defs(FieldHarmless, "names a part of the pod itself (a container, a volume, a field of its own object)",
		"core.EnvVarSource.fieldRef", "core.EnvVarSource.resourceFieldRef", "core.EnvVarSource.fileKeyRef",
		"core.FileKeySelector.volumeName", "core.ResourceFieldSelector.containerName", "core.DownwardAPIVolumeFile.fieldRef",
		"core.DownwardAPIVolumeFile.resourceFieldRef", "core.EphemeralContainer.targetContainerName",
		"batch.PodFailurePolicyOnExitCodesRequirement.containerName", "core.ContainerExtendedResourceRequest.containerName",
		"core.ContainerExtendedResourceRequest.requestName"),
	defs(FieldHarmless, "a resource name (cpu, memory, an extended resource), not an object",
		"core.ContainerResizePolicy.resourceName", "core.ContainerExtendedResourceRequest.resourceName"),
	defs(FieldHarmless, "seen only inside the pod's own containers (its host name, /etc/hosts entries, a gRPC service name the kubelet asks the pod's own address for)",
		"core.PodSpec.hostname", "core.PodSpec.hostAliases", "core.HostAlias.hostnames", "core.HostAlias.ip", "core.GRPCAction.service"),
	defs(FieldHarmless, "the kubelet's report of the pod's own containers, which nothing of the platform acts on for anyone else",
		"core.ContainerStatus.containerID", "core.ContainerStatus.imageID", "core.ContainerStateTerminated.containerID",
		"core.ResourceHealth.resourceID"),
	defs(FieldHarmless, "a user inside the pod's own containers (reported by the kubelet, or a Windows user name)",
		"core.ContainerStatus.user", "core.WindowsSecurityContextOptions.runAsUserName"),
	[]FieldRule{
		def("core.PodSpec.hostUsers", FieldHarmless, "true (the default) runs without a user namespace, as every pod did before; false isolates more"),
		def("core.ImageVolumeSource.reference", FieldHarmless, "an image, pulled as a container's image is, with the pod's own pull secrets"),
		def("core.WindowsSecurityContextOptions.gmsaCredentialSpecName", FieldHarmless,
			"a gMSA credential spec, which the GMSA webhook authorizes per ServiceAccount; without Windows nodes nothing reads it"),
		def("core.ClusterTrustBundleProjection.labelSelector", FieldHarmless, "selects the cluster's trust bundles: public certificates that every pod may read"),
		def("core.ClusterTrustBundleProjection.signerName", FieldHarmless, "selects the cluster's trust bundles: public certificates that every pod may read"),
		def("core.PodCertificateProjection.signerName", FieldHarmless,
			"alpha (PodCertificateRequest, off in the pinned cluster): the API server drops it; the signer decides what it signs"),
	},
)

// podSecurity is why the machine-level fields of a pod are held: Pod
// Security's baseline level refuses them upstream, for every writer, and
// every tenant namespace enforces at least baseline unless the platform
// gives the tenant privileged (Platform-owned metadata).
const podSecurity = "Pod Security baseline refuses it (every tenant namespace enforces baseline or stricter unless the platform sets the tenant privileged)"

// podMachineRules: fields that reach the shared machines.
var podMachineRules = defs(FieldConfined, podSecurity,
	"core.PodSpec.hostNetwork", "core.PodSpec.hostPID", "core.PodSpec.hostIPC", "core.Volume.hostPath",
	"core.ContainerPort.hostPort", "core.ContainerPort.hostIP", "core.WindowsSecurityContextOptions.hostProcess",
	"core.SELinuxOptions.user", "core.HTTPGetAction.host", "core.TCPSocketAction.host")

// sharedNodes is why choosing nodes is harmless: nodes are the shared
// cluster's, every tenant may run pods on any of them, and none is another
// tenant's. Platforms that dedicate nodes by taints must hold nodeName and
// bindings themselves (they skip the scheduler's taint checks).
const sharedNodes = "chooses among the shared cluster's nodes, which all tenants use alike (nodeName and bindings skip the scheduler's taint checks: a platform that dedicates nodes must hold them)"

// podSchedulingRules: how a pod is placed.
var podSchedulingRules = concatRules(
	defs(FieldHarmless, sharedNodes,
		"core.PodSpec.nodeName", "core.PodSpec.nodeSelector", "core.VolumeNodeAffinity.required",
		"node.Scheduling.nodeSelector", "core.Binding.target"),
	[]FieldRule{
		def("core.PodSpec.schedulerName", FieldHarmless,
			"names a scheduler of the cluster; a tenant's own scheduler could bind only the tenant's pods (pods/binding in its namespaces)"),
		def("core.TopologySpreadConstraint.labelSelector", FieldHarmless, "counts pods of the pod's own namespace"),
	},
)

// claimSpecRules: a claim's spec, in PVCs and claim templates.
var claimSpecRules = []FieldRule{
	def("core.PersistentVolumeClaimSpec.selector", FieldHarmless,
		"only narrows which volumes of the claim's class may bind; classes keep tenants' volumes apart (zoo-tenant-storage)"),
	def("core.PersistentVolumeClaimSpec.dataSource", FieldHarmless, sameNamespace),
	def("core.TypedLocalObjectReference.apiGroup", FieldHarmless,
		"the group of an object in the claim's own namespace (a tenant group here is not translated: the populator sees it as written)"),
	def("core.PersistentVolumeClaimSpec.dataSourceRef", FieldHarmless,
		"an object in the claim's own namespace; another namespace needs the alpha CrossNamespaceVolumeDataSource (off) and a ReferenceGrant"),
	def("core.TypedObjectReference.apiGroup", FieldHarmless, "the group of the data source, in the claim's own namespace (see dataSourceRef)"),
	def("core.TypedObjectReference.namespace", FieldHarmless,
		"dropped by the API server: cross-namespace data sources are alpha (CrossNamespaceVolumeDataSource, off)"),
}
