package translate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Addresses and host names that the cluster dials or routes are references
// too: a Service's externalName is resolved by the cluster's DNS and by the
// API server (a webhook's or conversion webhook's Service), the addresses of
// Endpoints and EndpointSlices are where kube-proxy and the API server send
// traffic. The rows of services, endpoints and endpointslices declare them
// (Ref.Address); the proxy checks them here and the zoo-tenant admission
// policy holds the same rules upstream, generated from the same refs
// (pkg/admissionrules/address.go). What a rule does not allow is
// refused.

// AddressKind is what an address reference of the kinds table holds.
type AddressKind int

// The kinds of address references.
const (
	// AddressServiceName is a DNS name the cluster resolves: it may only
	// name one of the tenant's Services, <service>.<namespace>.svc or
	// <service>.<namespace>.svc.cluster.local, with or without a final dot;
	// the namespace is translated like any namespace reference.
	AddressServiceName AddressKind = iota + 1
	// AddressIP is an IP address the cluster sends traffic to: only a
	// public unicast address (PublicUnicast).
	AddressIP
	// AddressFamily is an EndpointSlice's addressType: IPv4 or IPv6. An
	// FQDN endpoint is a name nothing confines, so it is refused.
	AddressFamily
)

// ClusterDomain is the cluster's DNS domain a Service name may end with.
const ClusterDomain = "cluster.local"

// AddressFamilies are the addressTypes a tenant's EndpointSlice may have.
var AddressFamilies = []string{"IPv4", "IPv6"}

// Reason says, for a 403, what a value of the kind may be and why.
func (k AddressKind) Reason() string {
	switch k {
	case AddressServiceName:
		return "may only name a Service of the tenant (<service>.<namespace>.svc[." + ClusterDomain + "]) or an external name the platform allows the tenant: the cluster's DNS and the API server resolve it"
	case AddressIP:
		return "may only hold public unicast IP addresses: the cluster's machines and the API server send traffic there " +
			"(loopback, link-local, private, shared and reserved ranges reach the platform's or other tenants' endpoints)"
	case AddressFamily:
		return "must be " + strings.Join(AddressFamilies, " or ") + ": FQDN endpoints name hosts nothing confines"
	}
	return "unknown"
}

// addressRef is a Ref to an address field at path (a walk path; a final
// "[]" is every string of a list) of a kind of gr, checked or translated
// as kind says.
func addressRef(gr schema.GroupResource, path string, kind AddressKind) Ref {
	target := TargetEndpointAddress
	if kind == AddressServiceName {
		target = TargetServiceName
	}
	parent, key := splitField(path)
	key, each := strings.CutSuffix(key, "[]")
	return Ref{Field: path, Target: target, Address: kind, apply: func(m *mapper, obj map[string]any) error {
		name := str(child(obj, "metadata"), "name")
		return walk(obj, parent, func(p map[string]any) error {
			v, set := p[key]
			switch {
			case !set || v == nil:
				return nil
			case each && m.in:
				items, ok := v.([]any)
				if !ok {
					return forbidden(gr, name, fmt.Sprintf("%s %s, not %v", path, kind.Reason(), quoteValue(v)))
				}
				for _, item := range items {
					if err := m.checkAddress(gr, name, path, kind, item); err != nil {
						return err
					}
				}
				return nil
			case each:
				return nil
			case m.in:
				return m.addressIn(gr, name, path, kind, p, key)
			}
			return m.mapString(p, key, func(s string) (string, error) { return m.addressOut(kind, s) })
		})
	}}
}

// addressIn checks or translates the single address p[key] on the way in.
func (m *mapper) addressIn(gr schema.GroupResource, name, field string, kind AddressKind, p map[string]any, key string) error {
	if kind != AddressServiceName {
		return m.checkAddress(gr, name, field, kind, p[key])
	}
	s, ok := p[key].(string)
	if !ok {
		return forbidden(gr, name, fmt.Sprintf("%s %s", field, kind.Reason()))
	}
	if s == "" {
		return nil
	}
	svc, ns, suffix, ok := parseServiceName(s)
	if !ok {
		allowed, err := m.allowedExternalName(s)
		if err != nil || allowed {
			return err
		}
		return forbidden(gr, name, fmt.Sprintf("%s %s, not %q", field, kind.Reason(), s))
	}
	up, err := m.namespace(ns)
	if err != nil {
		return err
	}
	p[key] = svc + "." + up + suffix
	return nil
}

// addressOut shows an upstream address in the tenant's terms: a Service
// name of another namespace than the tenant's, or another name of the
// cluster's, is not the tenant's (left out); external names (which the
// tenant's policy allowed) and addresses are shown as they are.
func (m *mapper) addressOut(kind AddressKind, s string) (string, error) {
	if kind != AddressServiceName {
		return s, nil
	}
	svc, ns, suffix, ok := parseServiceName(s)
	if !ok && ValidateExternalNamePattern(strings.TrimSuffix(s, ".")) == nil && !strings.Contains(s, "*") {
		return s, nil
	}
	if !ok {
		return "", foreign("externalName", s)
	}
	local, err := m.namespace(ns)
	if err != nil {
		return "", err
	}
	return svc + "." + local + suffix, nil
}

// externalNameCell maps the External-IP cell of a Service's Table row,
// which shows an ExternalName Service's name; the addresses other Services
// show there stay as they are.
func (m *mapper) externalNameCell(cell string) (string, error) {
	if _, _, _, ok := parseServiceName(cell); !ok {
		return cell, nil
	}
	return m.addressOut(AddressServiceName, cell)
}

// checkAddress refuses a value of an IP or address-family field that the
// kind does not allow (a value that is not a string included).
func (m *mapper) checkAddress(gr schema.GroupResource, name, field string, kind AddressKind, v any) error {
	s, ok := v.(string)
	why := "not a string"
	switch {
	case ok && s == "":
		return nil // the API server's validation answers 422
	case !ok:
	case kind == AddressIP:
		err := PublicUnicast(s)
		if err == nil {
			return nil
		}
		why = err.Error()
	case kind == AddressFamily && slices.Contains(AddressFamilies, s):
		return nil
	default:
		why = "not allowed"
	}
	return forbidden(gr, name, fmt.Sprintf("%s %s, not %v (%s)", field, kind.Reason(), quoteValue(v), why))
}

func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}

// parseServiceName splits a Service's cluster DNS name,
// <service>.<namespace>.svc[.cluster.local][.], into the Service, its
// namespace and what follows the namespace (kept as written). ok is false
// for any other name. DNS is not case-sensitive; the API server accepts
// lower case only, and so does this.
func parseServiceName(s string) (svc, ns, suffix string, ok bool) {
	labels := strings.Split(strings.TrimSuffix(s, "."), ".")
	switch {
	case len(labels) == 3 && labels[2] == "svc":
	case len(labels) == 5 && labels[2] == "svc" && labels[3]+"."+labels[4] == ClusterDomain:
	default:
		return "", "", "", false
	}
	if labels[0] == "" || labels[1] == "" {
		return "", "", "", false
	}
	return labels[0], labels[1], s[len(labels[0])+1+len(labels[1]):], true
}
