package translate

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// PlatformDomain is a DNS domain whose label and annotation keys belong to
// the platform on the kinds that carry KindRule.PlatformDomains: a key
// "p/n" is the platform's when its prefix p is the domain or one of its
// subdomains (p == d, or p ends in "." + d), unless TenantAllowedKeys lists
// it. Tenants see such keys but may not add, change or remove them, as the
// rows of the platform-owned metadata table (platform.go), which name single
// keys with rules of their own (Pod Security levels, default classes).
type PlatformDomain struct {
	// Domain is the domain, lowercase, without a trailing dot.
	Domain string
	// Owner names who keys on it (shown in the 403).
	Owner string
	// Example is a key of the domain that a tenant could use against the
	// platform or other tenants, and what it does: the reason the domain is
	// listed.
	Example string
	// Unprefixed are keys without a prefix that the owner reads as well
	// (Istio's istio-injection).
	Unprefixed []string
}

// TenantAllowedKey is a key in a platform domain that tenants may set: what
// it says is read by tools, or only about the tenant's own objects.
type TenantAllowedKey struct {
	// Key is an exact key, or, ending in "/", every key with exactly that
	// prefix (not its subdomains).
	Key string
	// Reason says why a tenant may set it.
	Reason string
}

// platformDomains is THE list of the platform's key domains. The components
// of Kubernetes own kubernetes.io and k8s.io; the others are those of
// widely used distributions and add-ons whose admission webhooks,
// controllers and network plugins key on the metadata of namespaces,
// Services, volumes, Ingresses and pods.
var platformDomains = []PlatformDomain{
	{Domain: "kubernetes.io", Owner: "Kubernetes",
		Example: "scheduler.alpha.kubernetes.io/node-selector (PodNodeSelector), service.kubernetes.io/service-proxy-name (kube-proxy skips the Service), service.beta.kubernetes.io/* (cloud load balancers), pv.kubernetes.io/provisioned-by (a provisioner deletes the volume's backing storage)"},
	{Domain: "k8s.io", Owner: "Kubernetes", Example: "*.image-policy.k8s.io/* (ImagePolicyWebhook's break-glass)"},
	{Domain: "kubectl-zoo.io", Owner: "kubectl-zoo", Example: "zoo.kubectl-zoo.io/priority-classes (positive priorities in a namespace)"},
	{Domain: "openshift.io", Owner: "OpenShift",
		Example: "openshift.io/node-selector (the project's nodes), openshift.io/sa.scc.uid-range (the UIDs pods run as), openshift.io/run-level (skips SCC admission)"},
	{Domain: "cattle.io", Owner: "Rancher", Example: "field.cattle.io/projectId (moves the namespace into a project, its members and quotas)"},
	{Domain: "gke.io", Owner: "GKE", Example: "networking.gke.io/internal-load-balancer-subnet (a load balancer in the platform's subnet)"},
	{Domain: "cloud.google.com", Owner: "GKE", Example: "cloud.google.com/neg (network endpoint groups the platform's load balancers send to)"},
	{Domain: "amazonaws.com", Owner: "EKS", Example: "eks.amazonaws.com/* (IAM roles and Fargate profiles)"},
	{Domain: "k8s.aws", Owner: "the AWS Load Balancer Controller", Example: "elbv2.k8s.aws/pod-readiness-gate-inject, service.k8s.aws/* (load balancers)"},
	{Domain: "azure.com", Owner: "AKS", Example: "kubernetes.azure.com/* (the managed cluster's own keys)"},
	{Domain: "istio.io", Owner: "Istio", Unprefixed: []string{"istio-injection"},
		Example: "istio.io/rev, istio.io/dataplane-mode, istio-injection (a namespace leaving the mesh leaves its mTLS and authorization policies)"},
	{Domain: "linkerd.io", Owner: "Linkerd", Example: "linkerd.io/inject, config.linkerd.io/* (leaving the mesh, its proxy's settings)"},
	{Domain: "cert-manager.io", Owner: "cert-manager", Example: "cert-manager.io/disable-validation (cert-manager's webhook skips the namespace)"},
	{Domain: "cilium.io", Owner: "Cilium", Example: "lbipam.cilium.io/sharing-key, lbipam.cilium.io/ips (share or take another tenant's load balancer address)"},
	{Domain: "projectcalico.org", Owner: "Calico", Example: "cni.projectcalico.org/ipv4pools (pods' addresses from a pool the platform's firewalls trust)"},
	{Domain: "metallb.universe.tf", Owner: "MetalLB", Example: "metallb.universe.tf/allow-shared-ip, loadBalancerIPs (share or take another tenant's load balancer address)"},
	{Domain: "metallb.io", Owner: "MetalLB", Example: "metallb.io/allow-shared-ip, metallb.io/loadBalancerIPs (likewise, newer releases)"},
	{Domain: "cni.cncf.io", Owner: "Multus", Example: "k8s.v1.cni.cncf.io/networks (a pod attached to the platform's own networks, past every network policy)"},
	{Domain: "karpenter.sh", Owner: "Karpenter", Example: "karpenter.sh/do-not-disrupt (the platform's nodes kept for the tenant's pod)"},
	{Domain: "kube-vip.io", Owner: "kube-vip", Example: "kube-vip.io/loadbalancerIPs (take another tenant's load balancer address)"},
	{Domain: "konghq.com", Owner: "Kong", Example: "konghq.com/plugins, konghq.com/override (plugins and configuration the shared gateway runs for the tenant's routes)"},
	{Domain: "projectcontour.io", Owner: "Contour", Example: "projectcontour.io/tls-cert-namespace (a certificate of another namespace's), projectcontour.io/upstream-protocol.* (how the shared Envoy dials)"},
	{Domain: "traefik.io", Owner: "Traefik", Example: "traefik.io/router.middlewares, router.tls.certresolver (middlewares and certificate resolvers of the shared proxy)"},
	{Domain: "haproxy.org", Owner: "HAProxy Ingress", Example: "haproxy.org/backend-config-snippet (raw configuration of the shared proxy)"},
	{Domain: "kyverno.io", Owner: "Kyverno", Example: "generate.kyverno.io/* (what Kyverno's generate rules take for their own)"},
	{Domain: "gatekeeper.sh", Owner: "OPA Gatekeeper", Example: "admission.gatekeeper.sh/ignore (Gatekeeper's webhook skips the namespace)"},
	{Domain: "argoproj.io", Owner: "Argo CD", Example: "argocd.argoproj.io/managed-by (the operator gives an Argo CD instance rights in the namespace)"},
	{Domain: "fluxcd.io", Owner: "Flux", Example: "kustomize.toolkit.fluxcd.io/reconcile: disabled (the platform's Flux stops reconciling the object)"},
}

