package translate

// kindFieldRules classify reference-like fields of one kind, grouped by
// kind; selectors and names that hold the same way in every kind are
// definitions' (ownSelectorRules, admissionNarrowRules).

// kindField is a FieldRule of one kind's field.
func kindField(kind, path string, class FieldClass, reason string) FieldRule {
	return FieldRule{Kind: kind, Path: path, Class: class, Reason: reason}
}

// fieldsOf is one FieldRule per path of one kind, with one class and reason.
func fieldsOf(kind string, class FieldClass, reason string, paths ...string) []FieldRule {
	out := make([]FieldRule, 0, len(paths))
	for _, p := range paths {
		out = append(out, kindField(kind, p, class, reason))
	}
	return out
}

const (
	ownStatus   = "status of the tenant's own object, which the platform does not act on for anyone else"
	informative = "informational text; nothing resolves it"
)

var kindFieldRules = concatRules(
	[]FieldRule{
		kindField("admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding", "spec.paramRef.selector", FieldHarmless,
			"selects parameters in spec.paramRef.namespace (translated) or in the namespace of the request, which the binding's confined match keeps the tenant's"),
		kindField("admissionregistration.k8s.io/ValidatingAdmissionPolicy", "status.typeChecking.expressionWarnings[].fieldRef", FieldHarmless,
			"the API server's type check of the policy's own expressions"),
		kindField("apiextensions.k8s.io/CustomResourceDefinition", "spec.versions[].schema.openAPIV3Schema.$ref", FieldHarmless,
			"a JSON-schema keyword, which the API server refuses in CRD schemas"),
		kindField("apiextensions.k8s.io/CustomResourceDefinition", "spec.versions[].schema.openAPIV3Schema.externalDocs.url", FieldHarmless, informative),
		kindField("apiextensions.k8s.io/CustomResourceDefinition", "spec.versions[].schema.openAPIV3Schema.id", FieldHarmless,
			"a JSON-schema keyword naming the schema itself"),
		kindField("apps/StatefulSet", "spec.serviceName", FieldHarmless, sameNamespace),
		kindField("authentication.k8s.io/TokenRequest", "spec.boundObjectRef", FieldHarmless,
			"looked up in the ServiceAccount's own namespace (a Node only ties the token's lifetime to it)"),
		kindField("authorization.k8s.io/SubjectAccessReview", "spec.groups", FieldTranslated, "mapped with spec.user into the tenant's groups (reviewUser)"),
		kindField("authorization.k8s.io/LocalSubjectAccessReview", "spec.groups", FieldTranslated, "mapped with spec.user into the tenant's groups (reviewUser)"),
		kindField("authorization.k8s.io/SelfSubjectRulesReview", "status.nonResourceRules[].nonResourceURLs", FieldHarmless,
			"the API server's answer about the tenant's own rights"),
		kindField("autoscaling/Scale", "status.selector", FieldHarmless, "computed by the API server from the scaled object's own selector"),
		kindField("certificates.k8s.io/CertificateSigningRequest", "spec.signerName", FieldConfined,
			"checkCSR refuses the cluster's signers; tenants hold no right on CSRs upstream, and a tenant's signer sees only its tenant's"),
		kindField("core/Binding", "target.namespace", FieldHarmless, "ignored: a binding's target is a node"),
		kindField("core/Event", "source.host", FieldHarmless, informative),
		kindField("events.k8s.io/Event", "deprecatedSource.host", FieldHarmless, informative),
		kindField("flowcontrol.apiserver.k8s.io/FlowSchema", "spec.rules[].nonResourceRules[].nonResourceURLs", FieldHarmless,
			"matches requests of the FlowSchema's subjects only, which are the tenant's (flowSchemaSubjects)"),
		kindField("networking.k8s.io/Ingress", "spec.tls[].secretName", FieldHarmless, sameNamespace),
		kindField("core/Service", "spec.sessionAffinityConfig.clientIP", FieldHarmless, "a timeout, not an address"),
		kindField("resource.k8s.io/DeviceClass", "spec.extendedResourceName", FieldHarmless,
			"alpha (DRAExtendedResource, off in the pinned cluster): the API server drops it"),
		kindField("storage.k8s.io/CSIStorageCapacity", "nodeTopology", FieldHarmless,
			"the nodes where capacity of the object's class is published, and that class is always the tenant's"),
		kindField("storage.k8s.io/VolumeAttributesClass", "driverName", FieldHarmless,
			"a CSI driver, which applies the class to the claims that name it: the tenant's own"),
	},
	fieldsOf("apiextensions.k8s.io/CustomResourceDefinition", FieldHarmless,
		"names of the tenant's own resources in its own prefixed group; discovery through the proxy shows no other tenant's",
		"spec.names", "spec.names.shortNames", "status.acceptedNames", "status.acceptedNames.shortNames"),
	fieldsOf("apps/StatefulSet", FieldHarmless, "ignored: the controller makes claims from a template's metadata and spec",
		"spec.volumeClaimTemplates[].status.currentVolumeAttributesClassName",
		"spec.volumeClaimTemplates[].status.modifyVolumeStatus.targetVolumeAttributesClassName"),
	fieldsOf("autoscaling/HorizontalPodAutoscaler", FieldHarmless, "an object of the HorizontalPodAutoscaler's own namespace, whose metrics the adapter serves there",
		"spec.metrics[].object.describedObject", "status.currentMetrics[].object.describedObject"),
	fieldsOf("batch/CronJob", FieldHarmless, ownStatus+": the controller's list of the CronJob's own Jobs",
		"status.active", "status.active[].namespace"),
	fieldsOf("certificates.k8s.io/CertificateSigningRequest", FieldHarmless, "set by the API server from the requester; what a body says is replaced",
		"spec.groups", "spec.username"),
	fieldsOf("core/ResourceQuota", FieldHarmless, "scopes of the quota's own namespace's objects",
		"spec.scopeSelector", "spec.scopeSelector.matchExpressions[].scopeName"),
	fieldsOf("core/Service", FieldHarmless, "allocated by the API server from the cluster's service range; an address in use is refused",
		"spec.clusterIP", "spec.clusterIPs"),
	fieldsOf("core/ServiceAccount", FieldHarmless, sameNamespace, "imagePullSecrets", "secrets", "secrets[].namespace"),
	fieldsOf("core/Endpoints", FieldHarmless, "a DNS label under the tenant's own Service's name",
		"subsets[].addresses[].hostname", "subsets[].notReadyAddresses[].hostname"),
	fieldsOf("core/Endpoints", FieldHarmless, "only steers the topology routing of the tenant's own Service",
		"subsets[].addresses[].nodeName", "subsets[].notReadyAddresses[].nodeName"),
	[]FieldRule{
		kindField("discovery.k8s.io/EndpointSlice", "endpoints[].hostname", FieldHarmless, "a DNS label under the tenant's own Service's name"),
		kindField("discovery.k8s.io/EndpointSlice", "endpoints[].nodeName", FieldHarmless, "only steers the topology routing of the tenant's own Service"),
	},
	fieldsOf("networking.k8s.io/Ingress", FieldHarmless, sameNamespace,
		"spec.rules[].http.paths[].backend.service"),
	fieldsOf("networking.k8s.io/NetworkPolicy", FieldHarmless,
		"a NetworkPolicy governs only the pods of its own namespace; the other side's policies govern theirs",
		"spec.egress[].to[].ipBlock.cidr", "spec.ingress[].from[].ipBlock.cidr"),
	fieldsOf("resource.k8s.io/DeviceClass", FieldHarmless, "the device filter of the tenant's own class",
		"spec.selectors", "spec.selectors[].cel"),
	ownSelectorRules,
	admissionNarrowRules,
)

