package verify

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// outsideNotAttempted are the kinds of the table with references that can
// name something outside the tenant that verify has no harmless object of
// yet (docs/verify.md, "What is left"). A kind that gains one must leave
// this list; a new kind or reference without an attempt fails
// TestOutsideChecks.
var outsideNotAttempted = []string{
	"clusterrolebindings.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
	"customresourcedefinitions.apiextensions.k8s.io", // spec.group: the attempt would have to rename the CRD too
	"endpoints", "endpointslices.discovery.k8s.io", // targetRef: admitted directly upstream, see endpointValue
	"events", "events.events.k8s.io", // the API server refuses an involvedObject (regarding) of another namespace itself
	"ingressclasses.networking.k8s.io", // spec.parameters.apiGroup: an object reference, as targetRef
	"ingresses.networking.k8s.io", "persistentvolumes",
	// Tenants may not write these at all (AccessNone; not served by default
	// at v1.34): no harmless twin.
	"mutatingadmissionpolicies.admissionregistration.k8s.io", "mutatingadmissionpolicybindings.admissionregistration.k8s.io",
}

// TestOutsideChecks: every reference of the kinds table that can name
// something outside the tenant has an attempt, generated or a check of its
// own (outsideElsewhere), but for reviews (they store nothing) and the
// kinds of outsideNotAttempted; every kind with a pod spec has its
// references attempted.
func TestOutsideChecks(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range Catalog() {
		ids[c.ID] = true
	}
	missing := map[string]bool{}
	for _, rule := range translate.Kinds() {
		for _, ref := range rule.Refs {
			key := outsideKey(rule.Resource, ref.Field)
			if !ref.Target.NamesOutside() || ref.Target.Refused() || rule.Treatment == translate.Virtual || strings.HasSuffix(rule.Resource.Resource, "reviews") {
				continue
			}
			if id, ok := outsideElsewhere[key]; ok {
				assert.True(t, ids[id], "%s names the check %s, which the catalog does not have", key, id)
				continue
			}
			if !ids[outsideCheckID(rule.Resource, ref.Field)] {
				missing[rule.Resource.String()] = true
			}
		}
	}
	for gr := range podSpecPaths() {
		assert.False(t, missing[gr.String()], "the kind %s has a pod spec in the kinds table but no harmless object in verify (outsideBases)", gr)
	}
	var kinds []string
	for k := range missing {
		kinds = append(kinds, k)
	}
	assert.ElementsMatch(t, outsideNotAttempted, kinds, "a reference that can name something outside the tenant has no attempt: give verify a harmless object of its kind (outsideBases) or a value of its target (outsideValue)")
	assert.True(t, ids["outside/pods.spec.affinity"])
	assert.True(t, ids["outside/cronjobs.batch.spec.jobTemplate.spec.template.spec.priorityClassName"])
	assert.True(t, ids["outside/flowschemas.flowcontrol.apiserver.k8s.io.spec.rules[].subjects/platform"], "the platform's identities")
}