// tenantAllowedKeys is THE allow-list of keys in the platform's domains
// that tenants may set. Keys outside the domains (helm.sh, meta.helm.sh,
// unprefixed ones: the e2e framework's e2e-framework and e2e-run) are the
// tenant's without being listed; the Pod Security labels and
// kubernetes.io/metadata.name have rows of their own (platform.go).
var tenantAllowedKeys = []TenantAllowedKey{
	{Key: "app.kubernetes.io/", Reason: "the recommended labels (name, instance, version, component, part-of, managed-by): read by tools, never by admission"},
	{Key: "kubectl.kubernetes.io/last-applied-configuration", Reason: "kubectl apply's record of the tenant's own manifest"},
	{Key: "kubectl.kubernetes.io/default-container", Reason: "the container kubectl exec, logs and attach pick in the tenant's own pod"},
	{Key: "kubectl.kubernetes.io/default-logs-container", Reason: "likewise, for kubectl logs (deprecated)"},
	{Key: "kubectl.kubernetes.io/restartedAt", Reason: "kubectl rollout restart: a new pod template of the tenant's own workload"},
	{Key: "container.apparmor.security.beta.kubernetes.io/", Reason: "a container's AppArmor profile: the API server copies it from securityContext.appArmorProfile (and requires the two to agree), and Pod Security admission judges both"},
	{Key: "kubernetes.io/description", Reason: "free text for people"},
	{Key: "kubernetes.io/change-cause", Reason: "kubectl's --record: free text for people"},
	{Key: "service.kubernetes.io/topology-mode", Reason: "topology-aware routing of the tenant's own Service to its own pods"},
	{Key: "topology.kubernetes.io/zone", Reason: "a volume's zone: the scheduler places only the pods of the tenant's own claims by it"},
	{Key: "topology.kubernetes.io/region", Reason: "likewise, a volume's region"},
	{Key: "argocd.argoproj.io/instance", Reason: "a tenant's own Argo CD tracks its objects: which application the object is part of"},
	{Key: "argocd.argoproj.io/tracking-id", Reason: "likewise (Argo CD's annotation tracking)"},
	{Key: "argocd.argoproj.io/sync-wave", Reason: "the order a tenant's own Argo CD applies its objects in"},
	{Key: "argocd.argoproj.io/sync-options", Reason: "how a tenant's own Argo CD applies the object"},
	{Key: "argocd.argoproj.io/compare-options", Reason: "how a tenant's own Argo CD compares the object"},
	{Key: "kustomize.toolkit.fluxcd.io/name", Reason: "a tenant's own Flux tracks its objects: which Kustomization made the object"},
	{Key: "kustomize.toolkit.fluxcd.io/namespace", Reason: "likewise"},
	{Key: "helm.toolkit.fluxcd.io/name", Reason: "a tenant's own Flux tracks its objects: which HelmRelease made the object"},
	{Key: "helm.toolkit.fluxcd.io/namespace", Reason: "likewise"},
}

