package platformobj

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// PolicyObjectName is the name of the ResourceQuota, LimitRange and
// NetworkPolicy a tenant's policy implies in each of its namespaces. The
// name is kubectl-zoo's: an object of that name without
// PropagatedFromLabel=policy (a tenant's own, made before kubectl-zoo's) is
// replaced by the reconcile.
const PolicyObjectName = "zoo-policy"

// DNS is where a tenant's pods resolve names under network isolation: the
// cluster DNS pods (the kube-dns label of CoreDNS and kube-dns alike) in the
// upstream kube-system, on port 53.
const (
	dnsNamespace = metav1.NamespaceSystem
	dnsPodLabel  = "k8s-app"
	dnsPodValue  = "kube-dns"
	dnsPort      = 53
)

// privateNetworks are the address ranges a tenant's pods may not reach
// under network isolation through the "internet" rule: the private and
// shared ranges (where the cluster's nodes, services and other networks
// usually live) and link-local (the cloud metadata endpoints, whose
// credentials are the node's).
var (
	privateNetworks4 = []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16"}
	privateNetworks6 = []string{"fc00::/7", "fe80::/10"}
)

var (
	resourceQuotaType = metav1.TypeMeta{APIVersion: "v1", Kind: "ResourceQuota"}
	limitRangeType    = metav1.TypeMeta{APIVersion: "v1", Kind: "LimitRange"}
	netpolType        = metav1.TypeMeta{APIVersion: networkingv1.SchemeGroupVersion.String(), Kind: "NetworkPolicy"}
)

// PolicyObjectLabels are the labels of every object a tenant's policy
// implies: the source (translate.PropagatedFromLabel=policy), the owner,
// and kubectl-zoo as manager.
func PolicyObjectLabels(t translate.Tenant) map[string]string {
	l := tenantapi.TenantManagedLabels(t)
	l[translate.PropagatedFromLabel] = translate.PropagatedFromPolicy
	return l
}

func policyObjectMeta(t translate.Tenant, ns string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: PolicyObjectName, Namespace: ns, Labels: PolicyObjectLabels(t)}
}

// PolicyResourceQuota is the ResourceQuota of namespace ns with hard (its
// share of the tenant-wide quota, see SplitQuota). It exists in every
// tenant namespace, also when the policy has no quota (hard is then
// empty): zoo-tenant-policy-objects admits pods only where it exists. It
// carries the policy's ingress host patterns hosts
// (translate.IngressHostsAnnotation), which zoo-tenant-ingress-hosts reads
// (admissionrules/ingress.go).
func PolicyResourceQuota(t translate.Tenant, ns string, hard corev1.ResourceList, hosts []string) *corev1.ResourceQuota {
	if hard == nil {
		hard = corev1.ResourceList{}
	}
	meta := policyObjectMeta(t, ns)
	if len(hosts) > 0 {
		meta.Annotations = map[string]string{translate.IngressHostsAnnotation: strings.Join(hosts, ",")}
	}
	return &corev1.ResourceQuota{TypeMeta: resourceQuotaType, ObjectMeta: meta, Spec: corev1.ResourceQuotaSpec{Hard: hard}}
}

// PolicyLimitRange is the container LimitRange of namespace ns, or nil when
// the policy has none.
func PolicyLimitRange(t translate.Tenant, ns string, p policy.Policy) *corev1.LimitRange {
	lr := p.LimitRange
	if lr == nil || (len(lr.Default) == 0 && len(lr.DefaultRequest) == 0 && len(lr.Max) == 0 && len(lr.Min) == 0) {
		return nil
	}
	return &corev1.LimitRange{TypeMeta: limitRangeType, ObjectMeta: policyObjectMeta(t, ns),
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type: corev1.LimitTypeContainer, Default: lr.Default, DefaultRequest: lr.DefaultRequest, Max: lr.Max, Min: lr.Min,
		}}}}
}

// PolicyNetworkPolicy is the NetworkPolicy of namespace ns under network
// isolation "tenant", or nil under "none". It selects every pod of the
// namespace:
//   - ingress only from pods in the tenant's namespaces (TenantLabel, which
//     only kubectl-zoo and the tenant itself can set on a namespace, and the
//     tenant only to its own name);
//   - egress to the tenant's namespaces, the cluster DNS, the zoo server's
//     namespace (the API server of the tenant's view), and public addresses
//     (every address outside privateNetworks).
//
// NetworkPolicies add up: a tenant's own policy can open its own pods
// further (its consent), never another tenant's.
func PolicyNetworkPolicy(t translate.Tenant, ns string, p policy.Policy) *networkingv1.NetworkPolicy {
	if p.NetworkIsolation != policy.NetworkIsolationTenant {
		return nil
	}
	// The form the proxy confines a tenant's own selectors to (and strips
	// on the way out): the tenant sees "every namespace" of its cluster.
	tenantPeer := networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: translate.TenantLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{t.Name()}}}}}
	byName := func(name string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{translate.MetadataNameLabel: name}}
	}
	udp, tcp, port := corev1.ProtocolUDP, corev1.ProtocolTCP, intstr.FromInt32(dnsPort)
	return &networkingv1.NetworkPolicy{TypeMeta: netpolType, ObjectMeta: policyObjectMeta(t, ns),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{tenantPeer}}},
			Egress: []networkingv1.NetworkPolicyEgressRule{
				{To: []networkingv1.NetworkPolicyPeer{tenantPeer}},
				{
					To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: byName(dnsNamespace),
						PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{dnsPodLabel: dnsPodValue}}}},
					Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: &port}, {Protocol: &tcp, Port: &port}},
				},
				{To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: byName(tenantapi.ServerNamespace)}}},
				{To: []networkingv1.NetworkPolicyPeer{
					{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: privateNetworks4}},
					{IPBlock: &networkingv1.IPBlock{CIDR: "::/0", Except: privateNetworks6}},
				}},
			},
		}}
}
