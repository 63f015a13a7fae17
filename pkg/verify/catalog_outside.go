package verify

import (
	"context"
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The references of the kinds table whose target can name something
// outside the tenant (translate.Target.NamesOutside) each get an attempt
// without code of their own, as the refused ones do (catalog_refused.go):
// the kind's harmless object (outsideBases) with the field set to a value
// that names the victim's object or every namespace (outsideValue). Through
// the proxy the attempt is written for real and read back: held when what
// is stored no longer names the victim's (outsideReadback); directly
// upstream it is a dry run that must be refused. TestOutsideChecks fails
// for a reference that has neither an attempt nor a reason in
// outsideElsewhere.

// outsideBase builds a kind's harmless object named name, as t's path
// names the attacker's own.
type outsideBase func(t *Target, name string) *unstructured.Unstructured

// outsideChecks are the attempts of every reference that can name
// something outside the tenant, of a kind verify has a harmless object of,
// with a target verify has a value of.
func outsideChecks() []Check {
	var out []Check
	bases := outsideBases()
	twins := &twinCache{admitted: map[string]bool{}}
	for _, rule := range translate.Kinds() {
		base, ok := bases[rule.Resource]
		if !ok {
			continue
		}
		for _, ref := range rule.Refs {
			_, elsewhere := outsideElsewhere[outsideKey(rule.Resource, ref.Field)]
			if !ref.Target.NamesOutside() || ref.Target.Refused() || elsewhere || outsideValue(ref.Target, ref.Field) == nil {
				continue
			}
			id := outsideCheckID(rule.Resource, ref.Field)
			out = append(out, outsideCheck(rule.Resource, ref, base, twins, id, outsideValue(ref.Target, ref.Field),
				"name the victim's or every namespace's in "+ref.Field+" of a "+rule.Resource.Resource+" ("+ref.Target.String()+")"))
			if platform := platformValue(ref.Target, lastKey(ref.Field)); platform != nil {
				out = append(out, outsideCheck(rule.Resource, ref, base, twins, id+"/platform", platform,
					"name the platform's in "+ref.Field+" of a "+rule.Resource.Resource+" ("+ref.Target.String()+")"))
			}
		}
	}
	return out
}

// outsideElsewhere are the references that can name something outside the
// tenant that a check of their own attempts, by the check's ID.
var outsideElsewhere = map[string]string{
	"persistentvolumeclaims spec.volumeName":                                                           "storage/persistentvolumeclaims.spec.volumeName",
	"rolebindings.rbac.authorization.k8s.io subjects":                                                  "reference/rolebindings.subjects",
	"rolebindings.rbac.authorization.k8s.io roleRef":                                                   "MTB-PL2-CC-TI-1",
	"validatingadmissionpolicies.admissionregistration.k8s.io spec.matchConstraints.namespaceSelector": "admission/validatingadmissionpolicies",
	"validatingwebhookconfigurations.admissionregistration.k8s.io webhooks[].namespaceSelector":        "admission/validatingwebhookconfigurations",
}

// outsideKey names gr's reference at field.
func outsideKey(gr schema.GroupResource, field string) string { return gr.String() + " " + field }

// outsideCheckID is the ID of the attempt at gr's reference field.
func outsideCheckID(gr schema.GroupResource, field string) string {
	return "outside/" + gr.String() + "." + field
}

// outsideName is the name of the objects of the attempt id: one of its own,
// so that the real writes of different attempts never meet.
func outsideName(id string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return fmt.Sprintf("zoo-verify-o%08x", h.Sum32())
}

// outsidePaths are the paths of the generated attempts: every path (serve's
// proxy and the server's run the same translator, each read back on its
// own path's names; the two identities directly upstream).
var outsidePaths = Paths

// paramKinds are the kinds whose twin names a param kind or a param
// object (an admission policy, its binding): the API server lets only a
// writer that may read those write it, which the server's ServiceAccount
// may not, so their attempts are not made through the server.
var paramKinds = map[schema.GroupKind]bool{
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: true,
}

// outsidePathsOf are the paths of the generated attempts at gr's
// references.
func outsidePathsOf(gr schema.GroupResource) []Path {
	if rule, ok := translate.LookupKind(gr); ok && paramKinds[schema.GroupKind{Group: gr.Group, Kind: rule.Kind}] {
		return []Path{PathServe, PathIdentity, PathServiceAccount}
	}
	return outsidePaths
}

// twinCache remembers, per kind and path, that the kind's harmless object
// was admitted: the twin of every attempt at the kind's references is the
// same request, made once per path.
type twinCache struct {
	mu       sync.Mutex
	admitted map[string]bool
}

// twin makes the twin of gr on t's path with make, unless it was admitted
// already.
func (c *twinCache) twin(gr schema.GroupResource, t *Target, make func() error) error {
	key := gr.String() + " " + string(t.Path)
	c.mu.Lock()
	done := c.admitted[key]
	c.mu.Unlock()
	if done {
		return nil
	}
	err := make()
	if err == nil {
		c.mu.Lock()
		c.admitted[key] = true
		c.mu.Unlock()
	}
	return err
}

// outsideCheck, the attempt id, sets ref's field of base's object to value
// (twin: base's object).
func outsideCheck(gr schema.GroupResource, ref translate.Ref, base outsideBase, twins *twinCache, id string, value func(*Target) any, title string) Check {
	keys := outsideKeys(ref.Field)
	attempt := func(t *Target, name string) *unstructured.Unstructured {
		obj := base(t, name)
		setOutside(obj.Object, keys, value(t))
		return obj
	}
	create := func(ctx context.Context, t *Target, obj *unstructured.Unstructured) error {
		_, err := t.Dynamic.Resource(gr.WithVersion(obj.GroupVersionKind().Version)).Namespace(obj.GetNamespace()).Create(ctx, obj, t.Write)
		return err
	}
	return Check{ID: id, Class: outsideClass(ref.Target), TwinRBAC: true, Scratch: ref.Target == translate.TargetShared, Paths: outsidePathsOf(gr),
		Title:          title,
		NotApplicable:  outsideNotApplicable(ref),
		DirectHarmless: outsideHarmlessUpstream(ref.Field),
		Twin: func(ctx context.Context, t *Target) error {
			return twins.twin(gr, t, func() error {
				twin := *t
				twin.Write = dryRun
				return create(ctx, &twin, base(t, outsideName(gr.String())))
			})
		},
		Attempt: func(ctx context.Context, t *Target) error { return create(ctx, t, attempt(t, t.name(outsideName(id)))) },
		Readback: func(ctx context.Context, t *Target) (string, string, error) {
			stored, err := readOutside(ctx, t, gr, base(t, ""), outsideName(id)+t.realSuffix())
			if err != nil {
				return "", "", err
			}
			return outsideReadback(t, ref, fieldValues(stored.Object, keys), fieldValues(attempt(t, "").Object, keys))
		}}
}

// readOutside reads, as the platform admin, what the attempt named name
// stored of gr, whose twin is like: in the attacker's namespace, or
// cluster-scoped under the attacker's prefix. It then deletes it, so that
// the real writes of every attempt and path never add up to a tenant's
// limit of a kind (ten FlowSchemas); one left behind by a failed delete
// goes with the scratch tenant.
func readOutside(ctx context.Context, t *Target, gr schema.GroupResource, like *unstructured.Unstructured, name string) (*unstructured.Unstructured, error) {
	gvr := gr.WithVersion(like.GroupVersionKind().Version)
	ns := upstreamNamespace(t)
	if like.GetNamespace() == "" {
		ns, name = "", t.Attacker.Prefix()+name
	}
	obj, err := readObject(ctx, t, gvr, ns, name)
	if err == nil {
		if err := t.Upstream.Resource(gvr).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			klog.V(2).InfoS("delete an attempt's object after its read back", "resource", gvr, "namespace", ns, "name", name, "err", err)
		}
	}
	return obj, err
}

