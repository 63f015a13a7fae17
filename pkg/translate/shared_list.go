package translate

import (
	"errors"
	"fmt"
	"net/url"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// The two parts of a list of a shared kind (PlanSharedList), in the order the
// proxy joins them.
const (
	// SharedPartPlatform is the cluster's own objects: those without
	// TenantLabel.
	SharedPartPlatform = "platform"
	// SharedPartOwn is the tenant's own objects: TenantLabel=<tenant>.
	SharedPartOwn = "own"
)

// errNoSuchName says that a leg cannot hold an object of a name.
var errNoSuchName = errors.New("no object of this leg can have the name")

// ListLeg is one upstream list of a list the proxy joins (PlanSharedList):
// its part and its query (selectors included; no continue).
type ListLeg struct {
	Part  string
	Query url.Values
}

// ForLeg returns the upstream path and query of leg i of a PlanSharedList
// request, resuming at the upstream continue token.
func (u *UpstreamRequest) ForLeg(i int, continueToken string) (string, url.Values) {
	q := url.Values{}
	for k, v := range u.Legs[i].Query {
		q[k] = append([]string(nil), v...)
	}
	if continueToken != "" {
		q.Set("continue", continueToken)
	}
	return u.Path, q
}

// sharedListLegs splits a list of a shared kind into the cluster's objects
// (TenantLabel absent) and the tenant's (TenantLabel=<tenant>): two selectors
// whose size and cost do not depend on how many tenants there are, where one
// request would need TenantLabel notin (every other tenant). The tenant's own
// selectors are ANDed to each leg's requirement; they may not name
// TenantLabel (labelSelectorQuery refuses it), and a label selector has no
// OR, so no selector of the tenant's can widen a leg to another tenant's
// objects. A metadata.name field selector names the object as it is stored
// in each leg: unprefixed among the cluster's, prefixed among the tenant's.
// A leg that cannot match is left out.
func (t *Translator) sharedListLegs(rule *KindRule, tenantQuery url.Values) ([]ListLeg, error) {
	ls, err := t.labelSelectorQuery(rule, tenantQuery.Get("labelSelector"), false)
	if err != nil {
		return nil, err
	}
	base, err := labels.Parse(ls)
	if err != nil {
		return nil, fmt.Errorf("translated labelSelector %q: %w", ls, err)
	}
	parts := []struct {
		part   string
		op     selection.Operator
		values []string
		nameOf func(string) (string, error)
	}{
		{SharedPartPlatform, selection.DoesNotExist, nil, func(name string) (string, error) { return name, nil }},
		{SharedPartOwn, selection.Equals, []string{t.tenant.Name()}, func(name string) (string, error) {
			up, err := t.ownName(rule, name)
			if err != nil {
				return "", errNoSuchName
			}
			return up, nil
		}},
	}
	legs := make([]ListLeg, 0, len(parts))
	for _, p := range parts {
		q := url.Values{}
		for k, v := range tenantQuery {
			q[k] = append([]string(nil), v...)
		}
		q.Del("continue")
		req, err := labels.NewRequirement(TenantLabel, p.op, p.values)
		if err != nil {
			return nil, fmt.Errorf("%s selector: %w", p.part, err)
		}
		q.Set("labelSelector", base.Add(*req).String())
		if fs := tenantQuery.Get("fieldSelector"); fs != "" {
			translated, none, err := t.fieldSelectorQuery(rule, fs, p.nameOf)
			if err != nil {
				return nil, err
			}
			if none {
				continue
			}
			if translated == "" {
				q.Del("fieldSelector")
			} else {
				q.Set("fieldSelector", translated)
			}
		}
		legs = append(legs, ListLeg{Part: p.part, Query: q})
	}
	return legs, nil
}
