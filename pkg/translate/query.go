package translate

import (
	"errors"
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
	if s := q.Get("labelSelector"); s != "" || addsTenantSelector(rule, verb) {
		ls, err := t.labelSelectorQuery(rule, s, addsTenantSelector(rule, verb))
		if err != nil {
			return nil, err
		}
		q.Set("labelSelector", ls)
	}
	if q.Get("includeObject") == "None" {
		// A Table row is translated through its object: without it, its
		// cells would carry upstream names. The rows come with their
		// metadata, which a client that asked for none ignores.
		q.Set("includeObject", "Metadata")
	}
	if s := q.Get("fieldSelector"); s != "" {
		fs, _, err := t.fieldSelectorQuery(rule, s, func(name string) (string, error) { return t.requestName(rule, name, verb) })
		if err != nil {
			return nil, err
		}
		q.Set("fieldSelector", fs)
	}
	return q, nil
}

// addsTenantSelector reports whether the upstream request selects the
// tenant's objects only: lists and watches of tenant-owned kinds, and every
// deletecollection of a cluster-scoped kind (a tenant deletes its own shared
// objects, never the cluster's).
func addsTenantSelector(rule *KindRule, verb string) bool {
	switch rule.Treatment {
	case TenantOwned:
		return verb == "list" || verb == "watch" || verb == "deletecollection"
	case Shared:
		return verb == "deletecollection"
	}
	return false
}

// labelSelectorQuery maps a labelSelector query: values of
// MetadataNameLabel (on namespaces) are namespace names; TenantLabel may not
// be used by tenants; with addTenant, TenantLabel=<tenant> is added.
func (t *Translator) labelSelectorQuery(rule *KindRule, s string, addTenant bool) (string, error) {
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
		if key, err := rule.labelKeyIn("", r.Key()); err != nil {
			return "", err
		} else if key != r.Key() {
			nr, err := labels.NewRequirement(key, r.Operator(), r.ValuesUnsorted())
			if err != nil {
				return "", badRequest("invalid labelSelector %q: %w", s, err)
			}
			r = *nr
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
	return out.String(), nil
}

// fieldSelectorQuery maps metadata.namespace (and involvedObject.namespace,
// regarding.namespace) values to upstream namespaces and, with nameOf,
// metadata.name of tenant-owned and shared cluster-scoped kinds to upstream
// names. When nameOf answers errNoSuchName (a leg of a shared list cannot
// hold an object of that name), the requirement decides alone: matchesNone
// reports one with "=", and one with "!=" is dropped (it holds for every
// object of the leg).
func (t *Translator) fieldSelectorQuery(rule *KindRule, s string, nameOf func(string) (string, error)) (sel string, matchesNone bool, err error) {
	parsed, err := fields.ParseSelector(s)
	if err != nil {
		return "", false, badRequest("invalid fieldSelector %q: %w", s, err)
	}
	reqs := parsed.Requirements()
	terms := make([]string, 0, len(reqs))
	for _, r := range reqs {
		value := r.Value
		switch r.Field {
		case "metadata.namespace", "involvedObject.namespace", "regarding.namespace":
			value, err = t.tenant.UpstreamNamespace(value)
		case "metadata.name":
			if rule.Treatment != TenantOwned && rule.Treatment != Shared {
				break
			}
			value, err = nameOf(value)
			if errors.Is(err, errNoSuchName) {
				if r.Operator == selection.NotEquals {
					continue
				}
				return "", true, nil
			}
		}
		if err != nil {
			return "", false, err
		}
		op := "="
		if r.Operator == selection.NotEquals {
			op = "!="
		}
		terms = append(terms, r.Field+op+fields.EscapeValue(value))
	}
	sort.Strings(terms)
	return strings.Join(terms, ","), false, nil
}