// TestOutsideAttempts: each attempt sends its kind's twin, in the
// attacker's namespace, with the reference set to the victim's (or every
// namespace), which the twin does not name; the twin is sent once per
// kind and path.
func TestOutsideAttempts(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range outsideChecks() {
		ids[c.ID] = true
	}
	for _, rule := range translate.Kinds() {
		for _, ref := range rule.Refs {
		variants:
			for _, id := range []string{outsideCheckID(rule.Resource, ref.Field), outsideCheckID(rule.Resource, ref.Field) + "/platform"} {
				if !ids[id] {
					continue variants
				}
				t.Run(id, func(t *testing.T) {
					byID := map[string]Check{}
					for _, c := range outsideChecks() { // a twin cache of its own
						byID[c.ID] = c
					}
					c := byID[id]
					var sent []*unstructured.Unstructured
					dyn := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
					dyn.PrependReactor("create", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
						sent = append(sent, a.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured))
						return true, nil, nil
					})
					tgt := &Target{Path: PathIdentity, Dynamic: dyn, Namespace: "zooverify1-default", Write: dryRun,
						Attacker: translate.MustTenant("zooverify1"), Victim: translate.MustTenant("zooverify2")}
					require.NoError(t, c.Twin(context.Background(), tgt))
					require.NoError(t, c.Attempt(context.Background(), tgt))
					require.Len(t, sent, 2)
					twin, attempt := sent[0], sent[1]
					ns := "zooverify1-default"
					if rule.Treatment != translate.Namespaced { // the attacker's own cluster-scoped object
						ns = ""
					}
					assert.Equal(t, ns, attempt.GetNamespace())
					assert.Equal(t, ns, twin.GetNamespace())
					require.NoError(t, c.Twin(context.Background(), tgt))
					assert.Len(t, sent, 2, "the twin of a kind is sent once per path")
					keys := outsideKeys(ref.Field)
					values := fieldValues(attempt.Object, keys)
					require.NotEmpty(t, values, "the attempt sets nothing at %s", ref.Field)
					for _, v := range values {
						assert.False(t, slices.ContainsFunc(fieldValues(twin.Object, keys), func(w any) bool { return reflect.DeepEqual(v, w) }),
							"the twin names %v too", v)
					}
				})
			}
		}
	}
}

// TestOutsideReadback: held only when what is stored no longer names the
// victim's, a selector only when confined to the attacker's namespaces, a
// value that is checked and not translated never.
func TestOutsideReadback(t *testing.T) {
	tgt := &Target{Attacker: translate.MustTenant("zooverify1")}
	confined := map[string]any{"matchExpressions": []any{map[string]any{"key": translate.TenantLabel, "operator": "In", "values": []any{"zooverify1"}}}}
	for _, tc := range []struct {
		name         string
		target       translate.Target
		field        string
		stored, sent []any
		held         bool
	}{
		{"a name prefixed", translate.TargetOwned, "spec.volumeName", []any{"zooverify1-zooverify2-data"}, []any{"zooverify2-data"}, true},
		{"a name as sent", translate.TargetOwned, "spec.volumeName", []any{"zooverify2-data"}, []any{"zooverify2-data"}, false},
		{"a selector confined", translate.TargetSelector, "spec.ingress[].from[].namespaceSelector", []any{confined}, []any{map[string]any{}}, true},
		{"a selector not confined", translate.TargetSelector, "spec.ingress[].from[].namespaceSelector",
			[]any{map[string]any{"matchLabels": map[string]any{"x": "y"}}}, []any{map[string]any{}}, false},
		{"an affinity confined", translate.TargetSelector, "spec.affinity",
			[]any{map[string]any{"podAffinity": map[string]any{"namespaceSelector": confined}}}, []any{everyNamespaceAffinity()}, true},
		{"an affinity as sent", translate.TargetSelector, "spec.affinity", []any{everyNamespaceAffinity()}, []any{everyNamespaceAffinity()}, false},
		{"a priority capped", translate.TargetPlatform, "value", []any{int64(0)}, []any{int64(1000000000)}, true},
		{"a priority as sent", translate.TargetPlatform, "value", []any{int64(1000000000)}, []any{int64(1000000000)}, false},
		{"match conditions with the proxy's", translate.TargetSelector, "webhooks[].matchConditions",
			[]any{[]any{map[string]any{"name": translate.TenantMatchCondition, "expression": "request.name.startsWith('zooverify1-')"}}}, []any{[]any{}}, true},
		{"match conditions as sent", translate.TargetSelector, "webhooks[].matchConditions",
			[]any{[]any{map[string]any{"name": translate.TenantMatchCondition, "expression": "true"}}}, []any{[]any{}}, false},
		{"storage stored, defaulted", translate.TargetStorage, "spec.volumes[].nfs",
			[]any{map[string]any{"server": "x", "path": "/", "readOnly": false}}, []any{map[string]any{"server": "x", "path": "/"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			layer, detail, err := outsideReadback(tgt, translate.Ref{Field: tc.field, Target: tc.target}, tc.stored, tc.sent)
			require.NoError(t, err)
			assert.Equal(t, tc.held, layer != "", detail)
		})
	}
	_, _, err := outsideReadback(tgt, translate.Ref{Field: "spec.volumeName", Target: translate.TargetOwned}, nil, []any{"x"})
	assert.Error(t, err, "a field not stored is no judgement")
}

// TestOutsideNotApplicable: a volume source the policy allows is not
// attempted; claim templates and NetworkPolicies are harmless upstream.
func TestOutsideNotApplicable(t *testing.T) {
	byID := map[string]Check{}
	for _, c := range outsideChecks() {
		byID[c.ID] = c
	}
	nfs := byID["outside/pods.spec.volumes[].nfs"]
	require.NotNil(t, nfs.NotApplicable)
	assert.Empty(t, nfs.NotApplicable(policy.Default()))
	assert.NotEmpty(t, nfs.NotApplicable(policy.Policy{VolumeSources: []string{"nfs"}}))
	assert.NotEmpty(t, byID["outside/pods.spec.volumes[].ephemeral.volumeClaimTemplate.spec.storageClassName"].DirectHarmless)
	assert.NotEmpty(t, byID["outside/networkpolicies.networking.k8s.io.spec.ingress[].from[].namespaceSelector"].DirectHarmless)
	assert.Empty(t, byID["outside/pods.spec.affinity"].DirectHarmless)
	assert.True(t, byID["outside/pods.spec.priorityClassName"].Scratch, "the victim's class is verify's scratch object")
}

// TestSetOutside: an empty list gets one element to set the field in.
func TestSetOutside(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{}}
	setOutside(obj, strings.Split("spec.volumes[].ephemeral.volumeClaimTemplate.spec.volumeName", "."), "v")
	assert.Equal(t, []any{"v"}, fieldValues(obj, strings.Split("spec.volumes[].ephemeral.volumeClaimTemplate.spec.volumeName", ".")))
	assert.Equal(t, []any{[]any{"ReadWriteOnce"}}, fieldValues(obj, strings.Split("spec.volumes[].ephemeral.volumeClaimTemplate.spec.accessModes", ".")))
	obj = map[string]any{"spec": map[string]any{}}
	setOutside(obj, strings.Split("spec.ingress[].from[].namespaceSelector", "."), map[string]any{})
	assert.Equal(t, []any{map[string]any{}}, fieldValues(obj, strings.Split("spec.ingress[].from[].namespaceSelector", ".")))
}

