package translate

import (
	"fmt"
	"strings"
)

// LabelKeyMapping renames the label keys that start with Tenant to keys
// that start with Upstream (the same rest) on the way in, and back on the
// way out: in labels, in label selectors of queries, in the kind's own label
// selectors that name such keys, and in the field sets of managedFields. A
// tenant may not use Upstream keys itself (403), so that the mapping stays
// one to one.
type LabelKeyMapping struct {
	Tenant, Upstream string
	// Reason says why (shown in the 403 for an Upstream key).
	Reason string
}

// AggregateLabelPrefix starts the label keys with which the cluster's
// clusterrole-aggregation controller aggregates ClusterRoles into the
// default roles: the default admin, edit and view ClusterRoles select
// "rbac.authorization.k8s.io/aggregate-to-admin" (-edit, -view) = "true".
const AggregateLabelPrefix = "rbac.authorization.k8s.io/aggregate-to-"

// TenantAggregateLabelPrefix is what a tenant's ClusterRoles carry upstream
// instead of AggregateLabelPrefix: the cluster's own admin, edit and view
// roles never select them, the tenant's copies of those roles do (together
// with TenantLabel=<tenant>, as every aggregationRule of a tenant).
const TenantAggregateLabelPrefix = "rbac." + APIGroup + "/aggregate-to-"

// aggregateLabelKeys is the ClusterRole row's mapping.
var aggregateLabelKeys = []LabelKeyMapping{{
	Tenant: AggregateLabelPrefix, Upstream: TenantAggregateLabelPrefix,
	Reason: "a tenant's aggregation labels (" + AggregateLabelPrefix + "*) are stored under it upstream, so that they aggregate into the tenant's own roles only",
}}

// UpstreamLabelKey returns the upstream form of a tenant's label key on
// objects of the kind, and whether the row maps it.
func (r *KindRule) UpstreamLabelKey(key string) (string, bool) {
	for _, lk := range r.LabelKeys {
		if rest, ok := strings.CutPrefix(key, lk.Tenant); ok {
			return lk.Upstream + rest, true
		}
	}
	return key, false
}

// tenantLabelKey returns the tenant's form of an upstream label key.
func (r *KindRule) tenantLabelKey(key string) string {
	for _, lk := range r.LabelKeys {
		if rest, ok := strings.CutPrefix(key, lk.Upstream); ok {
			return lk.Tenant + rest
		}
	}
	return key
}

// labelKeyIn maps a tenant's label key, refusing the upstream forms.
func (r *KindRule) labelKeyIn(name, key string) (string, error) {
	for _, lk := range r.LabelKeys {
		if strings.HasPrefix(key, lk.Upstream) {
			return "", forbidden(r.Resource, name, fmt.Sprintf("the label keys %s* are kubectl-zoo's: %s", lk.Upstream, lk.Reason))
		}
	}
	up, _ := r.UpstreamLabelKey(key)
	return up, nil
}

// labelKey maps a label key in the mapper's direction.
func (m *mapper) labelKey(r *KindRule, name, key string) (string, error) {
	if len(r.LabelKeys) == 0 {
		return key, nil
	}
	if m.in {
		return r.labelKeyIn(name, key)
	}
	return r.tenantLabelKey(key), nil
}

// mapLabelKeys renames the keys of a label map (labels, matchLabels; a
// patch's null values included) in the mapper's direction.
func (m *mapper) mapLabelKeys(r *KindRule, name string, labels map[string]any) error {
	if len(r.LabelKeys) == 0 || len(labels) == 0 {
		return nil
	}
	renamed := map[string]any{}
	for k, v := range labels {
		nk, err := m.labelKey(r, name, k)
		if err != nil {
			return err
		}
		if nk != k {
			delete(labels, k)
			renamed[nk] = v
		}
	}
	for k, v := range renamed {
		labels[k] = v
	}
	return nil
}

// mapSelectorKeys renames the keys of a metav1.LabelSelector.
func (m *mapper) mapSelectorKeys(r *KindRule, sel map[string]any) error {
	if labels, ok := sel["matchLabels"].(map[string]any); ok {
		if err := m.mapLabelKeys(r, "", labels); err != nil {
			return err
		}
	}
	exprs, _ := sel["matchExpressions"].([]any)
	for _, e := range exprs {
		if expr, ok := e.(map[string]any); ok {
			if err := m.mapString(expr, "key", func(k string) (string, error) { return m.labelKey(r, "", k) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// mapManagedLabelKeys renames the "f:<key>" entries of a managedFields
// entry's labels in the mapper's direction.
func (m *mapper) mapManagedLabelKeys(r *KindRule, fieldLabels map[string]any) error {
	if len(r.LabelKeys) == 0 || len(fieldLabels) == 0 {
		return nil
	}
	renamed := map[string]any{}
	for k, v := range fieldLabels {
		key, ok := strings.CutPrefix(k, "f:")
		if !ok {
			continue
		}
		nk, err := m.labelKey(r, "", key)
		if err != nil {
			return err
		}
		if nk != key {
			delete(fieldLabels, k)
			renamed["f:"+nk] = v
		}
	}
	for k, v := range renamed {
		fieldLabels[k] = v
	}
	return nil
}
