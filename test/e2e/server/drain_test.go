package server_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": name}}
}

// TestServerDrainLosesNoWatchEvent: a client-go informer watches through the
// balancer, which sends every connection to the first replica that accepts
// it. That replica gets SIGTERM while ConfigMaps are being written: it ends
// the watch cleanly and exits 0, the informer re-watches through the other
// replica, and it sees every ConfigMap.
func TestServerDrainLosesNoWatchEvent(t *testing.T) {
	setup(t)
	r1, r2 := framework.StartReplica(t), framework.StartReplica(t)
	lb := framework.NewBalancer(t, true, r1.Addr, r2.Addr)
	acme := clientFor(t, framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme")))
	_, err := acme.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "drain"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	var mu sync.Mutex
	added := map[string]bool{}
	factory := informers.NewSharedInformerFactoryWithOptions(acme, 0, informers.WithNamespace("drain"))
	inf := factory.Core().V1().ConfigMaps().Informer()
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		mu.Lock()
		defer mu.Unlock()
		if name := obj.(*corev1.ConfigMap).Name; strings.HasPrefix(name, "drain-") {
			added[name] = true
		}
	}})
	require.NoError(t, err)
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	require.True(t, cache.WaitForCacheSync(stop, inf.HasSynced))

	const n = 30
	upstream := framework.AdminClient(t).CoreV1().ConfigMaps("acme-drain")
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := range n {
			_, err := upstream.Create(t.Context(), configMap(fmt.Sprintf("drain-%02d", i)), metav1.CreateOptions{})
			assert.NoError(t, err)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	time.Sleep(time.Second)
	r1.Stop(t) // SIGTERM mid-watch; requires exit 0
	<-wrote
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(added) == n
	}, 60*time.Second, 200*time.Millisecond, "the informer saw %v", func() []string {
		mu.Lock()
		defer mu.Unlock()
		var names []string
		for k := range added {
			names = append(names, k)
		}
		return names
	}())
	assert.Contains(t, r1.Stderr(), "draining")
	assert.Contains(t, r2.Scrape(t, framework.Cluster().Config.CertData, framework.Cluster().Config.KeyData),
		`zoo_server_open_watches{tenant="acme"} 1`, "the second replica serves the re-watch")
}
