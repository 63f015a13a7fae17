package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestNamespaceListFromIndex: `kubectl zoo serve` answers the tenant's
// namespace lists from its watch of the tenant's namespaces. The answer is
// the one the upstream list gives (a list the index cannot answer, here
// with a field selector that selects everything, goes upstream), in every
// shape kubectl and client-go ask for; it holds the tenant's namespaces
// only, even against namespaces the platform made with the tenant's prefix
// or label; a client reads its own creates and deletes at once; an informer
// of namespaces lists and watches through it; and a tenant user who may
// not list namespaces upstream is refused as before.
func TestNamespaceListFromIndex(t *testing.T) {
	tenants(t)
	acme := serve(t, "acme")
	cs := clientFor(t, acme)
	ctx := t.Context()
	for _, ns := range []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "nsx-a", Labels: map[string]string{"team": "x"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "nsx-b"}},
	} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	// The platform's namespaces with acme's prefix: beta's label, none.
	admin(t, "create", "namespace", "acme-sneaky")
	admin(t, "label", "namespace", "acme-sneaky", translate.TenantLabel+"=beta")
	admin(t, "create", "namespace", "acme-plain")

	t.Run("as the upstream answers", func(t *testing.T) {
		for _, tc := range []struct{ name, accept, query string }{
			{"json", "application/json", ""},
			{"kubectl's Table", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", ""},
			{"Table with objects", "application/json;as=Table;v=v1;g=meta.k8s.io", "includeObject=Object"},
			{"Table without objects (rows keep their metadata)", "application/json;as=Table;v=v1;g=meta.k8s.io", "includeObject=None"},
			{"v1beta1 Table", "application/json;as=Table;v=v1beta1;g=meta.k8s.io", ""},
			{"label selector", "application/json", "labelSelector=team%3Dx"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				indexed, ct := namespacesAs(t, cs, tc.accept, tc.query)
				upstreamQuery := "fieldSelector=metadata.name%21%3Dnone-such"
				if tc.query != "" {
					upstreamQuery += "&" + tc.query
				}
				upstream, upstreamCT := namespacesAs(t, cs, tc.accept, upstreamQuery)
				assert.Equal(t, upstreamCT, ct)
				assert.Equal(t, upstream, indexed)
				out, _ := json.Marshal(indexed)
				for _, name := range []string{"sneaky", "plain", "acme-", "beta-"} {
					assert.NotContains(t, string(out), name)
				}
				assert.Contains(t, string(out), "nsx-a")
				if tc.query != "labelSelector=team%3Dx" {
					assert.Contains(t, string(out), "nsx-b")
				}
			})
		}
	})

	t.Run("reads its own writes", func(t *testing.T) {
		for i := range 10 {
			name := fmt.Sprintf("ryw-%d", i)
			_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			require.NoError(t, err)
			list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			phase, found := namespacePhase(list, name)
			require.True(t, found, "a list right after the create misses %s", name)
			assert.Equal(t, corev1.NamespaceActive, phase)
			require.NoError(t, cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}))
			list, err = cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			if phase, found := namespacePhase(list, name); found {
				assert.Equal(t, corev1.NamespaceTerminating, phase, "a list right after the delete shows %s still active", name)
			}
		}
	})

	t.Run("an informer of namespaces", func(t *testing.T) {
		seen := &namespaceEvents{}
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().Namespaces().Informer()
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen.add})
		require.NoError(t, err)
		ictx, cancel := context.WithCancel(ctx)
		defer cancel()
		factory.Start(ictx.Done())
		require.True(t, cache.WaitForCacheSync(ictx.Done(), inf.HasSynced))
		assert.True(t, seen.has("nsx-a"))
		assert.False(t, seen.has("sneaky") || seen.has("acme-sneaky"))
		acme.k(t, "create", "namespace", "nsx-watched")
		require.Eventually(t, func() bool { return seen.has("nsx-watched") }, 30*time.Second, 50*time.Millisecond,
			"the informer never saw the new namespace; saw %v", seen.all())
	})

	t.Run("refused to a user who may not list namespaces", func(t *testing.T) {
		dev := serve(t, "acme", "--user", "dev")
		_, err := clientFor(t, dev).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		require.Error(t, err)
		assert.True(t, apierrors.IsForbidden(err), "%v", err)
		res := dev.run(t, "", "get", "namespaces")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "Forbidden")
		assert.NotContains(t, res.Stdout, "nsx-a")
	})

	for _, name := range []string{"nsx-a", "nsx-b", "nsx-watched"} {
		_ = cs.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), name, metav1.DeleteOptions{})
	}
	admin(t, "delete", "namespace", "acme-sneaky", "acme-plain", "--wait=false")
}

