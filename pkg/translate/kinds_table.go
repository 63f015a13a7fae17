package translate

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func gr(group, resource string) schema.GroupResource {
	return schema.GroupResource{Group: group, Resource: resource}
}

// Well-known resources: the rows that the translator's code names.
var (
	grNamespace             = schema.GroupResource{Resource: "namespaces"}
	grPV                    = schema.GroupResource{Resource: "persistentvolumes"}
	grClusterRole           = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}
	grCRD                   = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	grStorageClass          = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}
	grVolumeAttrClass       = schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}
	grIngressClass          = schema.GroupResource{Group: "networking.k8s.io", Resource: "ingressclasses"}
	grPriorityClass         = schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}
	grRuntimeClass          = schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}
	grVAP                   = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}
	grMAP                   = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}
	grPLC                   = schema.GroupResource{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}
	grNode                  = schema.GroupResource{Resource: "nodes"}
	grPod                   = schema.GroupResource{Resource: "pods"}
	grIngress               = schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}
	grService               = gr("", "services")
	grReplicationController = gr("", "replicationcontrollers")
	grDeployment            = gr("apps", "deployments")
	grReplicaSet            = gr("apps", "replicasets")
	grDaemonSet             = gr("apps", "daemonsets")
	grStatefulSet           = gr("apps", "statefulsets")
	grJob                   = gr("batch", "jobs")
	grCronJob               = gr("batch", "cronjobs")
	grPDB                   = gr("policy", "poddisruptionbudgets")
	grHPA                   = gr("autoscaling", "horizontalpodautoscalers")
	grResourceQuota         = gr("", "resourcequotas")
	grPVC                   = gr("", "persistentvolumeclaims")
	grValidatingWebhooks    = gr(admissionGroup, "validatingwebhookconfigurations")
	grMutatingWebhooks      = gr(admissionGroup, "mutatingwebhookconfigurations")
	grVAPB                  = gr(admissionGroup, "validatingadmissionpolicybindings")
	grMAPB                  = gr(admissionGroup, "mutatingadmissionpolicybindings")
	grCSIStorageCapacity    = gr("storage.k8s.io", "csistoragecapacities")
	grNetworkPolicy         = gr("networking.k8s.io", "networkpolicies")
	grRoleBinding           = gr(rbacGroup, "rolebindings")
	grClusterRoleBinding    = gr(rbacGroup, "clusterrolebindings")
	grFlowSchema            = gr(flowGroup, "flowschemas")
	grDeviceClass           = gr("resource.k8s.io", "deviceclasses")
)

var grCSR = gr("certificates.k8s.io", "certificatesigningrequests")

const (
	rbacGroup      = "rbac.authorization.k8s.io"
	admissionGroup = "admissionregistration.k8s.io"
	flowGroup      = "flowcontrol.apiserver.k8s.io"
	authzGroup     = "authorization.k8s.io"
	authnGroup     = "authentication.k8s.io"
)

// Nodes are ReadOnly: tools and the e2e framework list nodes to schedule and
// to find addresses, so hiding them breaks too much; they are the shared
// cluster's machines, so no tenant may change them, and their proxy
// subresource (the kubelet API) is refused.
const nodesReason = "nodes belong to the shared cluster: tenants may read them but not change them"

// Admission configuration and flow control are tenant-owned for the proxy,
// but no tenant identity may write them upstream: Kubernetes never runs
// admission policies on admission configuration, so nothing upstream could
// confine such a write, and a FlowSchema or priority level changes how the
// shared API server serves everyone. The proxy writes them with its own
// identity once the translator has confined them (AccessProxy,
// refs_admission.go, refs_flowcontrol.go). Mutating admission policies (not
// served by default at v1.34) and CSRs stay refused (AccessNone). A
// tenant's PriorityClasses are written upstream too: zoo-tenant-priority
// caps their value there.

