package translate

// The selectors of each kind, which its row of the kinds table names in its
// Selectors column (SelectorTable gathers them), and those of every pod
// spec. Each says who evaluates it and how far it reaches.

const (
	ownNamespace  = "evaluated over the objects of the selecting object's own namespace only"
	byController  = "the kind's controller"
	nodesOnly     = "selects nodes, the shared cluster's machines, which every tenant reads and schedules onto"
	narrowRequest = "narrows requests the namespaceSelector and the tenant's matchCondition already confine to the tenant's"
	claimSelector = "narrows which volume of the claim's class binds; the class (the tenant's own, or the cluster's) is confined as a shared reference"
	paramSelector = "parameters are of a namespaced kind, read in the tenant's namespaces, or of the tenant's own API groups (checkParamKind)"
	ownTraffic    = "harmless: a NetworkPolicy opens or limits only the traffic of its own namespace's pods"
	everyRequest  = "the API server, over every namespaced request"
	proxyWrites   = "no tenant identity may write admission configuration (the proxy writes it, AccessProxy)"
)

// ownSelectors are the selector of a workload kind (spec.selector unless
// fields say otherwise), evaluated by its controller in its own namespace.
func ownSelectors(fields ...string) []SelectorRule {
	if len(fields) == 0 {
		fields = []string{"spec.selector"}
	}
	return []SelectorRule{{Fields: fields, Evaluator: byController, Reach: ReachOwnNamespace, Upstream: ownNamespace}}
}

// podSpecSelectors are the selectors of every pod spec (Resource
// PodSpecSelector, fields relative to the pod spec).
var podSpecSelectors = []SelectorRule{
	{Resource: PodSpecSelector, Fields: affinityTerms("namespaceSelector"), Ref: "affinity",
		Evaluator: "the scheduler, over the pods of every namespace (and an existing pod's anti-affinity over every incoming pod); the terms' namespaces too",
		Reach:     ReachConfined, Upstream: "zoo-tenant: every pod affinity term's namespaces start with <tenant>- and its namespaceSelector holds the tenant requirement"},
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
}

var (
	serviceSelectors = []SelectorRule{{Fields: []string{"spec.selector"}, Evaluator: "the endpoints and EndpointSlice controllers",
		Reach: ReachOwnNamespace, Upstream: ownNamespace}}
	statefulSetSelectors = append(ownSelectors(), SelectorRule{Fields: []string{"spec.volumeClaimTemplates[].spec.selector"},
		Evaluator: "the PersistentVolume controller, on the claims made from it", Reach: ReachNarrowing, Upstream: claimSelector})
	budgetSelectors = []SelectorRule{{Fields: []string{"spec.selector"}, Evaluator: "the disruption controller and the eviction API",
		Reach: ReachOwnNamespace, Upstream: ownNamespace}}
	autoscalerSelectors = []SelectorRule{{Fields: []string{"spec.metrics[].*.metric.selector",
		"spec.metrics[].*.selector", "spec.metrics[].external.metricSelector"}, // autoscaling/v2beta1
		Evaluator: "the HPA controller, through the metrics APIs", Reach: ReachOwnNamespace,
		Upstream: "the controller asks the metrics APIs in the HPA's own namespace (what an external metrics adapter makes of it is the adapter's)"}}
	quotaSelectors = []SelectorRule{{Fields: []string{"spec.scopeSelector"}, Evaluator: "the quota controller and admission", Reach: ReachOwnNamespace,
		Upstream: "a quota counts only its own namespace's objects"}}
	networkPolicySelectors = []SelectorRule{
		{Fields: []string{"spec.ingress[].from[].namespaceSelector"}, Ref: "spec.ingress[].from[].namespaceSelector",
			Evaluator: "the network plugin, over every namespace", Reach: ReachConfined, Upstream: ownTraffic},
		{Fields: []string{"spec.egress[].to[].namespaceSelector"}, Ref: "spec.egress[].to[].namespaceSelector",
			Evaluator: "the network plugin, over every namespace", Reach: ReachConfined, Upstream: ownTraffic},
		{Fields: []string{"spec.podSelector"}, Evaluator: "the network plugin", Reach: ReachOwnNamespace, Upstream: ownNamespace},
		{Fields: []string{"spec.ingress[].from[].podSelector", "spec.egress[].to[].podSelector"}, Evaluator: "the network plugin",
			Reach: ReachNarrowing, Upstream: "selects pods of the policy's own namespace, or of the namespaces its (confined) namespaceSelector selects"},
	}
	claimSelectors = []SelectorRule{{Fields: []string{"spec.selector"}, Evaluator: "the PersistentVolume controller", Reach: ReachNarrowing,
		Upstream: claimSelector}}
	clusterRoleSelectors = []SelectorRule{{Fields: []string{"aggregationRule.clusterRoleSelectors[]"}, Ref: "aggregationRule.clusterRoleSelectors",
		Evaluator: "the clusterrole-aggregation controller, over every ClusterRole of the cluster", Reach: ReachConfined,
		Upstream: "zoo-tenant rule 5: every selector holds matchLabels " + TenantLabel + "=<tenant>"}}
	webhookSelectors = []SelectorRule{
		{Fields: []string{"webhooks[].namespaceSelector"}, Ref: "webhooks[].namespaceSelector", Evaluator: everyRequest, Reach: ReachConfined,
			Upstream: proxyWrites},
		{Fields: []string{"webhooks[].objectSelector"}, Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	}
	admissionPolicySelectors = []SelectorRule{
		{Fields: []string{"spec.matchConstraints.namespaceSelector"}, Ref: "spec.matchConstraints.namespaceSelector", Evaluator: everyRequest,
			Reach: ReachConfined, Upstream: proxyWrites},
		{Fields: []string{"spec.matchConstraints.objectSelector"}, Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
	}
	policyBindingSelectors = []SelectorRule{
		{Fields: []string{"spec.matchResources.namespaceSelector"}, Ref: "spec.matchResources.namespaceSelector", Evaluator: everyRequest,
			Reach: ReachConfined, Upstream: proxyWrites},
		{Fields: []string{"spec.matchResources.objectSelector"}, Evaluator: "the API server", Reach: ReachNarrowing, Upstream: narrowRequest},
		{Fields: []string{"spec.paramRef.selector"}, Evaluator: "the API server, over the policy's parameters", Reach: ReachNarrowing,
			Upstream: paramSelector},
	}
	nodeAffinitySelectors = []SelectorRule{{Fields: []string{"spec.nodeAffinity.required"}, Evaluator: "the scheduler", Reach: ReachShared,
		Upstream: nodesOnly}}
	runtimeClassSelectors = []SelectorRule{{Fields: []string{"scheduling.nodeSelector", "spec.scheduling.nodeSelector"},
		Evaluator: "the RuntimeClass admission plugin", Reach: ReachShared, Upstream: nodesOnly}}
	topologySelectors = []SelectorRule{{Fields: []string{"allowedTopologies[]"}, Evaluator: "the scheduler and provisioners", Reach: ReachShared,
		Upstream: nodesOnly}}
	capacitySelectors = []SelectorRule{{Fields: []string{"nodeTopology"}, Evaluator: "the scheduler", Reach: ReachShared, Upstream: nodesOnly}}
)
