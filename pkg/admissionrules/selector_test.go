package admissionrules

import (
	"encoding/json"
	"strings"
	"testing"

	celgo "github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// evalValidation evaluates v's expression for a create of obj (JSON) of
// resource in group by tenant acme.
func evalValidation(t *testing.T, v admissionv1.Validation, group, resource, obj string) bool {
	t.Helper()
	env, err := celgo.NewEnv(celgo.Variable("object", celgo.DynType), celgo.Variable("request", celgo.DynType),
		celgo.Variable("variables", celgo.MapType(celgo.StringType, celgo.DynType)))
	require.NoError(t, err)
	ast, iss := env.Compile(v.Expression)
	require.NoError(t, iss.Err())
	prg, err := env.Program(ast)
	require.NoError(t, err)
	var o map[string]any
	require.NoError(t, json.Unmarshal([]byte(obj), &o))
	out, _, err := prg.Eval(map[string]any{
		"object":    o,
		"request":   map[string]any{"resource": map[string]any{"group": group, "resource": resource}, "operation": "CREATE"},
		"variables": map[string]any{"tenant": "acme", "prefix": "acme-", "reqGroup": group, "subres": ""},
	})
	require.NoError(t, err)
	return out.Value().(bool)
}

// TestAffinityValidations: the upstream rule refuses a pod affinity term of
// a tenant that names or selects namespaces outside the tenant, in a pod
// and in a workload's template, and accepts the form the proxy writes.
func TestAffinityValidations(t *testing.T) {
	reason := metav1.StatusReasonForbidden
	byResource := map[string]admissionv1.Validation{}
	for _, v := range affinityValidations(&reason) {
		for _, r := range []string{"pods", "deployments", "cronjobs"} {
			if strings.Contains(v.Expression, `request.resource.resource == "`+r+`"`) {
				byResource[r] = v
			}
		}
	}
	require.Len(t, byResource, 3)
	const req = `{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}`
	term := func(extra string) string { return `{"topologyKey":"h","labelSelector":{}` + extra + `}` }
	cases := []struct {
		name, affinity string
		ok             bool
	}{
		{"no affinity", ``, true},
		{"the pod's own namespace", `"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` + term(``) + `]}`, true},
		{"the tenant's namespaces", `"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` + term(`,"namespaces":["acme-a","acme-b"]`) + `]}`, true},
		{"another tenant's namespace", `"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` + term(`,"namespaces":["acme-a","beta-default"]`) + `]}`, false},
		{"every namespace", `"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` + term(`,"namespaceSelector":{}`) + `]}`, false},
		{"confined in matchExpressions", `"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` +
			term(`,"namespaceSelector":{"matchExpressions":[{"key":"x","operator":"DoesNotExist"},`+req+`]}`) + `]}`, true},
		{"confined in matchLabels", `"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` +
			term(`,"namespaceSelector":{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"acme"}}`) + `]}`, true},
		{"another tenant's label", `"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` +
			term(`,"namespaceSelector":{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"beta"}}`) + `]}`, false},
		{"In two tenants", `"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` +
			term(`,"namespaceSelector":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme","beta"]}]}`) + `]}`, false},
		{"NotIn the other tenants", `"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` +
			term(`,"namespaceSelector":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"NotIn","values":["beta"]}]}`) + `]}`, false},
		{"a second term unconfined", `"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` +
			term(`,"namespaceSelector":{"matchExpressions":[`+req+`]}`) + `,` + term(`,"namespaceSelector":{}`) + `]}`, false},
		{"preferred every namespace", `"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":` +
			term(`,"namespaceSelector":{}`) + `}]}`, false},
		{"preferred anti-affinity in another namespace", `"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":` +
			term(`,"namespaces":["kube-system"]`) + `}]}`, false},
		{"preferred confined", `"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":` +
			term(`,"namespaces":["acme-x"],"namespaceSelector":{"matchExpressions":[`+req+`]}`) + `}]}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := `{"containers":[]` + map[bool]string{true: `,"affinity":{` + tc.affinity + `}`, false: ``}[tc.affinity != ""] + `}`
			assert.Equal(t, tc.ok, evalValidation(t, byResource["pods"], "", "pods", `{"spec":`+spec+`}`), "pod")
			assert.Equal(t, tc.ok, evalValidation(t, byResource["deployments"], "apps", "deployments", `{"spec":{"template":{"spec":`+spec+`}}}`), "deployment")
			assert.Equal(t, tc.ok, evalValidation(t, byResource["cronjobs"], "batch", "cronjobs",
				`{"spec":{"jobTemplate":{"spec":{"template":{"spec":`+spec+`}}}}}`), "cronjob")
		})
	}
	t.Run("other resources are not judged", func(t *testing.T) {
		assert.True(t, evalValidation(t, byResource["pods"], "", "configmaps", `{"spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[`+
			term(`,"namespaceSelector":{}`)+`]}}}}`))
	})
}