// namespacesAs lists the namespaces through the proxy with accept and the
// raw query, and returns the answer decoded, without its resourceVersion
// (the index's and the upstream's differ) and with every Table row's age
// blanked (the two answers are a second apart), and its Content-Type.
func namespacesAs(t *testing.T, cs kubernetes.Interface, accept, query string) (map[string]any, string) {
	t.Helper()
	req := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces").SetHeader("Accept", accept)
	params, err := url.ParseQuery(query)
	require.NoError(t, err)
	for k, vs := range params {
		for _, v := range vs {
			req.Param(k, v)
		}
	}
	res := req.Do(t.Context())
	body, err := res.Raw()
	require.NoError(t, err)
	var ct string
	res.ContentType(&ct)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(body, &doc), string(body))
	meta, _ := doc["metadata"].(map[string]any)
	require.NotEmpty(t, meta["resourceVersion"])
	delete(meta, "resourceVersion")
	rows, _ := doc["rows"].([]any)
	for _, r := range rows {
		cells := r.(map[string]any)["cells"].([]any)
		require.NotEmpty(t, cells[2], "age")
		cells[2] = ""
	}
	return doc, ct
}

func namespacePhase(list *corev1.NamespaceList, name string) (corev1.NamespacePhase, bool) {
	for _, ns := range list.Items {
		if ns.Name == name {
			return ns.Status.Phase, true
		}
	}
	return "", false
}

// namespaceEvents collects the names of namespaces an informer added.
type namespaceEvents struct {
	mu  sync.Mutex
	got []string
}

func (e *namespaceEvents) add(obj any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, obj.(*corev1.Namespace).Name)
}

func (e *namespaceEvents) has(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, g := range e.got {
		if g == name {
			return true
		}
	}
	return false
}

func (e *namespaceEvents) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

// TestServerNamespaceListFromIndex: the server answers from one index of
// every tenant's namespaces: each tenant lists its own, in the tenant's
// names; a replica reads the writes made through it at once (the other
// replica within its watch's delay).
func TestServerNamespaceListFromIndex(t *testing.T) {
	tenants(t)
	r1, r2 := framework.StartReplica(t), framework.StartReplica(t)
	lb := framework.NewBalancer(t, false, r1.Addr, r2.Addr)
	acme, beta := viaServer(t, lb, "acme"), viaServer(t, lb, "beta")
	acme.k(t, "create", "namespace", "srvx")
	beta.k(t, "create", "namespace", "srvy")
	admin(t, "create", "namespace", "acme-srv-sneaky")
	admin(t, "label", "namespace", "acme-srv-sneaky", translate.TenantLabel+"=beta")
	for _, tc := range []struct {
		s          *served
		want, deny []string
	}{
		{acme, []string{"srvx", "default", "kube-system"}, []string{"srvy", "acme-", "beta-", "srv-sneaky"}},
		{beta, []string{"srvy", "default"}, []string{"srvx", "acme-", "beta-", "srv-sneaky"}},
	} {
		var out string
		require.Eventually(t, func() bool {
			out = tc.s.k(t, "get", "namespaces", "-o", "name")
			for _, w := range tc.want {
				if !strings.Contains(out, "namespace/"+w+"\n") {
					return false
				}
			}
			return true
		}, 30*time.Second, 100*time.Millisecond, "[%s] %s", tc.s.Tenant, out)
		for _, d := range tc.deny {
			assert.NotContains(t, out, d, "[%s]", tc.s.Tenant)
		}
	}
	// Through one replica, a create is in the next list at once.
	cs := clientFor(t, viaServer(t, framework.NewBalancer(t, false, r1.Addr), "acme"))
	for i := range 5 {
		name := fmt.Sprintf("srv-ryw-%d", i)
		_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		require.NoError(t, err)
		list, err := cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		_, found := namespacePhase(list, name)
		assert.True(t, found, "a list right after the create misses %s", name)
		require.NoError(t, cs.CoreV1().Namespaces().Delete(t.Context(), name, metav1.DeleteOptions{}))
	}
	acme.k(t, "delete", "namespace", "srvx", "--wait=false")
	beta.k(t, "delete", "namespace", "srvy", "--wait=false")
	admin(t, "delete", "namespace", "acme-srv-sneaky", "--wait=false")
}
