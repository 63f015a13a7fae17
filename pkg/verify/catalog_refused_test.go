package verify

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestRefusedChecks: every refused reference of the kinds table has an
// attempt; one verify cannot make (a kind without a harmless object, a
// target without a value) fails here, not silently.
func TestRefusedChecks(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range refusedChecks() {
		ids[c.ID] = true
	}
	n := 0
	for _, rule := range translate.Kinds() {
		for _, field := range rule.RefusedFields() {
			n++
			assert.True(t, ids[refusedCheckID(rule.Resource, field)], "the refused field %s of %s has no attempt: give verify a harmless %s (refusedBases) or a value of its target (refusedValue)",
				field, rule.Resource, rule.Resource)
		}
	}
	assert.Len(t, ids, n)
	assert.True(t, ids["refused/services.spec.externalIPs"])
}

// TestRefusedAttempts: each attempt sends its kind's twin with the refused
// field set, as the path names the attacker's own, and nothing else
// changed but what the field excludes.
func TestRefusedAttempts(t *testing.T) {
	for _, c := range refusedChecks() {
		t.Run(c.ID, func(t *testing.T) {
			var sent []*unstructured.Unstructured
			dyn := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
			dyn.PrependReactor("create", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
				sent = append(sent, a.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured))
				return true, nil, nil
			})
			tgt := &Target{Path: PathIdentity, Dynamic: dyn, Namespace: "zooverify1-default", Service: ScratchObject, Prefix: "zooverify1-",
				Owner: map[string]string{translate.TenantLabel: "zooverify1"}}
			require.NoError(t, c.Twin(context.Background(), tgt))
			require.NoError(t, c.Attempt(context.Background(), tgt))
			require.Len(t, sent, 2)
			twin, attempt := sent[0], sent[1]
			assert.Equal(t, twin.GetName(), attempt.GetName())
			if twin.GetNamespace() == "" {
				assert.Contains(t, twin.GetName(), "zooverify1-", "a cluster-scoped object of the attacker's is prefixed (a CRD: its group)")
				assert.Equal(t, "zooverify1", twin.GetLabels()[translate.TenantLabel])
			}
			assert.NotEqual(t, twin.Object, attempt.Object, "the attempt sets nothing")
		})
	}
}

// TestSetField: through lists, making maps, removing the one-of siblings.
func TestSetField(t *testing.T) {
	obj := map[string]any{"webhooks": []any{map[string]any{"clientConfig": map[string]any{"service": map[string]any{"name": "s"}}}}}
	setField(obj, []string{"webhooks[]", "clientConfig", "url"}, "https://x", [][]string{{"service", "url"}})
	assert.Equal(t, map[string]any{"webhooks": []any{map[string]any{"clientConfig": map[string]any{"url": "https://x"}}}}, obj)
	obj = map[string]any{}
	setField(obj, []string{"spec", "externalIPs"}, []any{"192.0.2.10"}, nil)
	assert.Equal(t, map[string]any{"spec": map[string]any{"externalIPs": []any{"192.0.2.10"}}}, obj)
	assert.Equal(t, "url", lastKey("webhooks[].clientConfig.url"))
}
