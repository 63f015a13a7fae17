package admissionrules

import (
	"testing"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiserver/pkg/cel/library"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestAddressPredicatesAgreeWithTheProxy: the CEL that zoo-tenant holds an
// endpoint address with (evaluated with the API server's own IP and CIDR
// libraries) accepts exactly what the proxy's check accepts, on every
// spelling of an address; the Service-name expression accepts the
// tenant's own Services in the forms the proxy writes and nothing that
// names another namespace, loopback or an IP.
func TestAddressPredicatesAgreeWithTheProxy(t *testing.T) {
	env, err := celgo.NewEnv(celgo.Variable("v", celgo.StringType), celgo.Variable("variables", celgo.MapType(celgo.StringType, celgo.DynType)),
		ext.Strings(), library.IP(), library.CIDR())
	require.NoError(t, err)
	eval := func(expr, v string) bool {
		ast, iss := env.Compile(expr)
		require.NoError(t, iss.Err(), expr)
		prg, err := env.Program(ast)
		require.NoError(t, err)
		out, _, err := prg.Eval(map[string]any{"v": v, "variables": map[string]any{"tenant": "acme", "prefix": "acme-"}})
		require.NoError(t, err, v)
		return out.Value().(bool)
	}
	for _, ip := range []string{"1.2.3.4", "8.8.8.8", "203.0.113.7", "100.63.255.255", "100.128.0.1", "172.32.0.1", "2001:4860::8888", "2600::1",
		"127.0.0.1", "0.0.0.0", "10.244.0.5", "172.31.255.255", "192.168.1.1", "100.64.0.1", "169.254.169.254", "192.0.0.170", "198.18.0.1",
		"224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:8.8.8.8",
		"64:ff9b::7f00:1", "2002:7f00:1::1", "2001:0:4136:e378::1", "fe80::1%eth0", "2130706433", "0x7f.1", "0177.0.0.1", "127.1", "localhost", ""} {
		assert.Equal(t, translate.PublicUnicast(ip) == nil, eval(publicUnicastPredicate("v"), ip), "%q", ip)
	}
	// The names that hold without asking the authorizer: the tenant's own
	// Services.
	for name, want := range map[string]bool{
		"web.acme-default.svc": true, "web.acme-default.svc.": true, "web.acme-prod.svc.cluster.local": true, "web.acme-prod.svc.cluster.local.": true,
		"": true, "web.default.svc": false, "web.beta-default.svc.cluster.local": false, "kubernetes.default.svc.cluster.local": false,
		"web.acme-.svc": false, "web.acme-default.svc..": false, "web.acme-default.svc.cluster.local.evil.com": false, "127.0.0.1": false,
		"web.acme-default": false, "acme-default.svc": false, "x.web.acme-default.svc": false,
	} {
		assert.Equal(t, want, eval("(v == '' || "+ownServicePredicate("v")+")", name), "%q", name)
	}
}
