package policy

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Parse reads a Policy from a YAML or JSON document (the file of `install
// --default-policy`, or what `policy show -o yaml` prints), refusing unknown
// fields so that a misspelled one is an error rather than a policy that
// silently does less, and validates it.
func Parse(data []byte) (Policy, error) {
	var p Policy
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return Policy{}, fmt.Errorf("not a policy: %w", err)
	}
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	p = p.Canonical()
	return p, nil
}

// Canonical is p with each of its lists (PriorityClasses, ExternalNames,
// VolumeSources, IngressHosts) sorted and deduplicated (CanonicalClasses).
func (p Policy) Canonical() Policy {
	for _, list := range []*[]string{&p.PriorityClasses, &p.ExternalNames, &p.VolumeSources, &p.IngressHosts} {
		*list = CanonicalClasses(*list)
	}
	return p
}

// CanonicalClasses sorts and deduplicates PriorityClass names (and external
// names); nil for none.
func CanonicalClasses(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// FormatResourceList is the inverse of ParseResourceList: NAME=QUANTITY
// pairs sorted by name, comma-separated; "" for an empty list.
func FormatResourceList(list corev1.ResourceList) string {
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, string(name))
	}
	slices.Sort(names)
	pairs := make([]string, len(names))
	for i, name := range names {
		q := list[corev1.ResourceName(name)]
		pairs[i] = name + "=" + q.String()
	}
	return strings.Join(pairs, ",")
}

// FormatLimitRange is the inverse of ParseLimitRange; "" for nil.
func FormatLimitRange(lr *LimitRange) string {
	if lr == nil {
		return ""
	}
	var parts []string
	for _, kind := range []struct {
		prefix string
		list   corev1.ResourceList
	}{{"default-", lr.Default}, {"default-request-", lr.DefaultRequest}, {"max-", lr.Max}, {"min-", lr.Min}} {
		if s := FormatResourceList(kind.list); s != "" {
			for _, pair := range strings.Split(s, ",") {
				parts = append(parts, kind.prefix+pair)
			}
		}
	}
	return strings.Join(parts, ",")
}
