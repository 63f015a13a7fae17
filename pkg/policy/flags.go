package policy

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ParseResourceList parses "requests.cpu=4,limits.memory=8Gi,pods=50", the
// form of `policy set --quota`. An empty string is an empty list.
func ParseResourceList(s string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, pair := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || name == "" || value == "" {
			return nil, fmt.Errorf("%q is not NAME=QUANTITY", pair)
		}
		if _, dup := out[corev1.ResourceName(name)]; dup {
			return nil, fmt.Errorf("%s is given twice", name)
		}
		q, err := resource.ParseQuantity(value)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", name, value, err)
		}
		out[corev1.ResourceName(name)] = q
	}
	return out, nil
}

// limitRangeKinds are the prefixes of `policy set --limit-range` keys, longest
// first so that default-request- is not read as default-.
var limitRangeKinds = []string{"default-request-", "default-", "max-", "min-"}

// ParseLimitRange parses "default-cpu=100m,default-request-memory=64Mi,
// max-cpu=2,min-memory=16Mi", the form of `policy set --limit-range`.
func ParseLimitRange(s string) (*LimitRange, error) {
	out := &LimitRange{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, pair := range strings.Split(s, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || value == "" {
			return nil, fmt.Errorf("%q is not KIND-RESOURCE=QUANTITY (KIND: default, default-request, max or min)", pair)
		}
		list, name := out.list(key)
		if list == nil || name == "" {
			return nil, fmt.Errorf("%q does not start with default-, default-request-, max- or min-", key)
		}
		if _, dup := (*list)[corev1.ResourceName(name)]; dup {
			return nil, fmt.Errorf("%s is given twice", key)
		}
		q, err := resource.ParseQuantity(value)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", key, value, err)
		}
		(*list)[corev1.ResourceName(name)] = q
	}
	return out, nil
}

// list returns the list a --limit-range key writes to, made if needed, and
// the resource name the key names.
func (lr *LimitRange) list(key string) (*corev1.ResourceList, string) {
	for _, prefix := range limitRangeKinds {
		name, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		var list *corev1.ResourceList
		switch prefix {
		case "default-request-":
			list = &lr.DefaultRequest
		case "default-":
			list = &lr.Default
		case "max-":
			list = &lr.Max
		case "min-":
			list = &lr.Min
		}
		if *list == nil {
			*list = corev1.ResourceList{}
		}
		return list, name
	}
	return nil, ""
}
