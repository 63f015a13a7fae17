package proxy_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statefulSetNaming is a StatefulSet whose volume claim templates name the
// given storage classes.
func statefulSetNaming(name string, classes []string) string {
	var templates []string
	for i, c := range classes {
		templates = append(templates, fmt.Sprintf(
			`{"metadata":{"name":"v%d"},"spec":{"storageClassName":%q,"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`, i, c))
	}
	return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":%q},"spec":{"serviceName":"db",`+
		`"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}},`+
		`"volumeClaimTemplates":[%s]}}`, name, strings.Join(templates, ","))
}

// TestAmplificationIsBounded: one request naming thousands of shared objects
// could make the proxy send thousands of lookups upstream under its own
// identity. Through acme's proxy such an object is refused with 422 (layer:
// the proxy's translator, MaxSharedRefs); an ordinary one is created. The
// upstream itself never looks references up, so the probe has no direct
// counterpart there.
func TestAmplificationIsBounded(t *testing.T) {
	acme := serve(t, "acme")
	c, host := rawClient(t, acme)
	path := host + "/apis/apps/v1/namespaces/default/statefulsets"

	t.Run("an ordinary StatefulSet is created", func(t *testing.T) {
		code, body := do(t, c, "POST", path, nil, statefulSetNaming("few", []string{"standard", "standard", "fast"}))
		require.Equal(t, http.StatusCreated, code, body)
		t.Cleanup(func() { acme.run(t, "", "delete", "statefulset", "few", "--wait=false") })
	})
	for _, n := range []int{65, 5000} {
		t.Run(fmt.Sprintf("%d different classes are refused by the proxy", n), func(t *testing.T) {
			classes := make([]string, n)
			for i := range classes {
				classes[i] = fmt.Sprintf("class-%d", i)
			}
			code, body := do(t, c, "POST", path, nil, statefulSetNaming("many", classes))
			assert.Equal(t, http.StatusUnprocessableEntity, code, body)
			assert.Contains(t, body, `"kind":"Status"`)
			assert.Contains(t, body, "more than 64 different shared objects")
		})
	}
	t.Run("the same class named many times is one lookup and allowed", func(t *testing.T) {
		classes := make([]string, 500)
		for i := range classes {
			classes[i] = "standard"
		}
		code, body := do(t, c, "POST", path, nil, statefulSetNaming("same", classes))
		require.Equal(t, http.StatusCreated, code, body)
		t.Cleanup(func() { acme.run(t, "", "delete", "statefulset", "same", "--wait=false") })
	})
	assert.Empty(t, strings.TrimSpace(admin(t, "get", "statefulsets", "-n", "acme-default", "--field-selector", "metadata.name=many", "-o", "name")),
		"nothing of the refused object reached the upstream")
}
