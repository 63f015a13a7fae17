package translate

const (
	ownNamespace  = "evaluated over the objects of the selecting object's own namespace only"
	byController  = "the kind's controller"
	nodesOnly     = "selects nodes, the shared cluster's machines, which every tenant reads and schedules onto"
	narrowRequest = "narrows requests the namespaceSelector and the tenant's matchCondition already confine to the tenant's"
	claimSelector = "narrows which volume of the claim's class binds; the class (the tenant's own, or the cluster's) is confined as a shared reference"
)

// localSelectors are the label selectors that cannot reach another
// tenant's objects, each with the reason.
var localSelectors = []SelectorRule{
	{Resource: PodSpecSelector, Field: "affinity.podAffinity.*.labelSelector, .matchLabelKeys, .mismatchLabelKeys", Evaluator: "the scheduler",
		Reach: ReachNarrowing, Upstream: "selects pods only in the namespaces the term names or selects, which are confined (ReachConfined above)"},
	{Resource: PodSpecSelector, Field: "affinity.podAntiAffinity.*.labelSelector, .matchLabelKeys, .mismatchLabelKeys", Evaluator: "the scheduler",
		Reach: ReachNarrowing, Upstream: "selects pods only in the namespaces the term names or selects, which are confined (ReachConfined above)"},
	{Resource: PodSpecSelector, Field: "topologySpreadConstraints[].labelSelector", Evaluator: "the scheduler", Reach: ReachOwnNamespace,
		Upstream: "the scheduler counts only the pods of the pod's own namespace"},
	{Resource: PodSpecSelector, Field: "nodeSelector, affinity.nodeAffinity", Evaluator: "the scheduler", Reach: ReachShared, Upstream: nodesOnly},
	{Resource: gr("", "services"), Field: "spec.selector", Evaluator: "the endpoints and EndpointSlice controllers", Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("", "replicationcontrollers"), Field: "spec.selector", Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("apps", "deployments"), Field: "spec.selector", Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("apps", "replicasets"), Field: "spec.selector", Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("apps", "daemonsets"), Field: "spec.selector", Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("apps", "statefulsets"), Field: "spec.selector", Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("batch", "jobs"), Field: "spec.selector", Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("batch", "cronjobs"), Field: "spec.jobTemplate.spec.selector", Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("policy", "poddisruptionbudgets"), Field: "spec.selector", Evaluator: "the disruption controller and the eviction API",
		Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("autoscaling", "horizontalpodautoscalers"), Field: "spec.metrics[].{pods,object,external}.metric.selector",
		Evaluator: "the HPA controller, through the metrics APIs", Reach: ReachOwnNamespace,
		Upstream: "the controller asks the metrics APIs in the HPA's own namespace (what an external metrics adapter makes of it is the adapter's)"},
	{Resource: gr("", "resourcequotas"), Field: "spec.scopeSelector", Evaluator: "the quota controller and admission", Reach: ReachOwnNamespace,
		Upstream: "a quota counts only its own namespace's objects"},
	{Resource: gr("networking.k8s.io", "networkpolicies"), Field: "spec.podSelector", Evaluator: "the network plugin", Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: gr("networking.k8s.io", "networkpolicies"), Field: "spec.ingress[].from[].podSelector, spec.egress[].to[].podSelector", Evaluator: "the network plugin",
		Reach: ReachNarrowing, Upstream: "selects pods of the policy's own namespace, or of the namespaces its (confined) namespaceSelector selects"},
	{Resource: gr("", "persistentvolumeclaims"), Field: "spec.selector", Evaluator: "the PersistentVolume controller", Reach: ReachNarrowing,
		Upstream: claimSelector},
	{Resource: gr("apps", "statefulsets"), Field: "spec.volumeClaimTemplates[].spec.selector", Evaluator: "the PersistentVolume controller, on the claims made from it",
		Reach: ReachNarrowing, Upstream: claimSelector},
	{Resource: PodSpecSelector, Field: "volumes[].ephemeral.volumeClaimTemplate.spec.selector", Evaluator: "the PersistentVolume controller, on the claim made from it",
		Reach: ReachNarrowing, Upstream: claimSelector},
	{Resource: gr(admissionGroup, "validatingwebhookconfigurations"), Field: "webhooks[].objectSelector", Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: gr(admissionGroup, "mutatingwebhookconfigurations"), Field: "webhooks[].objectSelector", Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: grVAP, Field: "spec.matchConstraints.objectSelector", Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: grMAP, Field: "spec.matchConstraints.objectSelector", Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: gr(admissionGroup, "validatingadmissionpolicybindings"), Field: "spec.matchResources.objectSelector", Evaluator: "the API server",
		Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: gr(admissionGroup, "mutatingadmissionpolicybindings"), Field: "spec.matchResources.objectSelector", Evaluator: "the API server",
		Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: gr(admissionGroup, "validatingadmissionpolicybindings"), Field: "spec.paramRef.selector", Evaluator: "the API server, over the policy's parameters",
		Reach: ReachNarrowing, Upstream: "parameters are of a namespaced kind, read in the tenant's namespaces, or of the tenant's own API groups (checkParamKind)"},
	{Resource: gr(admissionGroup, "mutatingadmissionpolicybindings"), Field: "spec.paramRef.selector", Evaluator: "the API server, over the policy's parameters",
		Reach: ReachNarrowing, Upstream: "parameters are of a namespaced kind, read in the tenant's namespaces, or of the tenant's own API groups (checkParamKind)"},
	{Resource: grPV, Field: "spec.nodeAffinity", Evaluator: "the scheduler", Reach: ReachShared, Upstream: nodesOnly},
	{Resource: grRuntimeClass, Field: "scheduling.nodeSelector", Evaluator: "the RuntimeClass admission plugin", Reach: ReachShared, Upstream: nodesOnly},
	{Resource: grStorageClass, Field: "allowedTopologies", Evaluator: "the scheduler and provisioners", Reach: ReachShared, Upstream: nodesOnly},
	{Resource: gr("storage.k8s.io", "csistoragecapacities"), Field: "nodeTopology", Evaluator: "the scheduler", Reach: ReachShared, Upstream: nodesOnly},
}