// ingressNginxKeys are the annotations of ingress-nginx (in kubernetes.io,
// so the platform's on an Ingress) that shape only the routing of the
// tenant's own Ingress to its own Services. The others stay the platform's:
// the snippets (configuration-, server-, auth-, stream-snippet: raw
// configuration of the controller every tenant shares), server-alias and
// from-to-www-redirect (hosts the tenant's policy did not allow), auth-url,
// auth-signin, mirror-target and mirror-host (addresses the controller
// dials), upstream-vhost and the class annotation kubernetes.io/ingress.class
// (spec.ingressClassName is translated, the annotation would not be).
var ingressNginxKeys = []string{
	"rewrite-target", "use-regex", "app-root", "ssl-redirect", "force-ssl-redirect", "backend-protocol",
	"proxy-body-size", "proxy-connect-timeout", "proxy-send-timeout", "proxy-read-timeout", "proxy-buffering", "proxy-buffer-size",
	"enable-cors", "cors-allow-origin", "cors-allow-methods", "cors-allow-headers", "cors-allow-credentials", "cors-expose-headers", "cors-max-age",
	"affinity", "affinity-mode", "session-cookie-name", "session-cookie-path", "session-cookie-max-age", "session-cookie-expires",
	"limit-rps", "limit-rpm", "limit-connections", "whitelist-source-range", "denylist-source-range",
	"permanent-redirect", "permanent-redirect-code", "temporal-redirect", "enable-access-log", "load-balance",
	"canary", "canary-weight", "canary-by-header", "canary-by-header-value", "canary-by-cookie",
}

func init() {
	for _, k := range ingressNginxKeys {
		tenantAllowedKeys = append(tenantAllowedKeys, TenantAllowedKey{Key: "nginx.ingress.kubernetes.io/" + k,
			Reason: "ingress-nginx: the routing of the tenant's own Ingress to its own Services"})
	}
}

