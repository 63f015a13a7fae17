package translate

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// TenantSelector returns the upstream label selector that matches exactly the
// tenant's cluster-scoped objects (its namespaces above all).
func (t *Translator) TenantSelector() string { return TenantLabel + "=" + t.tenant.Name() }

// translateQuery maps labelSelector and fieldSelector of a request in q (a
// copy the request owns, see canonicalQuery) and returns it; continue and
// everything else stay untouched.
func (t *Translator) translateQuery(rule *KindRule, verb string, q url.Values) (url.Values, error) {
	others := t.otherTenants(rule, verb)
	if s := q.Get("labelSelector"); s != "" || addsTenantSelector(rule, verb) || len(others) > 0 {
		ls, err := t.labelSelectorQuery(rule, s, addsTenantSelector(rule, verb), others)
		if err != nil {
			return nil, err
		}
		q.Set("labelSelector", ls)
	}
	if s := q.Get("fieldSelector"); s != "" {
		fs, err := t.fieldSelectorQuery(rule, s)
		if err != nil {
			return nil, err
		}
		q.Set("fieldSelector", fs)
	}
	return q, nil
}

func addsTenantSelector(rule *KindRule, verb string) bool {
	return rule.Treatment == TenantOwned && (verb == "list" || verb == "watch" || verb == "deletecollection")
}

// otherTenants returns the tenants whose objects a list or watch of a shared
// kind leaves out upstream (see OtherTenantsLister), or nil.
func (t *Translator) otherTenants(rule *KindRule, verb string) []string {
	if rule.Treatment != Shared || (verb != "list" && verb != "watch") {
		return nil
	}
	lister, ok := t.opts.Shared.(OtherTenantsLister)
	if !ok {
		return nil
	}
	var others []string
	for _, name := range lister.OtherTenants() {
		if name != t.tenant.Name() && ValidateTenantName(name) == nil {
			others = append(others, name)
		}
	}
	return others
}

// labelSelectorQuery maps a labelSelector query: values of
// MetadataNameLabel (on namespaces) are namespace names; TenantLabel may not
// be used by tenants; with addTenant, TenantLabel=<tenant> is added, with
// others, TenantLabel notin (others).
func (t *Translator) labelSelectorQuery(rule *KindRule, s string, addTenant bool, others []string) (string, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return "", badRequest("invalid labelSelector %q: %w", s, err)
	}
	reqs, _ := sel.Requirements()
	out := labels.NewSelector()
	for _, r := range reqs {
		if r.Key() == TenantLabel {
			return "", forbidden(rule.Resource, "", fmt.Sprintf("the label %s is managed by kubectl-zoo and may not be selected on", TenantLabel))
		}
		if r.Key() == MetadataNameLabel && rule.NameIsNamespace {
			values := r.ValuesUnsorted()
			for i, v := range values {
				if values[i], err = t.tenant.UpstreamNamespace(v); err != nil {
					return "", err
				}
			}
			nr, err := labels.NewRequirement(r.Key(), r.Operator(), values)
			if err != nil {
				return "", badRequest("invalid labelSelector %q: %w", s, err)
			}
			r = *nr
		}
		out = out.Add(r)
	}
	if addTenant {
		r, err := labels.NewRequirement(TenantLabel, selection.Equals, []string{t.tenant.Name()})
		if err != nil {
			return "", fmt.Errorf("tenant selector: %w", err)
		}
		out = out.Add(*r)
	}
	if len(others) > 0 {
		r, err := labels.NewRequirement(TenantLabel, selection.NotIn, others)
		if err != nil {
			return "", fmt.Errorf("other tenants' selector: %w", err)
		}
		out = out.Add(*r)
	}
	return out.String(), nil
}

// fieldSelectorQuery maps metadata.namespace (and involvedObject.namespace,
// regarding.namespace) values to upstream namespaces and metadata.name of
// tenant-owned cluster-scoped kinds to upstream names.
func (t *Translator) fieldSelectorQuery(rule *KindRule, s string) (string, error) {
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return "", badRequest("invalid fieldSelector %q: %w", s, err)
	}
	reqs := sel.Requirements()
	terms := make([]string, 0, len(reqs))
	for _, r := range reqs {
		value := r.Value
		switch r.Field {
		case "metadata.namespace", "involvedObject.namespace", "regarding.namespace":
			value, err = t.tenant.UpstreamNamespace(value)
		case "metadata.name":
			if rule.Treatment == TenantOwned || rule.Treatment == Shared {
				value, err = t.requestName(rule, value, "get")
			}
		}
		if err != nil {
			return "", err
		}
		op := "="
		if r.Operator == selection.NotEquals {
			op = "!="
		}
		terms = append(terms, r.Field+op+fields.EscapeValue(value))
	}
	sort.Strings(terms)
	return strings.Join(terms, ","), nil
}
