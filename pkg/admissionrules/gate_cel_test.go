package admissionrules

import (
	"testing"

	celgo "github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiserver/pkg/cel/library"
)

// TestQuotaInForce evaluates the gate's quota rule with the API server's
// quantity library: the gate is open while quota admission enforces no
// more than the quota's spec (in force, or raised and still held by the
// old, lower limit), and closed while a limit is new or lowered and the
// quota controller has not caught up.
func TestQuotaInForce(t *testing.T) {
	env, err := celgo.NewEnv(celgo.Variable("params", celgo.DynType), library.Quantity())
	require.NoError(t, err)
	ast, iss := env.Compile(quotaInForce)
	require.NoError(t, iss.Err())
	prg, err := env.Program(ast)
	require.NoError(t, err)
	quota := func(spec, status map[string]any) map[string]any {
		q := map[string]any{"spec": map[string]any{"hard": spec}}
		if status != nil {
			q["status"] = map[string]any{"hard": status}
		}
		return q
	}
	for _, tc := range []struct {
		name   string
		params map[string]any
		open   bool
	}{
		{"in force", quota(map[string]any{"pods": "4", "requests.cpu": "2"}, map[string]any{"pods": "4", "requests.cpu": "2"}), true},
		{"in force, another spelling", quota(map[string]any{"requests.cpu": "2"}, map[string]any{"requests.cpu": "2000m"}), true},
		{"raised, the old limit holds", quota(map[string]any{"pods": "6"}, map[string]any{"pods": "4"}), true},
		{"lowered, the old limit would admit more", quota(map[string]any{"pods": "2"}, map[string]any{"pods": "4"}), false},
		{"a new limit not yet in force", quota(map[string]any{"pods": "2", "secrets": "3"}, map[string]any{"pods": "2"}), false},
		{"a new quota", quota(map[string]any{"pods": "2"}, nil), false},
		{"a quota without limits", map[string]any{"spec": map[string]any{}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := prg.Eval(map[string]any{"params": tc.params})
			require.NoError(t, err)
			assert.Equal(t, tc.open, out.Value())
		})
	}
}
