package translate

import "k8s.io/apimachinery/pkg/runtime/schema"

const (
	ownNamespace  = "evaluated over the objects of the selecting object's own namespace only"
	byController  = "the kind's controller"
	nodesOnly     = "selects nodes, the shared cluster's machines, which every tenant reads and schedules onto"
	narrowRequest = "narrows requests the namespaceSelector and the tenant's matchCondition already confine to the tenant's"
	claimSelector = "narrows which volume of the claim's class binds; the class (the tenant's own, or the cluster's) is confined as a shared reference"
	paramSelector = "parameters are of a namespaced kind, read in the tenant's namespaces, or of the tenant's own API groups (checkParamKind)"
)

// ownSelector is the spec.selector of a workload kind, evaluated by its
// controller in its own namespace.
func ownSelector(resource schema.GroupResource, fields ...string) SelectorRule {
	if len(fields) == 0 {
		fields = []string{"spec.selector"}
	}
	return SelectorRule{Resource: resource, Fields: fields, Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace}
}

// localSelectors are the label selectors that cannot reach another
// tenant's objects, each with the reason.
var localSelectors = []SelectorRule{
	{Resource: PodSpecSelector, Fields: affinityTerms("labelSelector"), Evaluator: "the scheduler", Reach: ReachNarrowing,
		Upstream: "selects pods only in the namespaces the term names or selects, which are confined (ReachConfined above)"},
	{Resource: PodSpecSelector, Fields: []string{"topologySpreadConstraints[].labelSelector"}, Evaluator: "the scheduler", Reach: ReachOwnNamespace,
		Upstream: "the scheduler counts only the pods of the pod's own namespace"},
	{Resource: PodSpecSelector, Fields: []string{"nodeSelector", "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		"affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference"}, Evaluator: "the scheduler", Reach: ReachShared, Upstream: nodesOnly},
	{Resource: PodSpecSelector, Fields: []string{"volumes[].projected.sources[].clusterTrustBundle.labelSelector"}, Evaluator: "the kubelet, over the cluster's ClusterTrustBundles",
		Reach: ReachShared, Upstream: "trust bundles are public certificates the cluster publishes for everyone; tenants may not write them (the kind is Forbidden)"},
	{Resource: PodSpecSelector, Fields: []string{"volumes[].ephemeral.volumeClaimTemplate.spec.selector"}, Evaluator: "the PersistentVolume controller, on the claim made from it",
		Reach: ReachNarrowing, Upstream: claimSelector},
	{Resource: grService, Fields: []string{"spec.selector"}, Evaluator: "the endpoints and EndpointSlice controllers", Reach: ReachOwnNamespace, Upstream: ownNamespace},
	ownSelector(grReplicationController),
	ownSelector(grDeployment),
	ownSelector(grReplicaSet),
	ownSelector(grDaemonSet),
	ownSelector(grStatefulSet),
	ownSelector(grJob),
	ownSelector(grCronJob, "spec.jobTemplate.spec.selector"),
	{Resource: grPDB, Fields: []string{"spec.selector"}, Evaluator: "the disruption controller and the eviction API",
		Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: grHPA, Fields: []string{"spec.metrics[].*.metric.selector",
		"spec.metrics[].*.selector", "spec.metrics[].external.metricSelector"}, // autoscaling/v2beta1
		Evaluator: "the HPA controller, through the metrics APIs", Reach: ReachOwnNamespace,
		Upstream: "the controller asks the metrics APIs in the HPA's own namespace (what an external metrics adapter makes of it is the adapter's)"},
	{Resource: grResourceQuota, Fields: []string{"spec.scopeSelector"}, Evaluator: "the quota controller and admission", Reach: ReachOwnNamespace,
		Upstream: "a quota counts only its own namespace's objects"},
	{Resource: grNetworkPolicy, Fields: []string{"spec.podSelector"}, Evaluator: "the network plugin", Reach: ReachOwnNamespace, Upstream: ownNamespace},
	{Resource: grNetworkPolicy, Fields: []string{"spec.ingress[].from[].podSelector", "spec.egress[].to[].podSelector"}, Evaluator: "the network plugin",
		Reach: ReachNarrowing, Upstream: "selects pods of the policy's own namespace, or of the namespaces its (confined) namespaceSelector selects"},
	{Resource: grPVC, Fields: []string{"spec.selector"}, Evaluator: "the PersistentVolume controller", Reach: ReachNarrowing, Upstream: claimSelector},
	{Resource: grStatefulSet, Fields: []string{"spec.volumeClaimTemplates[].spec.selector"}, Evaluator: "the PersistentVolume controller, on the claims made from it",
		Reach: ReachNarrowing, Upstream: claimSelector},
	{Resource: grValidatingWebhooks, Fields: []string{"webhooks[].objectSelector"}, Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: grMutatingWebhooks, Fields: []string{"webhooks[].objectSelector"}, Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: grVAP, Fields: []string{"spec.matchConstraints.objectSelector"}, Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: grMAP, Fields: []string{"spec.matchConstraints.objectSelector"}, Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: grVAPB, Fields: []string{"spec.matchResources.objectSelector"}, Evaluator: "the API server",
		Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: grMAPB, Fields: []string{"spec.matchResources.objectSelector"}, Evaluator: "the API server",
		Reach: ReachNarrowing, Upstream: narrowRequest},
	{Resource: grVAPB, Fields: []string{"spec.paramRef.selector"}, Evaluator: "the API server, over the policy's parameters",
		Reach: ReachNarrowing, Upstream: paramSelector},
	{Resource: grMAPB, Fields: []string{"spec.paramRef.selector"}, Evaluator: "the API server, over the policy's parameters",
		Reach: ReachNarrowing, Upstream: paramSelector},
	{Resource: grPV, Fields: []string{"spec.nodeAffinity.required"}, Evaluator: "the scheduler", Reach: ReachShared, Upstream: nodesOnly},
	{Resource: grRuntimeClass, Fields: []string{"scheduling.nodeSelector", "spec.scheduling.nodeSelector"}, Evaluator: "the RuntimeClass admission plugin", Reach: ReachShared, Upstream: nodesOnly},
	{Resource: grStorageClass, Fields: []string{"allowedTopologies[]"}, Evaluator: "the scheduler and provisioners", Reach: ReachShared, Upstream: nodesOnly},
	{Resource: grCSIStorageCapacity, Fields: []string{"nodeTopology"}, Evaluator: "the scheduler", Reach: ReachShared, Upstream: nodesOnly},
}
