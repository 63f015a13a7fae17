package translate

import (
	"fmt"
	"slices"
	"strings"
)

// Ingress host names are one space for every tenant of the cluster's shared
// ingress controllers: an Ingress of one tenant for a host another tenant
// serves is merged with, or races, that tenant's; a rule without host, a
// default backend or a TLS entry without hosts claims every host no other
// Ingress names. So a tenant's Ingress may name only the hosts its policy
// lists (`kubectl zoo policy set T --ingress-hosts`): a name, "*." and a
// name for exactly one label in front (a host "*.x" only by that very
// pattern), or "*" for any host and for rules without one. None is allowed
// by default. Upstream, the list is an annotation of the policy
// ResourceQuota of every tenant namespace (IngressHostsAnnotation), which
// only kubectl-zoo writes, and the zoo-tenant-ingress-hosts policy reads it
// as its parameter (pkg/admissionrules/ingress.go).

// IngressHostsAnnotation holds, on the policy ResourceQuota of a tenant
// namespace, the host patterns of the tenant's policy, comma-separated.
const IngressHostsAnnotation = APIGroup + "/ingress-hosts"

// AnyIngressHost is the pattern that allows every host, and rules without
// one.
const AnyIngressHost = "*"

// IngressHostLookup is an optional extension of PlatformLookup: the host
// patterns the tenant's policy allows. Without it, none is allowed.
type IngressHostLookup interface {
	AllowedIngressHosts() ([]string, error)
}

// ValidateIngressHostPattern reports why pattern may not be an allowed
// ingress host: AnyIngressHost, or a pattern ValidateExternalNamePattern
// accepts.
func ValidateIngressHostPattern(pattern string) error {
	if pattern == AnyIngressHost {
		return nil
	}
	return ValidateExternalNamePattern(pattern)
}

// IngressHostAllowed reports whether patterns allow host: "" (a rule, a
// default backend or a TLS entry for every host) only by AnyIngressHost;
// a host named by a pattern, or with one label in front of a "*." pattern's
// name; a wildcard host only by the same pattern.
func IngressHostAllowed(patterns []string, host string) bool {
	if slices.Contains(patterns, AnyIngressHost) {
		return true
	}
	if host == "" {
		return false
	}
	if slices.Contains(patterns, host) {
		return true
	}
	_, parent, ok := strings.Cut(host, ".")
	return ok && !strings.Contains(host, "*") && slices.Contains(patterns, "*."+parent)
}

// ingressHostRefs are the host names of an Ingress: its rules' hosts (a
// rule without one stands for every host), its TLS entries' hosts (an
// entry without any, for every host) and its default backend (every host).
var ingressHostRefs = []Ref{
	ingressHostRef("spec.rules[]", "host", func(rule map[string]any) []string { return []string{str(rule, "host")} }),
	ingressHostRef("spec.tls[]", "hosts", func(tls map[string]any) []string {
		hosts, _ := tls["hosts"].([]any)
		if len(hosts) == 0 {
			return []string{""}
		}
		out := make([]string, len(hosts))
		for i, h := range hosts {
			out[i], _ = h.(string)
		}
		return out
	}),
	ingressHostRef("spec", "defaultBackend", func(spec map[string]any) []string {
		if v, set := spec["defaultBackend"]; set && v != nil {
			return []string{""}
		}
		return nil
	}),
}

// ingressHostRef checks, on the way in, the hosts that hosts finds in each
// item at path.
func ingressHostRef(path, key string, hosts func(map[string]any) []string) Ref {
	field := path + "." + key
	return Ref{Field: field, Target: TargetIngressHost, apply: func(m *mapper, obj map[string]any) error {
		if !m.in {
			return nil
		}
		return walk(obj, path, func(item map[string]any) error {
			for _, h := range hosts(item) {
				ok, err := m.allowedIngressHost(h)
				if err != nil {
					return err
				}
				if ok {
					continue
				}
				what := fmt.Sprintf("the host %q", h)
				if h == "" {
					what = "every host (no host named)"
				}
				return forbidden(grIngress, str(child(obj, "metadata"), "name"), fmt.Sprintf("%s: %s is not one the tenant's policy allows "+
					"(kubectl zoo policy set --ingress-hosts): host names are one space for every tenant of the shared ingress controllers", field, what))
			}
			return nil
		})
	}}
}

// allowedIngressHost reports whether the tenant's policy allows host.
func (m *mapper) allowedIngressHost(host string) (bool, error) {
	l, ok := m.t.opts.Platform.(IngressHostLookup)
	if !ok {
		return false, nil
	}
	patterns, err := m.policyList("ingressHosts", l.AllowedIngressHosts)
	if err != nil {
		return false, lookupError("read the ingress hosts the tenant's policy allows", err)
	}
	return IngressHostAllowed(patterns, host), nil
}
