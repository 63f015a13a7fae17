package verify

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// publicAddress is a public unicast address (TEST-NET-1) that verify's
// harmless endpoints list: no Service of theirs sends traffic to it.
const publicAddress = "192.0.2.30"

// endpointBases are the harmless objects of the kinds that list the
// addresses of a Service: Endpoints and an EndpointSlice of no Service of
// the attacker's (none has their name or label), of a public address.
var endpointBases = map[schema.GroupResource]outsideBase{
	{Resource: "endpoints"}: func(t *Target, name string) *unstructured.Unstructured {
		address := func() []any { return []any{map[string]any{"ip": publicAddress}} }
		return object("v1", "Endpoints", t.Namespace, name, nil, map[string]any{"subsets": []any{map[string]any{
			"addresses": address(), "notReadyAddresses": address(), "ports": []any{map[string]any{"port": int64(80)}}}}})
	},
	{Group: "discovery.k8s.io", Resource: "endpointslices"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("discovery.k8s.io/v1", "EndpointSlice", t.Namespace, name, nil, map[string]any{"addressType": "IPv4",
			"endpoints": []any{map[string]any{"addresses": []any{publicAddress}}}, "ports": []any{map[string]any{"port": int64(80)}}})
	},
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
