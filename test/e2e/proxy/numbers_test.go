package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigInt is 2^53+1, the first integer a float64 cannot hold.
const bigInt = "9007199254740993"

const counterCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: counters.num.example.com}
spec:
  group: num.example.com
  scope: Namespaced
  names: {plural: counters, singular: counter, kind: Counter}
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Big, type: integer, jsonPath: .spec.big}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              big: {type: integer, format: int64}
`

func counter(ns string) string {
	return "apiVersion: num.example.com/v1\nkind: Counter\nmetadata: {name: c, namespace: " + ns + "}\nspec: {big: " + bigInt + "}\n"
}

// TestNumbersKeptExact: an int64 above 2^53 reads back exactly through the
// proxy on every path: get, list in one namespace, list across namespaces
// (fanned out), as a Table, and a watch across namespaces.
func TestNumbersKeptExact(t *testing.T) {
	acme := serve(t, "acme")
	acme.apply(t, counterCRD)
	t.Cleanup(func() { acme.run(t, "", "delete", "crd", "counters.num.example.com", "--wait=false") })
	acme.k(t, "wait", "crd/counters.num.example.com", "--for=condition=Established", "--timeout=60s")
	acme.k(t, "create", "namespace", "numbers")
	t.Cleanup(func() { acme.run(t, "", "delete", "namespace", "numbers", "--wait=false") })
	for _, ns := range []string{"default", "numbers"} {
		require.Eventually(t, func() bool { return acme.run(t, counter(ns), "apply", "-f", "-").Err == nil },
			30*time.Second, 500*time.Millisecond, "the Counter could not be created in %s", ns)
	}
	require.Contains(t, admin(t, "get", "--raw", "/apis/acme-num.example.com/v1/namespaces/acme-default/counters/c"), `"big":`+bigInt,
		"the upstream stores the exact value")

	c, host := rawClient(t, acme)
	table := map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io, application/json"}
	for _, tc := range []struct {
		name, path string
		header     map[string]string
		count      int
	}{
		{"get", "/apis/num.example.com/v1/namespaces/default/counters/c", nil, 1},
		{"list in one namespace", "/apis/num.example.com/v1/namespaces/default/counters", nil, 1},
		{"list across namespaces", "/apis/num.example.com/v1/counters", nil, 2},
		{"paged list across namespaces", "/apis/num.example.com/v1/counters?limit=1", nil, 1},
		{"table across namespaces", "/apis/num.example.com/v1/counters", table, 2}, // one cell per row
		{"watch across namespaces", "/apis/num.example.com/v1/counters?watch=true&resourceVersion=0&timeoutSeconds=3", nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := do(t, c, "GET", host+tc.path, tc.header, "")
			require.Equal(t, 200, code, body)
			assert.NotContains(t, body, "9007199254740992", "rounded through float64")
			assert.NotContains(t, body, "e+15")
			assert.GreaterOrEqual(t, strings.Count(body, bigInt), tc.count, body)
		})
	}
}
