package verify

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// publicAddress is a public unicast address (TEST-NET-1) that verify's
// harmless endpoints list: no Service of theirs sends traffic to it.
const publicAddress = "192.0.2.30"

// endpointBases are the harmless objects of the kinds that list the
// addresses of a Service: Endpoints and an EndpointSlice of no Service of
// the attacker's (none has their name or label), of a public address.
var endpointBases = map[schema.GroupKind]outsideBase{
	{Kind: "Endpoints"}: func(t *Target, name string) *unstructured.Unstructured {
		address := []corev1.EndpointAddress{{IP: publicAddress}}
		return typedObject(&corev1.Endpoints{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Endpoints"},
			ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: name},
			Subsets:    []corev1.EndpointSubset{{Addresses: address, NotReadyAddresses: address, Ports: []corev1.EndpointPort{{Port: 80}}}}})
	},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}: func(t *Target, name string) *unstructured.Unstructured {
		port := int32(80)
		return typedObject(&discoveryv1.EndpointSlice{TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
			ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: name}, AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{publicAddress}}}, Ports: []discoveryv1.EndpointPort{{Port: &port}}})
	},
}

// typedObject is obj as an unstructured object, without the fields the
// API server sets (creationTimestamp).
func typedObject(obj runtime.Object) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err) // a fixed typed object always converts
	}
	unstructured.RemoveNestedField(m, "metadata", "creationTimestamp")
	return &unstructured.Unstructured{Object: m}
}

// endpointValue is what an attempt sets an endpoint's reference of target
// at leaf to: an address of the cluster's own network, a family that is
// no address (FQDN); nil for one it has none of. An endpoint's targetRef
// naming the victim's object is admitted directly upstream (no policy
// judges an object reference's namespace there): not attempted until one
// does (docs/verify.md, "What is left").
func endpointValue(target translate.Target, leaf string) func(t *Target) any {
	switch {
	case target == translate.TargetEndpointAddress && leaf == "ip":
		return func(*Target) any { return "10.0.0.10" }
	case target == translate.TargetEndpointAddress && leaf == "addresses":
		return func(*Target) any { return []any{"10.0.0.10"} }
	case target == translate.TargetEndpointAddress && leaf == "addressType":
		return func(*Target) any { return "FQDN" }
	}
	return nil
}