// outsideNotApplicable says when the tenant's policy allows the value: a
// volume source it lists.
func outsideNotApplicable(ref translate.Ref) func(p policy.Policy) string {
	if ref.Target != translate.TargetStorage {
		return nil
	}
	source := lastKey(ref.Field)
	return func(p policy.Policy) string {
		if slices.Contains(p.VolumeSources, source) {
			return "the tenant's policy allows the volume source " + source + " (kubectl zoo policy set --volume-sources)"
		}
		return ""
	}
}

// outsideHarmlessUpstream is why a reference at field is admitted directly
// upstream yet harmless, or "": a claim template's names are judged on the
// claim the controller makes from it.
func outsideHarmlessUpstream(field string) string {
	if strings.HasSuffix(field, "].namespaceSelector") && (strings.Contains(field, "ingress[]") || strings.Contains(field, "egress[]")) {
		return "a NetworkPolicy governs only the pods of its own namespace: naming other namespaces opens the attacker's door, not theirs"
	}
	if strings.Contains(field, "volumeClaimTemplate") || strings.Contains(field, "volumeClaimTemplates[]") {
		return "a claim template is admitted upstream as written; the claim the controller makes from it is judged by zoo-tenant-storage, which verify's claim checks attempt"
	}
	return ""
}

// outsideClass is the class of docs/security.md of a target.
func outsideClass(target translate.Target) string {
	switch target {
	case translate.TargetSelector:
		return ClassSelectors
	case translate.TargetStorage, translate.TargetOwned:
		return ClassStorage
	case translate.TargetPlatform:
		return ClassPriority
	}
	return ClassReferences
}

