package proxy_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// inProcess starts the proxy in this process (as the benchmarks do).
func inProcess(t *testing.T, tenant, token, addr string, cert *localproxyCert) (*localproxy.Server, *localproxyCert) {
	t.Helper()
	p, err := localproxy.New(localproxy.Config{Upstream: rest.CopyConfig(framework.Cluster().Config), NewPolicyClient: tenantctl.PolicyClientFor, Tenant: tenant, Token: token})
	require.NoError(t, err)
	var srv *localproxy.Server
	if cert == nil {
		srv = localproxy.NewServer(p, addr)
	} else {
		srv = localproxy.NewServerWithCertificate(p, addr, cert.cert, cert.pem)
	}
	require.NoError(t, srv.Start())
	c, pem := srv.Certificate()
	return srv, &localproxyCert{cert: c, pem: pem}
}

// recorder collects informer events as "TYPE ns/name".
type events struct {
	mu  sync.Mutex
	got []string
}

func (e *events) add(typ string, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	cm := obj.(*corev1.ConfigMap)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, fmt.Sprintf("%s %s/%s=%s", typ, cm.Namespace, cm.Name, cm.Data["v"]))
}

func (e *events) has(s string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, g := range e.got {
		if g == s {
			return true
		}
	}
	return false
}

func (e *events) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

// TestInformerThroughProxy: a protobuf client-go informer over all of the
// tenant's namespaces sees its tenant's adds, updates and deletes only, and
// carries on after the proxy restarts.
func TestInformerThroughProxy(t *testing.T) {
	tenants(t)
	acme, beta := serve(t, "acme"), serve(t, "beta")
	for _, s := range []*served{acme, beta} {
		s.k(t, "create", "namespace", "inf")
		t.Cleanup(func() { s.run(t, "", "delete", "namespace", "inf", "--wait=false") })
	}
	token, err := localproxy.NewToken()
	require.NoError(t, err)
	srv, cert := inProcess(t, "acme", token, "127.0.0.1:0", nil)
	addr := srv.Addr()
	cfg := srv.ClientConfig(token)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)

	ev := &events{}
	factory := informers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().ConfigMaps().Informer()
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { ev.add("ADD", o) },
		UpdateFunc: func(_, o any) { ev.add("UPDATE", o) },
		DeleteFunc: func(o any) { ev.add("DELETE", o) },
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	factory.Start(ctx.Done())
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))

	eventually := func(want string) {
		t.Helper()
		require.Eventually(t, func() bool { return ev.has(want) }, 30*time.Second, 100*time.Millisecond, "never saw %q; saw %v", want, ev.all())
	}
	cms := client.CoreV1().ConfigMaps("inf")
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually("ADD inf/one=1")
	beta.k(t, "-n", "inf", "create", "cm", "one", "--from-literal=v=beta")
	cm, err := cms.Get(ctx, "one", metav1.GetOptions{})
	require.NoError(t, err)
	cm.Data["v"] = "2"
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	eventually("UPDATE inf/one=2")

	// Restart the proxy on the same address with the same token and
	// certificate: the informer re-lists and re-watches by itself.
	shutdownCtx, c2 := context.WithTimeout(t.Context(), 10*time.Second)
	require.NoError(t, srv.Shutdown(shutdownCtx))
	c2()
	acme.k(t, "-n", "inf", "create", "cm", "two", "--from-literal=v=while-down")
	time.Sleep(2 * time.Second)
	srv2, _ := inProcess(t, "acme", token, addr, cert)
	defer srv2.Shutdown(context.Background()) //nolint:errcheck
	eventually("ADD inf/two=while-down")
	require.NoError(t, cms.Delete(ctx, "one", metav1.DeleteOptions{}))
	eventually("DELETE inf/one=2")
	acme.k(t, "-n", "inf", "create", "cm", "three", "--from-literal=v=3")
	eventually("ADD inf/three=3")
	for _, g := range ev.all() {
		require.NotContains(t, g, "beta", "the informer saw the other tenant: %v", ev.all())
		require.NotContains(t, g, "acme-", "the informer saw an upstream name: %v", ev.all())
	}
}
