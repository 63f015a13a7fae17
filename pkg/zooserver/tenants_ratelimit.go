package zooserver

import (
	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/fairshare"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// rateLimitField is where the transform keeps a record's effective fair
// share (fairshare.LimitsOf of spec.policy.rateLimit) as a JSON object of
// integers, decoded once per change of the record, in the informer's copy
// only.
const rateLimitField = "zooRateLimit"

// keepRateLimit stores u's effective limits at rateLimitField (nothing when
// it has none).
func keepRateLimit(u *unstructured.Unstructured) {
	delete(u.Object, rateLimitField) // never the record's own
	raw, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "policy")
	if !found {
		return
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return
	}
	t := &tenantapi.Tenant{Spec: tenantapi.TenantSpec{Policy: &apiextensionsv1.JSON{Raw: b}}}
	t.Name = u.GetName()
	p, err := tenantapi.PolicyOf(t)
	if err != nil {
		// A record edited by hand: what can be enforced of its rate
		// limit still is (fairshare.LimitsOf).
		klog.ErrorS(err, "invalid tenant policy", "tenant", u.GetName())
	}
	l := fairshare.LimitsOf(p.RateLimit)
	if l.None() {
		return
	}
	u.Object[rateLimitField] = map[string]any{"qps": int64(l.QPS), "burst": int64(l.Burst), "maxInflight": int64(l.MaxInflight)}
}

// limits returns tenant's effective fair share (none without a record).
func (t *tenantIndex) limits(tenant string) fairshare.Limits {
	obj, ok, err := t.informer.GetStore().GetByKey(tenant)
	if err != nil || !ok {
		return fairshare.Limits{}
	}
	return limitsIn(obj)
}

// limitsIn returns the limits a transformed record keeps.
func limitsIn(obj any) fairshare.Limits {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fairshare.Limits{}
	}
	m, _ := u.Object[rateLimitField].(map[string]any)
	get := func(k string) int32 { v, _ := m[k].(int64); return int32(v) }
	return fairshare.Limits{QPS: get("qps"), Burst: get("burst"), MaxInflight: get("maxInflight")}
}
