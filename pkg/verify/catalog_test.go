package verify

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestCatalogMTB: the Multi-Tenancy Benchmarks' checks the catalog maps
// (profile level 1, and level 2's role privilege escalation and
// self-service operations), by published
// ID (MTB-PL1-BC-HI-1 is published for both host
// path volumes and NodePort Services).
func TestCatalogMTB(t *testing.T) {
	var ids []string
	for _, c := range Catalog() {
		if c.Class == ClassMTB {
			ids = append(ids, c.ID)
		}
	}
	assert.ElementsMatch(t, []string{"MTB-PL1-CC-CPI-1", "MTB-PL1-CC-TI-2", "MTB-PL1-CC-TI-1", "MTB-PL1-BC-CPI-2",
		"MTB-PL1-BC-CPI-5", "MTB-PL1-BC-CPI-6", "MTB-PL1-BC-CPI-3", "MTB-PL1-BC-CPI-4",
		"MTB-PL1-BC-HI-1", "MTB-PL1-BC-HI-3", "MTB-PL1-BC-HI-4", "MTB-PL1-BC-HI-5", "MTB-PL1-BC-HI-1", "MTB-PL1-CC-DI-1", "MTB-PL2-CC-TI-1",
		"MTB-PL1-CC-FNS-1", "MTB-PL1-CC-FNS-2", "MTB-PL2-BC-OPS-3", "MTB-PL2-BC-OPS-4"}, ids)
}

// TestCatalogGenerated: a check for every platform domain (a Service's
// key in it is the platform's) and for every read-only status of a kind
// verify has an object of; IDs are unique but for the benchmarks' own
// duplicate; every check attempts something or never applies.
func TestCatalogGenerated(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Catalog() {
		if c.ID != "MTB-PL1-BC-HI-1" {
			assert.False(t, seen[c.ID], "%s twice", c.ID)
		}
		seen[c.ID] = true
		if c.Attempt == nil {
			require.NotNil(t, c.NotApplicable, c.ID)
			assert.NotEmpty(t, c.NotApplicable(policy.Default()), "%s attempts nothing yet applies", c.ID)
		}
	}
	for _, d := range translate.PlatformDomains() {
		assert.True(t, seen["metadata/"+d.Domain], "no check of the domain %s", d.Domain)
	}
	assert.True(t, seen["subresource/services/status"])
	assert.True(t, seen["subresource/resourcequotas/status"])
	assert.True(t, seen["subresource/services/proxy"])
	assert.True(t, seen["amplification/shared-references"])
	assert.True(t, seen["subresource/namespaces/status"])
	assert.True(t, seen["subresource/persistentvolumeclaims/status"])
	assert.True(t, seen["subresource/nodes/status"])
	assert.False(t, seen["subresource/nodes/proxy"], "a GET of a node's proxy would reach its kubelet")
}

// TestPodChecksApply: a pod check applies from its Pod Security level up,
// and says why not below it.
func TestPodChecksApply(t *testing.T) {
	byID := map[string]Check{}
	for _, c := range podChecks() {
		byID[c.ID] = c
	}
	for _, tc := range []struct {
		id, level string
		applies   bool
	}{
		{"MTB-PL1-BC-CPI-5", "privileged", false},
		{"MTB-PL1-BC-CPI-5", "baseline", true},
		{"MTB-PL1-BC-CPI-5", "restricted", true},
		{"MTB-PL1-BC-CPI-6", "baseline", false},
		{"MTB-PL1-BC-CPI-6", "restricted", true},
		{"MTB-PL1-BC-CPI-4", "baseline", false},
		{"MTB-PL1-BC-HI-4", "baseline", true},
	} {
		t.Run(tc.id+"/"+tc.level, func(t *testing.T) {
			why := byID[tc.id].NotApplicable(policy.Policy{PodSecurity: tc.level})
			assert.Equal(t, tc.applies, why == "", why)
		})
	}
}

// TestDialed: an answer from the backend the API server dialled (a Service
// without endpoints: 503) is an admitted connect; a refusal is not.
func TestDialed(t *testing.T) {
	gr := schema.GroupResource{Resource: "services"}
	for _, tc := range []struct {
		name     string
		err      error
		admitted bool
	}{
		{"answered", nil, true},
		{"no endpoints", apierrors.NewServiceUnavailable("no endpoints available for service"), true},
		{"dial failed", apierrors.NewInternalError(errors.New("dial tcp: connection refused")), true},
		{"refused", apierrors.NewForbidden(gr, "s", errors.New("no")), false},
		{"not found", apierrors.NewNotFound(gr, "s"), false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.admitted, dialed(tc.err) == nil) })
	}
}
