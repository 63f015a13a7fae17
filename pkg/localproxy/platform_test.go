package localproxy

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func TestPlatformLookup(t *testing.T) {
	p, up := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/namespaces/acme-prod":
			fmt.Fprint(w, `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":"a,b"}}}`)
		case r.URL.Path == "/apis/zoo.kubectl-zoo.io/v1alpha1/tenants/acme":
			fmt.Fprint(w, `{"metadata":{"name":"acme","annotations":{"zoo.kubectl-zoo.io/pod-security":"privileged"}},"spec":{"admins":["admin"],"policy":{"podSecurity":"restricted","priorityClasses":["gold"]}}}`)
		case r.URL.Path == "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical":
			fmt.Fprint(w, `{"metadata":{"name":"system-node-critical"},"value":2000001000}`)
		case r.URL.Path == "/api/v1/namespaces/acme-broken":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"kind":"Status"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","code":404}`)
		}
	})
	l := newPlatformLookup(p)
	count := func(prefix string) int {
		up.mu.Lock()
		defer up.mu.Unlock()
		n := 0
		for _, r := range up.requests {
			if strings.HasPrefix(r.URL.Path, prefix) {
				n++
			}
		}
		return n
	}

	t.Run("current metadata, read as the tenant", func(t *testing.T) {
		md, found, err := l.CurrentMetadata("/api/v1/namespaces/acme-prod")
		require.NoError(t, err)
		require.True(t, found)
		assert.Equal(t, "baseline", md.Labels[translate.PodSecurityEnforce])
		assert.Equal(t, "zoo:acme:admin", up.last().Header.Get("Impersonate-User"))
		_, found, err = l.CurrentMetadata("/api/v1/namespaces/acme-gone")
		require.NoError(t, err)
		assert.False(t, found)
		_, _, err = l.CurrentMetadata("/api/v1/namespaces/acme-broken")
		require.Error(t, err, "a failed read must refuse the write, never let it through unjudged")
	})
	t.Run("the level comes from the tenant record's policy, read each time", func(t *testing.T) {
		for range 3 {
			level, err := l.PodSecurityLevel()
			require.NoError(t, err)
			assert.Equal(t, "restricted", level, "spec.policy wins over the legacy annotation")
		}
		assert.Equal(t, 3, count("/apis/zoo.kubectl-zoo.io/"), "a policy set holds for the next namespace at once")
	})
	t.Run("priority class values are cached, also when absent", func(t *testing.T) {
		for range 3 {
			v, found, err := l.PriorityClassValue("system-node-critical")
			require.NoError(t, err)
			assert.True(t, found)
			assert.EqualValues(t, 2000001000, v)
			_, found, err = l.PriorityClassValue("nope")
			require.NoError(t, err)
			assert.False(t, found)
		}
		assert.Equal(t, 2, count("/apis/scheduling.k8s.io/"))
	})
	t.Run("the cache is bounded", func(t *testing.T) {
		for i := range maxCachedClasses + 10 {
			_, _, err := l.PriorityClassValue(fmt.Sprintf("c%d", i))
			require.NoError(t, err)
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		assert.LessOrEqual(t, len(l.classes), maxCachedClasses)
	})
	t.Run("the namespace's allowed classes", func(t *testing.T) {
		allowed, err := l.AllowedPriorityClasses("acme-prod")
		require.NoError(t, err)
		assert.Equal(t, []string{"gold", "a", "b"}, allowed, "the policy's classes and the namespace's")
		allowed, err = l.AllowedPriorityClasses("acme-gone")
		require.NoError(t, err)
		assert.Equal(t, []string{"gold"}, allowed)
	})
}