// TestOutsideReadbackReads: the read back reads, as the platform admin,
// the object the attempt wrote through serve in the attacker's namespace,
// and judges the field stored there: held when the proxy prefixed the
// victim's namespace in it, escaped when it is stored as sent.
func TestOutsideReadbackReads(t *testing.T) {
	const id = "outside/services.spec.externalName"
	var c Check
	for _, o := range outsideChecks() {
		if o.ID == id {
			c = o
		}
	}
	require.NotNil(t, c.Readback, id)
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "services"}
	for _, tc := range []struct {
		stored string
		layer  string
	}{
		{"zoo-verify.zooverify1-zooverify2-default.svc.cluster.local", LayerProxyNames},
		{"zoo-verify.zooverify2-default.svc.cluster.local", ""},
	} {
		t.Run(tc.stored, func(t *testing.T) {
			svc := object("v1", "Service", "zooverify1-default", outsideName(id)+"-real", nil, map[string]any{
				"spec": map[string]any{"type": "ExternalName", "externalName": tc.stored}})
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ServiceList"}, svc)
			tgt := &Target{Path: PathServe, Namespace: "default", Upstream: dyn, Write: metav1.CreateOptions{}, VictimNamespace: "zooverify2-default",
				Attacker: translate.MustTenant("zooverify1"), Victim: translate.MustTenant("zooverify2")}
			layer, detail, err := c.Readback(context.Background(), tgt)
			require.NoError(t, err)
			assert.Equal(t, tc.layer, layer, detail)
			_, err = dyn.Resource(gvr).Namespace("zooverify1-default").Get(context.Background(), svc.GetName(), metav1.GetOptions{})
			assert.True(t, apierrors.IsNotFound(err), "the attempt's object is deleted once read back: %v", err)
		})
	}
}
