package verify

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestQuotaCategories: CPU, memory and storage are FNS-1's, object counts
// FNS-2's.
func TestQuotaCategories(t *testing.T) {
	q := corev1.ResourceList{"requests.cpu": resource.MustParse("1"), "limits.memory": resource.MustParse("1Gi"), "requests.storage": resource.MustParse("1Gi"),
		"pods": resource.MustParse("10"), "count/deployments.apps": resource.MustParse("5"), "services.nodeports": resource.MustParse("0")}
	assert.Equal(t, []string{"limits.memory", "requests.cpu", "requests.storage"}, quotaKeys(q, computeQuota))
	assert.Equal(t, []string{"count/deployments.apps", "pods", "services.nodeports"}, quotaKeys(q, objectQuota))
}

// TestQuotaCheck: not applicable without the policy's quota of the
// category; held when the namespace's quota limits every resource of it the
// policy sets, escaped when one is missing.
func TestQuotaCheck(t *testing.T) {
	pol := policy.Policy{Quota: corev1.ResourceList{"requests.cpu": resource.MustParse("2"), "pods": resource.MustParse("10")}}
	for _, tc := range []struct {
		name string
		hard map[string]any
		want Status
	}{
		{"configured", map[string]any{"requests.cpu": "1", "pods": "5"}, Held},
		{"missing", map[string]any{"pods": "5"}, Escaped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ResourceQuota",
				"metadata": map[string]any{"name": platformobj.PolicyObjectName, "namespace": "zooverify1-default"}, "spec": map[string]any{"hard": tc.hard}}}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{gvrQuota: "ResourceQuotaList"}, q)
			tgt := &Target{Path: PathIdentity, Upstream: dyn, Attacker: translate.MustTenant("zooverify1")}
			c := quotaCheck("MTB-PL1-CC-FNS-1", "t", computeQuota, "CPU")
			assert.NotEmpty(t, c.NotApplicable(policy.Default()))
			require.Empty(t, c.NotApplicable(pol))
			res := RunCatalog(context.Background(), []Check{c}, pol, []*Target{tgt}, nil)
			require.Len(t, res, 1)
			assert.Equal(t, tc.want, res[0].Status, res[0].Detail)
		})
	}
}

// TestJudgePromise: done is kept; refused or broken is escaped; anything
// else could not run.
func TestJudgePromise(t *testing.T) {
	gr := schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}
	for _, tc := range []struct {
		name string
		err  error
		want Status
	}{
		{"done", nil, Held},
		{"refused by RBAC", apierrors.NewForbidden(gr, "x", errors.New(`User "u" cannot create resource "rolebindings"`)), Escaped},
		{"broken", fmt.Errorf("%w: no quota", errBroken), Escaped},
		{"unreachable", errors.New("connection refused"), CouldNotRun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, _ := judgePromise(tc.err, PathIdentity)
			assert.Equal(t, tc.want, status)
		})
	}
}