// outsideReadback judges what the proxy stored of an attempt that named
// sent: held when none of the stored values is one sent, and a selector
// is confined to the attacker's namespaces.
func outsideReadback(t *Target, ref translate.Ref, stored, sent []any) (string, string, error) {
	if len(stored) == 0 {
		return "", "", fmt.Errorf("%s is not stored", ref.Field)
	}
	if lastKey(ref.Field) == "matchConditions" {
		return matchConditionsReadback(t, ref.Field, stored)
	}
	if ref.Target.PolicyAllowed() { // checked, never translated: stored at all is an escape
		return "", fmt.Sprintf("%s is stored: %v", ref.Field, stored), nil
	}
	for _, v := range stored {
		if slices.ContainsFunc(sent, func(s any) bool { return reflect.DeepEqual(s, v) }) {
			return "", fmt.Sprintf("%s is stored as sent: %v", ref.Field, v), nil
		}
		if ref.Target == translate.TargetSelector && !selectorConfined(v, lastKey(ref.Field), t.Attacker) {
			return "", fmt.Sprintf("%s is stored unconfined: %v", ref.Field, v), nil
		}
	}
	if ref.Target == translate.TargetPlatform {
		return LayerProxyCapped, fmt.Sprintf("%s is stored capped: %v", ref.Field, stored), nil
	}
	if ref.Target == translate.TargetSelector {
		return LayerProxyConfined, fmt.Sprintf("%s is confined to %s In (%s)", ref.Field, translate.TenantLabel, t.Attacker), nil
	}
	return LayerProxyNames, fmt.Sprintf("%s is stored as %v", ref.Field, stored), nil
}

// selectorConfined says v, the value of a field named leaf, is a
// namespaceSelector, or holds some, that require the tenant label of t.
func selectorConfined(v any, leaf string, t translate.Tenant) bool {
	if sel, ok := v.(map[string]any); ok && leaf == "namespaceSelector" {
		return confinedTo(sel, t)
	}
	found := false
	ok := walkSelectors(v, func(sel map[string]any) bool {
		found = true
		return confinedTo(sel, t)
	})
	return ok && found
}

// walkSelectors calls f on every namespaceSelector in v; false when f said
// false for one.
func walkSelectors(v any, f func(map[string]any) bool) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if sel, ok := e.(map[string]any); ok && k == "namespaceSelector" && !f(sel) {
				return false
			}
			if !walkSelectors(e, f) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !walkSelectors(e, f) {
				return false
			}
		}
	}
	return true
}

// fieldValues are the values at the path of keys in obj, through every
// element of a list ("key[]").
func fieldValues(obj any, keys []string) []any {
	if len(keys) == 0 {
		return []any{obj}
	}
	m, ok := obj.(map[string]any)
	if !ok {
		return nil
	}
	key, list := strings.CutSuffix(keys[0], "[]")
	v, ok := m[key]
	if !ok {
		return nil
	}
	if !list {
		return fieldValues(v, keys[1:])
	}
	items, _ := v.([]any)
	var out []any
	for _, item := range items {
		out = append(out, fieldValues(item, keys[1:])...)
	}
	return out
}

// matchConditionsReadback judges stored match conditions: held when each
// list holds the proxy's condition once, as the proxy wrote it for t's
// attacker (not the attempt's "true").
func matchConditionsReadback(t *Target, field string, stored []any) (string, string, error) {
	for _, v := range stored {
		conds, _ := v.([]any)
		var own []string
		for _, c := range conds {
			if m, _ := c.(map[string]any); m["name"] == translate.TenantMatchCondition {
				expr, _ := m["expression"].(string)
				own = append(own, expr)
			}
		}
		if len(own) != 1 || own[0] == "true" || !strings.Contains(own[0], t.Attacker.String()) {
			return "", fmt.Sprintf("%s is stored without the proxy's condition for %s: %v", field, t.Attacker, v), nil
		}
	}
	return LayerProxyConfined, fmt.Sprintf("%s holds the proxy's condition %s", field, translate.TenantMatchCondition), nil
}
