package install

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// KubernetesService is the Service every cluster has in its default
// namespace for its API server; every tenant gets one in its own default
// namespace, selectorless, with endpoints kubectl-zoo writes.
const KubernetesService = "kubernetes"

// APIEndpoint is where the API server a tenant uses listens.
type APIEndpoint struct {
	// AddressType is the address family of Addresses (discovery IPv4/IPv6).
	AddressType discoveryv1.AddressType
	// Addresses are the API server's IP addresses.
	Addresses []string
	// Port is the API server's port (the Service's targetPort).
	Port int32
}

// upstreamAPIEndpoint reads the upstream's own API server endpoint from the
// EndpointSlices of its default/kubernetes Service (the first address family
// that has ready addresses and an https port).
func (c *Client) upstreamAPIEndpoint(ctx context.Context) (*APIEndpoint, error) {
	list, err := c.Kube.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx,
		metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + KubernetesService})
	if err != nil {
		return nil, fmt.Errorf("read the cluster's own %s/%s endpoints: %w", metav1.NamespaceDefault, KubernetesService, err)
	}
	for _, s := range list.Items {
		ep := &APIEndpoint{AddressType: s.AddressType}
		for _, p := range s.Ports {
			if p.Port != nil && (p.Name == nil || *p.Name == "https" || len(s.Ports) == 1) {
				ep.Port = *p.Port
				break
			}
		}
		for _, e := range s.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				ep.Addresses = append(ep.Addresses, e.Addresses...)
			}
		}
		if ep.Port != 0 && len(ep.Addresses) > 0 {
			return ep, nil
		}
	}
	return nil, fmt.Errorf("the cluster's own %s/%s Service has no ready endpoint", metav1.NamespaceDefault, KubernetesService)
}

// KubernetesServiceObjects returns the `kubernetes` Service of tenant t's
// default namespace (upstream <t>-default) and its Endpoints and
// EndpointSlice pointing at ep, as a fresh cluster has them: port 443 named
// https, no selector, labels component=apiserver and provider=kubernetes.
// The Endpoints skip the EndpointSlice mirroring controller, which would
// otherwise add a second slice.
func KubernetesServiceObjects(t translate.Tenant, ep APIEndpoint) []runtime.Object {
	ns := t.Prefix() + metav1.NamespaceDefault
	labels := func(extra map[string]string) map[string]string {
		l := tenantapi.ManagedLabels()
		l["component"], l["provider"] = "apiserver", "kubernetes"
		for k, v := range extra {
			l[k] = v
		}
		return l
	}
	addresses := slices.Clone(ep.Addresses)
	slices.Sort(addresses)
	addresses = slices.Compact(addresses)
	https, tcp, ready := "https", corev1.ProtocolTCP, true

	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesService, Namespace: ns, Labels: labels(nil)},
		Spec: corev1.ServiceSpec{
			Type:            corev1.ServiceTypeClusterIP,
			SessionAffinity: corev1.ServiceAffinityNone,
			Ports:           []corev1.ServicePort{{Name: https, Protocol: tcp, Port: 443, TargetPort: intstr.FromInt32(ep.Port)}},
		},
	}
	endpoints := &corev1.Endpoints{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Endpoints"},
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesService, Namespace: ns,
			Labels: labels(map[string]string{discoveryv1.LabelSkipMirror: "true"})},
	}
	slice := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesService, Namespace: ns,
			Labels: labels(map[string]string{discoveryv1.LabelServiceName: KubernetesService})},
		AddressType: ep.AddressType,
		Ports:       []discoveryv1.EndpointPort{{Name: &https, Protocol: &tcp, Port: &ep.Port}},
	}
	if len(addresses) > 0 {
		subset := corev1.EndpointSubset{Ports: []corev1.EndpointPort{{Name: https, Protocol: tcp, Port: ep.Port}}}
		for _, a := range addresses {
			subset.Addresses = append(subset.Addresses, corev1.EndpointAddress{IP: a})
		}
		endpoints.Subsets = []corev1.EndpointSubset{subset}
		for _, a := range addresses {
			slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{a},
				Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
		}
	}
	return []runtime.Object{svc, endpoints, slice}
}

// ApplyKubernetesService applies the tenant's `kubernetes` Service with
// endpoints at the upstream's own API server. Without a ready upstream
// endpoint the Service is applied alone (and a warning logged): the tenant
// still finds it, as tools expect. Endpoints are deprecated for clients
// since 1.33, so they are written without echoing that warning.
func (c *Client) ApplyKubernetesService(ctx context.Context, t translate.Tenant) error {
	ep, err := c.upstreamAPIEndpoint(ctx)
	if err != nil {
		klog.InfoS("the tenant's kubernetes Service gets no endpoints", "tenant", t.Name(), "err", err)
		ep = &APIEndpoint{AddressType: discoveryv1.AddressTypeIPv4, Port: 443}
	}
	objs := KubernetesServiceObjects(t, *ep)
	if len(ep.Addresses) == 0 {
		objs = objs[:1]
	}
	quiet := rest.CopyConfig(c.Config)
	quiet.WarningHandler = rest.NoWarnings{}
	dyn, err := dynamic.NewForConfig(quiet)
	if err != nil {
		return fmt.Errorf("create client: %w", err)
	}
	q := &Client{Client: &upstream.Client{Config: quiet, Kube: c.Kube, Dynamic: dyn}}
	return q.ApplyParallel(ctx, objs)
}
