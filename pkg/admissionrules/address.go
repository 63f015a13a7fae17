package admissionrules

import (
	"net/netip"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// addressValidations hold upstream the address references of the kinds
// table (translate.Ref.Address: a Service's externalName, the addresses of
// Endpoints and EndpointSlices), one rule per reference, generated from the
// same rows and lists as the proxy's check (pkg/translate/refs_address.go),
// for every kind a tenant may write upstream. A tenant identity, or a
// tenant pod's ServiceAccount, that writes such an object directly meets
// the same refusal as one going through the proxy.
func addressValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	var out []admissionv1.Validation
	for _, rule := range translate.Kinds() {
		if rule.Treatment != translate.Namespaced && rule.UpstreamAccess() != translate.AccessWrite {
			continue
		}
		for _, ref := range rule.Refs {
			if ref.Address == 0 {
				continue
			}
			match := "variables.reqGroup == " + strconv.Quote(rule.Resource.Group) + " && request.resource.resource == " +
				strconv.Quote(rule.Resource.Resource) + " && variables.subres == '' && object != null"
			out = append(out, admissionv1.Validation{
				Expression: "!(" + match + ") || " + celEach("object", ref.Field, addressPredicate(ref.Address), 0),
				MessageExpression: "'" + rule.Resource.String() + " of tenant ' + variables.tenant + ': " +
					strings.ReplaceAll(ref.Field+" "+ref.Address.Reason(), "'", "\\'") + "'",
				Reason: forbidden,
			})
		}
	}
	return out
}

// celEach is a CEL condition that holds when pred holds of every value at
// the walk path (translate's: dotted keys, "[]" iterating a list) under
// base; absent steps hold. Each level (depth) binds its own iteration
// variable.
func celEach(base, path string, pred func(v string) string, depth int) string {
	key, rest, more := strings.Cut(path, ".")
	name, each := strings.CutSuffix(key, "[]")
	field := base + "." + name
	v := "v" + strconv.Itoa(depth)
	var inner string
	switch {
	case more && each:
		inner = field + ".all(" + v + ", " + celEach(v, rest, pred, depth+1) + ")"
	case more:
		inner = celEach(field, rest, pred, depth)
	case each:
		inner = field + ".all(" + v + ", " + pred(v) + ")"
	default:
		inner = pred(field)
	}
	return "(!has(" + field + ") || " + inner + ")"
}

// addressPredicate is the CEL twin of the proxy's check of an address of
// the kind (translate.AddressKind).
func addressPredicate(kind translate.AddressKind) func(v string) string {
	switch kind {
	case translate.AddressServiceName:
		return serviceNamePredicate
	case translate.AddressIP:
		return publicUnicastPredicate
	case translate.AddressFamily:
		return func(v string) string { return v + " in " + quoteList(translate.AddressFamilies) }
	}
	panic("tenantctl: no upstream rule for address kind " + strconv.Itoa(int(kind)))
}

// serviceNamePredicate: v is empty, one of the tenant's Services
// (ownServicePredicate), or a name its external-name grant allows
// (grantedNamePredicate).
func serviceNamePredicate(v string) string {
	return "(" + v + " == '' || " + ownServicePredicate(v) + " || " + grantedNamePredicate(v) + ")"
}

// ownServicePredicate: v is <service>.<namespace>.svc or
// <service>.<namespace>.svc.<cluster domain>, with or without a final dot,
// in one of the tenant's namespaces (whose prefix holds no character special
// in a regular expression: a tenant name is a DNS label without "-").
func ownServicePredicate(v string) string {
	domain := strings.ReplaceAll(translate.ClusterDomain, ".", "\\\\.")
	return v + ".matches('^[^.]+\\\\.' + variables.prefix + '[^.]+\\\\.svc(\\\\." + domain + ")?\\\\.?$')"
}

// grantedNamePredicate: v (without a final dot, and without a "*" of its
// own) is granted to the tenant by its external-name grant, itself or by
// its one-label wildcard (policyctl/externalnames.go).
func grantedNamePredicate(v string) string {
	n := "(" + v + ".endsWith('.') ? " + v + ".substring(0, size(" + v + ") - 1) : " + v + ")"
	wildcard := "'*.' + " + n + ".substring(" + n + ".indexOf('.') + 1)"
	return "(!" + v + ".contains('*') && (" + memberCheck("variables.tenant", ExternalNameResource, n, "use") + " || (" + n + ".contains('.') && " +
		memberCheck("variables.tenant", ExternalNameResource, wildcard, "use") + ")))"
}

// publicUnicastPredicate: v is an IP address (CEL's isIP refuses zones and
// IPv4-mapped IPv6) outside translate.RefusedIPv4, or inside
// translate.PublicIPv6 and outside translate.RefusedIPv6.
func publicUnicastPredicate(v string) string {
	return "(isIP(" + v + ") && (ip(" + v + ").family() == 4 ? !" + cidrList(translate.RefusedIPv4) + ".exists(c, cidr(c).containsIP(" + v + ")) : " +
		"(cidr('" + translate.PublicIPv6.String() + "').containsIP(" + v + ") && !" + cidrList(translate.RefusedIPv6) + ".exists(c, cidr(c).containsIP(" + v + ")))))"
}

func cidrList(prefixes []netip.Prefix) string {
	items := make([]string, len(prefixes))
	for i, p := range prefixes {
		items[i] = p.String()
	}
	return quoteList(items)
}

func quoteList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = "'" + s + "'"
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
