package admissionrules

import (
	"strings"
	"testing"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestIngressHostCELMatchesTheProxy: the upstream rule of a host
// (ingressHostAllowed, with the patterns as zoo-tenant-ingress-hosts splits
// them from the quota's annotation) answers as the proxy's
// translate.IngressHostAllowed does, for hosts and patterns a tenant tries.
func TestIngressHostCELMatchesTheProxy(t *testing.T) {
	env, err := celgo.NewEnv(celgo.Variable("h", celgo.StringType), celgo.Variable("annotation", celgo.StringType), ext.Strings())
	require.NoError(t, err)
	expr := "[annotation.split(',').filter(p, p != '')].all(patterns, " +
		strings.ReplaceAll(ingressHostAllowed("h"), "variables.patterns", "patterns") + ")"
	ast, iss := env.Compile(expr)
	require.NoError(t, iss.Err())
	prg, err := env.Program(ast)
	require.NoError(t, err)
	hosts := []string{"", "shop.acme.io", "a.apps.acme.io", "*.apps.acme.io", "apps.acme.io", "a.b.apps.acme.io",
		"shop.acme.io.evil.com", "*.acme.io", "beta.example.com", "x", "*"}
	for _, patterns := range [][]string{nil, {"shop.acme.io", "*.apps.acme.io"}, {translate.AnyIngressHost}, {"*.acme.io"}} {
		for _, h := range hosts {
			out, _, err := prg.Eval(map[string]any{"h": h, "annotation": strings.Join(patterns, ",")})
			require.NoError(t, err)
			assert.Equal(t, translate.IngressHostAllowed(patterns, h), out.Value(), "host %q, patterns %v", h, patterns)
		}
	}
}