// PlatformStatus: a pod's addresses (PlatformStatusFields: scrapers and the
// API server's pods/proxy dial them; its conditions stay writable, readiness
// gates need them), the status of Services and Ingresses (load balancer
// addresses that DNS and traffic controllers publish), claims and volumes
// (what is bound to what), quotas (usage) and namespaces is written by the
// platform's controllers and kubelets; a tenant that wrote it could make the
// platform act on a lie.

// PlatformDomains: admission plugins, webhooks and controllers of the
// platform read the labels and annotations of namespaces (node selectors,
// UID ranges, mesh and policy-engine opt-outs, projects) and of Services
// (kube-proxy's service-proxy-name, cloud and bare-metal load balancers'
// addresses, subnets and shared IPs), and of PersistentVolumes (a CSI
// provisioner deletes the backing volume of a released volume that names it
// in pv.kubernetes.io/provisioned-by, whatever volume handle the tenant
// wrote); keys in the platform's domains are theirs on these kinds. Other kinds' keys in those domains are read by the
// tenant's own workloads and controllers (deployment revisions, pod-template
// hashes), or by the platform about the tenant's own objects only.

// Why an export leaves a kind out (ExportSkip).
const (
	exportHistoryEvents = "history: the cluster records new events"
	exportRefused       = "refused to tenants (no upstream access)"
)