// ownSelectorRules: selectors over the pods or objects of the object's own
// namespace (definitions' properties).
var ownSelectorRules = concatRules(
	defs(FieldHarmless, "selects pods of the object's own namespace",
		"apps.DaemonSetSpec.selector", "apps.DeploymentSpec.selector", "apps.ReplicaSetSpec.selector",
		"apps.StatefulSetSpec.selector", "batch.JobSpec.selector", "core.ReplicationControllerSpec.selector",
		"core.ServiceSpec.selector", "policy.PodDisruptionBudgetSpec.selector", "networking.NetworkPolicySpec.podSelector",
		"networking.NetworkPolicyPeer.podSelector"),
	defs(FieldHarmless, "selects metrics that the metrics adapter serves for the HorizontalPodAutoscaler's own namespace",
		"autoscaling.MetricIdentifier.selector"),
	defs(FieldHarmless, "narrows which devices of the request's class may be allocated",
		"resource.ExactDeviceRequest.selectors", "resource.DeviceSubRequest.selectors", "resource.DeviceSelector.cel"),
)

// admissionNarrowRules: parts of a tenant webhook's or policy's match that
// can only narrow it; the namespace selector and the match condition that
// the translator confines already keep it to the tenant's objects.
var admissionNarrowRules = defs(FieldHarmless,
	"only narrows a match that the confined namespace selector and match condition keep to the tenant's objects",
	"admissionregistration.MutatingWebhook.objectSelector", "admissionregistration.ValidatingWebhook.objectSelector",
	"admissionregistration.MatchResources.objectSelector", "admissionregistration.NamedRuleWithOperations.resourceNames")