// PlatformDomains returns the platform's key domains, in order (for
// documentation, and the zoo-tenant-metadata admission policy).
func PlatformDomains() []PlatformDomain { return slices.Clone(platformDomains) }

// TenantAllowedKeys returns the keys in the platform's domains that tenants
// may set, in order.
func TenantAllowedKeys() []TenantAllowedKey { return slices.Clone(tenantAllowedKeys) }

// PlatformDomainResources returns the resources of the kinds whose labels
// and annotations in the platform's domains are platform-owned
// (KindRule.PlatformDomains), in table order.
func PlatformDomainResources() []schema.GroupResource {
	var out []schema.GroupResource
	for i := range kindTable {
		if kindTable[i].PlatformDomains {
			out = append(out, kindTable[i].Resource)
		}
	}
	return out
}

// KeyPrefix returns the prefix of a label or annotation key, as a domain
// (lowercase, without a trailing dot: DNS names are read so), and whether
// the key has one.
func KeyPrefix(key string) (string, bool) {
	p, _, ok := strings.Cut(key, "/")
	if !ok {
		return "", false
	}
	return strings.TrimSuffix(strings.ToLower(p), "."), true
}

// InDomain reports whether the (lowercase) prefix p is domain d or one of
// its subdomains.
func InDomain(p, d string) bool {
	return p == d || strings.HasSuffix(p, "."+d)
}

// tenantAllowed reports whether the allow-list lets tenants set key.
func tenantAllowed(key string) bool {
	for _, a := range tenantAllowedKeys {
		if a.Key == key || (strings.HasSuffix(a.Key, "/") && strings.HasPrefix(key, a.Key)) {
			return true
		}
	}
	return false
}

// ownerDomain returns the platform domain that owns key, if any.
func ownerDomain(key string) (*PlatformDomain, bool) {
	p, prefixed := KeyPrefix(key)
	for i := range platformDomains {
		d := &platformDomains[i]
		if prefixed && InDomain(p, d.Domain) || !prefixed && slices.Contains(d.Unprefixed, key) {
			return d, true
		}
	}
	return nil, false
}

// domainRows holds one PlatformKey row per domain, field and resource of
// the kinds with PlatformDomains, for the judge and its messages.
var domainRows = map[domainRowKey]*PlatformKey{}

type domainRowKey struct {
	gr         schema.GroupResource
	annotation bool
	domain     string
}

func init() {
	for _, res := range PlatformDomainResources() {
		for _, annotation := range []bool{false, true} {
			for _, d := range platformDomains {
				domainRows[domainRowKey{res, annotation, d.Domain}] = &PlatformKey{
					Key: d.Domain, Domain: true, Annotation: annotation, Resource: res, Reader: d.Owner}
			}
		}
	}
}

// domainKey returns the row that makes key of an object of gr
// platform-owned by its domain: the kind has PlatformDomains, the key is in
// a platform domain (or one of its owner's unprefixed keys), and the
// allow-list does not list it. An annotation the kind refuses outright
// (KindRule.Annotations) keeps that rule and its message, through the proxy
// and upstream (zoo-tenant-storage).
func domainKey(gr schema.GroupResource, annotation bool, key string) (*PlatformKey, bool) {
	d, ok := ownerDomain(key)
	if !ok || tenantAllowed(key) {
		return nil, false
	}
	if rule, found := kindsByResource[gr]; found && annotation {
		if _, refused := refusedAnnotation(rule, key); refused {
			return nil, false
		}
	}
	row, ok := domainRows[domainRowKey{gr, annotation, d.Domain}]
	return row, ok
}

// IsPlatformOwned reports whether the label (annotation) key of an object
// of the upstream resource gr is platform-owned: tenants may not add,
// change or remove it (a Pod Security label may still be made stricter, a
// row's Allowed value written).
func IsPlatformOwned(gr schema.GroupResource, annotation bool, key string) bool {
	_, ok := platformKey(gr, annotation, key)
	return ok
}