// kindTable is THE table of built-in kinds. Adding a kind is adding a row here
// and a golden test case in testdata/translate.
var kindTable = []KindRule{
	// core, namespaced
	{Resource: gr("", "pods"), Kind: "Pod", ShortNames: []string{"po"}, Treatment: Namespaced, Refs: podSpecRefs("spec"), PlatformDomains: true,
		PlatformStatusFields: []string{"podIP", "podIPs", "hostIP", "hostIPs", "phase", "nominatedNodeName"}, Subresources: podSubresources},
	{Resource: gr("", "podtemplates"), Kind: "PodTemplate", Treatment: Namespaced, Refs: podSpecRefs("template.spec")},
	{Resource: grReplicationController, Kind: "ReplicationController", Sleep: SleepScale, Selectors: ownSelectors(), ShortNames: []string{"rc"}, Treatment: Namespaced, Refs: podSpecRefs("spec.template.spec"), Subresources: workloadSubresources},
	{Resource: grService, Kind: "Service", Selectors: serviceSelectors, cells: map[string]refCell{"external-ip": {out: (*mapper).externalNameCell, unset: "<none>"}}, ShortNames: []string{"svc"}, Treatment: Namespaced, PlatformDomains: true, Refs: []Ref{
		refusedField(TargetAddress, grService, "spec", "externalIPs", "kube-proxy on every machine would capture the traffic of those addresses, other tenants' included"),
		refusedField(TargetAddress, grService, "spec", "loadBalancerIP", "an address of the shared load-balancer pool the tenant picks, another tenant's included (deprecated; the pool's annotations are the platform's too)"),
		addressRef(grService, "spec.externalName", AddressServiceName)}, Subresources: serviceSubresources},
	{Resource: gr("", "endpoints"), Kind: "Endpoints", ShortNames: []string{"ep"}, Treatment: Namespaced, Refs: []Ref{
		objectRefAt("subsets[].addresses[].targetRef"), objectRefAt("subsets[].notReadyAddresses[].targetRef"),
		addressRef(gr("", "endpoints"), "subsets[].addresses[].ip", AddressIP), addressRef(gr("", "endpoints"), "subsets[].notReadyAddresses[].ip", AddressIP)}},
	{Resource: gr("", "configmaps"), Kind: "ConfigMap", ShortNames: []string{"cm"}, Treatment: Namespaced},
	{Resource: gr("", "secrets"), Kind: "Secret", Treatment: Namespaced},
	{Resource: gr("", "serviceaccounts"), Kind: "ServiceAccount", ShortNames: []string{"sa"}, Treatment: Namespaced, Subresources: serviceAccountSubresources},
	{Resource: grPVC, Kind: "PersistentVolumeClaim", Selectors: claimSelectors, StorageJudged: true, cells: claimCells, ShortNames: []string{"pvc"}, Treatment: Namespaced, Refs: pvcSpecRefs,
		Annotations: []AnnotationRule{storageClassAnnotation}, Subresources: claimSubresources},
	{Resource: gr("", "events"), Kind: "Event", ExportSkip: exportHistoryEvents, ShortNames: []string{"ev"}, Treatment: Namespaced, Refs: []Ref{eventTextRef("message", "involvedObject", "related"), objectRefAt("involvedObject"), objectRefAt("related")}},
	{Resource: gr("", "limitranges"), Kind: "LimitRange", PolicyObject: true, ShortNames: []string{"limits"}, Treatment: Namespaced},
	{Resource: grResourceQuota, Kind: "ResourceQuota", Selectors: quotaSelectors, PolicyObject: true, ShortNames: []string{"quota"}, Treatment: Namespaced, Subresources: quotaSubresources},
	{Resource: gr("", "bindings"), Kind: "Binding", ExportSkip: "create-only: a pod's binding is the scheduler's", Treatment: Namespaced},
	// core, cluster-scoped
	{Resource: grNamespace, Kind: "Namespace", ShortNames: []string{"ns"}, Treatment: TenantOwned, NameIsNamespace: true, Subresources: namespaceSubresources, PlatformDomains: true},
	{Resource: grPV, Kind: "PersistentVolume", Selectors: nodeAffinitySelectors, StorageJudged: true, cells: volumeCells, ShortNames: []string{"pv"}, Treatment: TenantOwned, Refs: pvRefs, Complete: completePV, PlatformDomains: true,
		Annotations: []AnnotationRule{storageClassAnnotation}, Subresources: volumeSubresources},
	{Resource: grNode, Kind: "Node", ShortNames: []string{"no"}, Treatment: ReadOnly, Reason: nodesReason, Subresources: nodeSubresources},
	{Resource: gr("", "componentstatuses"), Kind: "ComponentStatus", ShortNames: []string{"cs"}, Treatment: Hidden},
	// workloads
	{Resource: grDeployment, Kind: "Deployment", Sleep: SleepScale, Selectors: ownSelectors(), ShortNames: []string{"deploy"}, Treatment: Namespaced, Refs: podSpecRefs("spec.template.spec"), Subresources: workloadSubresources},
	{Resource: grReplicaSet, Kind: "ReplicaSet", Sleep: SleepScale, Selectors: ownSelectors(), ShortNames: []string{"rs"}, Treatment: Namespaced, Refs: podSpecRefs("spec.template.spec"), Subresources: workloadSubresources},
	{Resource: grDaemonSet, Kind: "DaemonSet", Selectors: ownSelectors(), ShortNames: []string{"ds"}, Treatment: Namespaced, Refs: podSpecRefs("spec.template.spec"), Subresources: statusOnly},
	{Resource: grStatefulSet, Kind: "StatefulSet", Sleep: SleepScale, Selectors: statefulSetSelectors, ShortNames: []string{"sts"}, Treatment: Namespaced, Refs: append(podSpecRefs("spec.template.spec"),
		claimSpecRefs("spec.volumeClaimTemplates[].spec")...), Subresources: workloadSubresources},
	{Resource: gr("apps", "controllerrevisions"), Kind: "ControllerRevision", ExportSkip: "history: StatefulSets and DaemonSets record new revisions", Treatment: Namespaced},
	{Resource: grJob, Kind: "Job", Selectors: ownSelectors(), Treatment: Namespaced, Refs: podSpecRefs("spec.template.spec"), Subresources: statusOnly},
	{Resource: grCronJob, Kind: "CronJob", Sleep: SleepSuspend, Selectors: ownSelectors("spec.jobTemplate.spec.selector"), ShortNames: []string{"cj"}, Treatment: Namespaced, Refs: podSpecRefs("spec.jobTemplate.spec.template.spec"), Subresources: statusOnly},
	{Resource: grHPA, Kind: "HorizontalPodAutoscaler", Selectors: autoscalerSelectors, ShortNames: []string{"hpa"}, Treatment: Namespaced,
		Refs: []Ref{apiVersionRef(TargetLocal, "spec.scaleTargetRef", "apiVersion")}, Subresources: statusOnly},
	{Resource: grPDB, Kind: "PodDisruptionBudget", Selectors: budgetSelectors, ShortNames: []string{"pdb"}, Treatment: Namespaced, Subresources: budgetSubresources},
	// networking and discovery
	{Resource: grNetworkPolicy, Kind: "NetworkPolicy", Selectors: networkPolicySelectors, PolicyObject: true, ShortNames: []string{"netpol"}, Treatment: Namespaced, Refs: networkPolicyRefs},
	{Resource: gr("networking.k8s.io", "ingresses"), Kind: "Ingress", cells: map[string]refCell{"class": {out: sharedCell(grIngressClass), unset: "<none>"}}, ShortNames: []string{"ing"}, Treatment: Namespaced, Refs: ingressRefs, Subresources: ingressSubresources, PlatformDomains: true},
	{Resource: grIngressClass, Kind: "IngressClass", StorageJudged: true, Treatment: Shared, Refs: []Ref{
		apiGroupRef(TargetObject, "spec.parameters", "apiGroup"), namespaceRef("spec.parameters", "namespace")}},
	{Resource: gr("networking.k8s.io", "ipaddresses"), Kind: "IPAddress", ShortNames: []string{"ip"}, Treatment: ReadOnly, Reason: "service IP addresses are allocated by the shared cluster"},
	{Resource: gr("networking.k8s.io", "servicecidrs"), Kind: "ServiceCIDR", Treatment: ReadOnly, Reason: "service CIDRs configure the shared cluster's network", Subresources: cidrSubresources},
	{Resource: gr("discovery.k8s.io", "endpointslices"), Kind: "EndpointSlice", Treatment: Namespaced, Refs: []Ref{objectRefAt("endpoints[].targetRef"),
		addressRef(gr("discovery.k8s.io", "endpointslices"), "addressType", AddressFamily), addressRef(gr("discovery.k8s.io", "endpointslices"), "endpoints[].addresses[]", AddressIP)}},
	{Resource: gr("coordination.k8s.io", "leases"), Kind: "Lease", ExportSkip: "held and renewed by running processes (leader election, node heartbeats)", Treatment: Namespaced},
	{Resource: gr("coordination.k8s.io", "leasecandidates"), Kind: "LeaseCandidate", ExportSkip: "held and renewed by running processes (leader election)", Treatment: Namespaced},
	{Resource: gr("events.k8s.io", "events"), Kind: "Event", ExportSkip: exportHistoryEvents, ShortNames: []string{"ev"}, Treatment: Namespaced, Refs: []Ref{eventTextRef("note", "regarding", "related"), objectRefAt("regarding"), objectRefAt("related")}},
	// RBAC
	{Resource: gr(rbacGroup, "roles"), Kind: "Role", Treatment: Namespaced, Refs: []Ref{{Field: "rules", Target: TargetRules, apply: policyRules}}},
	{Resource: grRoleBinding, Kind: "RoleBinding", Treatment: Namespaced, Refs: []Ref{
		{Field: "subjects", Target: TargetIdentity, apply: rbacSubjects}, {Field: "roleRef", Target: TargetOwned, apply: roleRef}}},
	{Resource: grClusterRole, Kind: "ClusterRole", Selectors: clusterRoleSelectors, Treatment: TenantOwned, Refs: []Ref{
		{Field: "rules", Target: TargetRules, apply: policyRules}, {Field: "aggregationRule.clusterRoleSelectors", Target: TargetSelector, apply: aggregationRule}},
		LabelKeys: aggregateLabelKeys},
	{Resource: grClusterRoleBinding, Kind: "ClusterRoleBinding", Treatment: TenantOwned, Refs: []Ref{
		{Field: "subjects", Target: TargetIdentity, apply: rbacSubjects}, {Field: "roleRef", Target: TargetOwned, apply: roleRef}}},
	// storage
	{Resource: grStorageClass, Kind: "StorageClass", Selectors: topologySelectors, StorageJudged: true, ShortNames: []string{"sc"}, Treatment: Shared, Refs: []Ref{storageClassSecretParams}, Check: checkStorageClass},
	{Resource: grVolumeAttrClass, Kind: "VolumeAttributesClass", ShortNames: []string{"vac"}, Treatment: Shared},
	{Resource: gr("storage.k8s.io", "csidrivers"), Kind: "CSIDriver", Treatment: Shared},
	{Resource: gr("storage.k8s.io", "csinodes"), Kind: "CSINode", Treatment: ReadOnly, Reason: "CSI nodes describe the shared cluster's machines"},
	{Resource: grCSIStorageCapacity, Kind: "CSIStorageCapacity", Selectors: capacitySelectors, ExportSkip: "published by the storage drivers of the cluster", StorageJudged: true, cells: map[string]refCell{"storageclassname": {out: (*mapper).classOut}}, Treatment: Namespaced,
		Refs: []Ref{ownClassRef("")}},
	{Resource: gr("storage.k8s.io", "volumeattachments"), Kind: "VolumeAttachment", Treatment: Hidden, Subresources: refusedStatus},
	// scheduling, node, resource
	{Resource: grPriorityClass, Kind: "PriorityClass", StorageJudged: true, ShortNames: []string{"pc"}, Treatment: Shared, Refs: []Ref{priorityClassConfinement}},
	{Resource: grRuntimeClass, Kind: "RuntimeClass", Selectors: runtimeClassSelectors, Treatment: Shared},
	{Resource: grDeviceClass, Kind: "DeviceClass", Treatment: Shared},
	{Resource: gr("resource.k8s.io", "resourceslices"), Kind: "ResourceSlice", Treatment: ReadOnly, Reason: "resource slices are published by the shared cluster's drivers"},
	{Resource: gr("resource.k8s.io", "resourceclaims"), Kind: "ResourceClaim", Treatment: Namespaced, Refs: deviceClassRefs("spec"), Subresources: resourceClaimSubresources},
	{Resource: gr("resource.k8s.io", "resourceclaimtemplates"), Kind: "ResourceClaimTemplate", Treatment: Namespaced, Refs: deviceClassRefs("spec.spec")},
	// admission
	{Resource: grMutatingWebhooks, Kind: "MutatingWebhookConfiguration", Selectors: webhookSelectors, Treatment: TenantOwned, Refs: webhookRefs("mutatingwebhookconfigurations"), Access: AccessProxy, MaxPerTenant: 10},
	{Resource: grValidatingWebhooks, Kind: "ValidatingWebhookConfiguration", Selectors: webhookSelectors, Treatment: TenantOwned, Refs: webhookRefs("validatingwebhookconfigurations"), Access: AccessProxy, MaxPerTenant: 10},
	{Resource: grVAP, Kind: "ValidatingAdmissionPolicy", Selectors: admissionPolicySelectors, Treatment: TenantOwned, Refs: admissionPolicyRefs, Check: checkParamKind, Access: AccessProxy, MaxPerTenant: 20, Subresources: confinedStatus},
	{Resource: grVAPB, Kind: "ValidatingAdmissionPolicyBinding", Selectors: policyBindingSelectors, cells: policyBindingCells(grVAP), Treatment: TenantOwned, Refs: policyBindingRefs("validating"), Access: AccessProxy, MaxPerTenant: 20},
	{Resource: grMAP, Kind: "MutatingAdmissionPolicy", Selectors: admissionPolicySelectors, ExportSkip: exportRefused, Treatment: TenantOwned, Refs: admissionPolicyRefs, Access: AccessNone},
	{Resource: grMAPB, Kind: "MutatingAdmissionPolicyBinding", Selectors: policyBindingSelectors, ExportSkip: exportRefused, cells: policyBindingCells(grMAP), Treatment: TenantOwned, Refs: policyBindingRefs("mutating"), Access: AccessNone},
	// API extension
	{Resource: grCRD, Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"}, Treatment: TenantOwned, Refs: crdRefs, Subresources: crdSubresources},
	{Resource: gr("apiregistration.k8s.io", "apiservices"), Kind: "APIService", Treatment: Forbidden,
		Reason: "APIService registration serves an API group to the whole shared cluster and cannot be confined to a tenant", Subresources: refusedStatus},
	// flow control
	{Resource: grFlowSchema, Kind: "FlowSchema", cells: map[string]refCell{"prioritylevel": {out: nameCell(grPLC)}}, Treatment: TenantOwned, Refs: flowSchemaRefs, Check: checkFlowSchema, Access: AccessProxy, MaxPerTenant: 10, Subresources: confinedStatus},
	{Resource: grPLC, Kind: "PriorityLevelConfiguration", Treatment: TenantOwned, Check: checkPriorityLevel, Complete: completePriorityLevel, Access: AccessProxy, MaxPerTenant: 5, Subresources: confinedStatus},
	// certificates
	{Resource: grCSR, Kind: "CertificateSigningRequest", ExportSkip: exportRefused, ShortNames: []string{"csr"}, Treatment: TenantOwned, Check: checkCSR, Access: AccessNone, Subresources: csrSubresources},
	{Resource: gr("certificates.k8s.io", "clustertrustbundles"), Kind: "ClusterTrustBundle", Treatment: Forbidden,
		Reason: "cluster trust bundles are published to every pod of the shared cluster"},
	// reviews (virtual, create-only)
	{Resource: gr(authnGroup, "tokenreviews"), Kind: "TokenReview", Treatment: Virtual, Refs: []Ref{userInfoRef("status", "user")}, ProxyCreates: true},
	{Resource: gr(authnGroup, "selfsubjectreviews"), Kind: "SelfSubjectReview", Treatment: Virtual, Refs: []Ref{userInfoRef("status", "userInfo")}},
	{Resource: gr(authzGroup, "subjectaccessreviews"), Kind: "SubjectAccessReview", Treatment: Virtual, Refs: []Ref{
		resourceAttributesRef("spec.resourceAttributes"), {Field: "spec.user", Target: TargetIdentity, apply: reviewUser}, reviewReasonRef}, ProxyCreates: true},
	{Resource: gr(authzGroup, "selfsubjectaccessreviews"), Kind: "SelfSubjectAccessReview", Treatment: Virtual, Refs: []Ref{
		resourceAttributesRef("spec.resourceAttributes"), reviewReasonRef}},
	{Resource: gr(authzGroup, "localsubjectaccessreviews"), Kind: "LocalSubjectAccessReview", ExportSkip: "create-only review, never stored", Treatment: Namespaced, Refs: []Ref{
		resourceAttributesRef("spec.resourceAttributes"), {Field: "spec.user", Target: TargetIdentity, apply: reviewUser}, reviewReasonRef}},
	{Resource: gr(authzGroup, "selfsubjectrulesreviews"), Kind: "SelfSubjectRulesReview", Treatment: Virtual, Refs: ruleReviewRefs},
	// internal
	{Resource: gr("internal.apiserver.k8s.io", "storageversions"), Kind: "StorageVersion", Treatment: Hidden, Subresources: refusedStatus},
	{Resource: gr("storagemigration.k8s.io", "storageversionmigrations"), Kind: "StorageVersionMigration", Treatment: Forbidden,
		Reason: "storage migrations rewrite every tenant's objects", Subresources: refusedStatus},
}
