package translate

// The subresources of the kinds table's rows that have more than a status
// or a scale (subresources.go). Every subresource the pinned API server
// serves is classified here or in its row; test/e2e/proxy's
// TestDiscoveryIsClassified fails on one that is not.

// podSubresources: a pod's streams, log, scheduling and disruption
// subresources are the tenant's own pod's; only the proxy subresource and
// the platform's status fields are not.
var podSubresources = subresources(
	Subresource{Name: "attach", Class: SubresourceAllowed, Reason: "a stream to the tenant's own container"},
	Subresource{Name: "exec", Class: SubresourceAllowed, Reason: "a stream to the tenant's own container"},
	Subresource{Name: "portforward", Class: SubresourceAllowed, Reason: "a stream to the tenant's own pod"},
	Subresource{Name: "log", Class: SubresourceReadOnly, Reason: "the log of the tenant's own container; the API server serves only reads"},
	Subresource{Name: "binding", Class: SubresourceTranslated, Reason: "a Binding names its pod, translated like it; like spec.nodeName it places the tenant's own pod on a node of its choice without the scheduler's checks (the kubelet still refuses NoExecute taints)"},
	Subresource{Name: "eviction", Class: SubresourceTranslated, Reason: "an Eviction names its pod, translated like it; the tenant's own budgets decide"},
	Subresource{Name: "ephemeralcontainers", Class: SubresourceTranslated, Reason: "the body is the pod, translated and judged by Pod Security like it"},
	Subresource{Name: "resize", Class: SubresourceTranslated, Reason: "the body is the pod, translated like it; quotas and limits judge the new resources"},
	Subresource{Name: "status", Class: SubresourceConfined, Reason: "the tenant's controllers write conditions (readiness gates); the addresses (podIP, podIPs, hostIP, hostIPs), the phase (quota stops charging a pod that reads terminal, while the kubelet lets it run out its grace period) and nominatedNodeName (the scheduler holds capacity for it) are the platform's (PlatformStatusFields), held upstream where the old object is known"},
	proxyRefused,
)

// namespaceFinalizer is the finalizer with which the namespace controller
// deletes a namespace's contents before the namespace.
const namespaceFinalizer = "kubernetes"

// namespaceSubresources: a namespace's status is the namespace controller's,
// and its finalize subresource may not drop the controller's finalizer.
var namespaceSubresources = subresources(
	platformStatus("the namespace controller writes the phase and the conditions of a deletion"),
	Subresource{Name: "finalize", Class: SubresourceConfined,
		Reason: "tenants may not remove the finalizer \"kubernetes\" from spec.finalizers: without it the namespace is deleted before its contents, which keep running out of the tenant's view, quota and deletion; only the namespace controller removes it",
		Guard: &SubresourceGuard{CEL: `oldObject == null || !has(oldObject.spec) || !has(oldObject.spec.finalizers) || !('` + namespaceFinalizer + `' in oldObject.spec.finalizers) ||
  (has(object.spec) && has(object.spec.finalizers) && '` + namespaceFinalizer + `' in object.spec.finalizers)`}},
)

// The other rows' lists.
var (
	nodeSubresources = subresources(
		platformStatus("the kubelets of the shared cluster write it"),
		Subresource{Name: "proxy", Class: SubresourceRefused, Reason: "the kubelet API of a shared machine"})
	serviceSubresources = subresources(
		platformStatus("load-balancer controllers publish the addresses that DNS and traffic controllers act on"),
		proxyRefused)
	serviceAccountSubresources = subresources(
		Subresource{Name: "token", Class: SubresourceTranslated, Reason: "a TokenRequest names its ServiceAccount and bound object, translated; the token authenticates as the tenant's ServiceAccount"})
	workloadSubresources = subresources(statusOwn, scaleOwn)
	statusOnly           = subresources(statusOwn)
	budgetSubresources   = subresources(Subresource{Name: "status", Class: SubresourceAllowed,
		Reason: "the eviction API reads a budget's status, for the tenant's own pods only"})
	claimSubresources = subresources(
		platformStatus("the binder writes what is bound to what, and trusts it"))
	volumeSubresources = subresources(
		platformStatus("the binder writes a volume's phase, and trusts it"))
	quotaSubresources = subresources(
		platformStatus("the quota controller writes the usage that quota admission trusts"))
	ingressSubresources = subresources(
		platformStatus("ingress controllers publish the load-balancer addresses that DNS controllers act on"))
	cidrSubresources = subresources(
		platformStatus("the shared cluster's allocator writes it"))
	resourceClaimSubresources = subresources(
		platformStatus("the scheduler writes the devices allocated to the claim, and the kubelet prepares them: a forged allocation would hand the tenant a device of another"))
	crdSubresources = subresources(Subresource{Name: "status", Class: SubresourceAllowed,
		Reason: "conditions, accepted names and stored versions of the tenant's own CRD, as a cluster admin writes them; the API server serves its resources under the tenant's group only"})
	csrSubresources = subresources(
		Subresource{Name: "approval", Class: SubresourceRefused, Reason: "approving certificate requests is the platform's"},
		Subresource{Name: "status", Class: SubresourceRefused, Reason: "signers write the issued certificate"})
	// confinedStatus is the status of admission configuration and flow
	// control, which the proxy writes with its own identity once confined
	// (AccessProxy): conditions no component acts on.
	confinedStatus = subresources(Subresource{Name: "status", Class: SubresourceAllowed,
		Reason: "conditions the API server reports (type checking, dangling references) and acts on nowhere; written by the proxy for the tenant's admins"})
	refusedStatus = subresources(Subresource{Name: "status", Class: SubresourceRefused,
		Reason: "the kind is not the tenant's"})
)
