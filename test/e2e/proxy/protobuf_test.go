package proxy_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// contentTypes records the Content-Type of every answer a client got.
type contentTypes struct {
	mu   sync.Mutex
	seen []string
}

func (c *contentTypes) RoundTrip(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil {
			c.mu.Lock()
			c.seen = append(c.seen, resp.Header.Get("Content-Type"))
			c.mu.Unlock()
		}
		return resp, err
	})
}

func (c *contentTypes) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[len(c.seen)-1]
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// protobufClient is clientFor with protobuf both ways, recording what came back.
func protobufClient(t *testing.T, s *served) (kubernetes.Interface, *contentTypes) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	require.NoError(t, err)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + ", " + runtime.ContentTypeJSON
	ct := &contentTypes{}
	cfg.Wrap(ct.RoundTrip)
	cs, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	require.NoError(t, err)
	return cs, ct
}

// TestProtobufThroughProxy reads and writes built-in objects in protobuf
// through the proxy: a list larger than the proxy keeps in memory, single
// objects, creates, updates and patches, and refusals. What comes back is
// protobuf, in the tenant's names, and equal to what the same reads return
// as JSON; what is written lands in the tenant's upstream namespace.
func TestProtobufThroughProxy(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	const ns, items = "pb", 1200 // 1 KiB each: more than the proxy's 1 MiB in memory
	for _, s := range []*served{acme, beta} {
		cs := clientFor(t, s)
		_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(t.Context(), ns, metav1.DeleteOptions{}) })
	}
	_, err := clientFor(t, beta).CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "only-beta"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	jsonClient := clientFor(t, acme)
	payload := strings.Repeat("p", 1024)
	for i := range items {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i)}, Data: map[string]string{"payload": payload}}
		if i == 7 { // translated on the proxy's general path: the owner's group is the tenant's
			// (a group no CRD defines, or the garbage collector would remove the orphan)
			cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: "never.example.com/v1", Kind: "Nothing", Name: "owner", UID: "0b6c9a55-4b4e-4a53-9a39-2a4d7d2b7f10"}}
		}
		_, err := jsonClient.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	_, err = jsonClient.CoreV1().Secrets(ns).Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		StringData: map[string]string{"password": "hunter2"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	pb, seen := protobufClient(t, acme)
	t.Run("a large list", func(t *testing.T) {
		got, err := pb.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		assert.Equal(t, runtime.ContentTypeProtobuf, seen.last())
		require.Len(t, got.Items, items+1, "ours and kube-root-ca.crt, not beta's")
		for _, cm := range got.Items {
			assert.Equal(t, ns, cm.Namespace)
			assert.NotEqual(t, "only-beta", cm.Name)
		}
		assert.Equal(t, "never.example.com/v1", got.Items[7].OwnerReferences[0].APIVersion)
		want, err := jsonClient.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{ResourceVersion: got.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		require.NoError(t, err)
		assert.True(t, apiequality.Semantic.DeepEqual(want.Items, got.Items), "protobuf and JSON lists differ")
	})
	t.Run("one object", func(t *testing.T) {
		got, err := pb.CoreV1().ConfigMaps(ns).Get(t.Context(), "cm-0007", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, runtime.ContentTypeProtobuf, seen.last())
		assert.Equal(t, ns, got.Namespace)
		assert.Equal(t, "never.example.com/v1", got.OwnerReferences[0].APIVersion)
		upstream, err := framework.AdminClient(t).CoreV1().ConfigMaps("acme-"+ns).Get(t.Context(), "cm-0007", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "acme-never.example.com/v1", upstream.OwnerReferences[0].APIVersion, "the tenant's group, upstream")
		secret, err := pb.CoreV1().Secrets(ns).Get(t.Context(), "s", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "hunter2", string(secret.Data["password"]))
		assert.Equal(t, ns, secret.Namespace)
	})
	t.Run("create, update and patch", func(t *testing.T) {
		created, err := pb.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "written", Namespace: ns}, Data: map[string]string{"k": "v1"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		assert.Equal(t, runtime.ContentTypeProtobuf, seen.last())
		assert.Equal(t, ns, created.Namespace)
		created.Data["k"] = "v2"
		updated, err := pb.CoreV1().ConfigMaps(ns).Update(t.Context(), created, metav1.UpdateOptions{})
		require.NoError(t, err)
		assert.Equal(t, ns, updated.Namespace)
		patched, err := pb.CoreV1().ConfigMaps(ns).Patch(t.Context(), "written", types.MergePatchType, []byte(`{"data":{"p":"yes"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		assert.Equal(t, runtime.ContentTypeProtobuf, seen.last())
		assert.Equal(t, map[string]string{"k": "v2", "p": "yes"}, patched.Data)
		upstream, err := framework.AdminClient(t).CoreV1().ConfigMaps("acme-"+ns).Get(t.Context(), "written", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"k": "v2", "p": "yes"}, upstream.Data)

		_, err = pb.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "written"}}, metav1.CreateOptions{})
		require.True(t, apierrors.IsAlreadyExists(err), "%v", err)
		_, err = pb.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "labelled",
			Labels: map[string]string{"zoo.kubectl-zoo.io/tenant": "beta"}}}, metav1.CreateOptions{})
		require.True(t, apierrors.IsForbidden(err), "%v", err)
		_, err = pb.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "other"}}, metav1.CreateOptions{})
		require.True(t, apierrors.IsBadRequest(err), "the body's namespace must match the URL's: %v", err)
	})
	t.Run("watch and a namespaced informer", func(t *testing.T) {
		w, err := pb.CoreV1().ConfigMaps(ns).Watch(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		defer w.Stop()
		assert.Equal(t, runtime.ContentTypeProtobuf+";stream=watch", seen.last())

		cfg, err := clientcmd.BuildConfigFromFlags("", acme.Kubeconfig)
		require.NoError(t, err)
		factory := informers.NewSharedInformerFactoryWithOptions(kubernetes.NewForConfigOrDie(cfg), 0, informers.WithNamespace(ns))
		inf := factory.Core().V1().ConfigMaps().Informer()
		factory.Start(t.Context().Done())
		require.True(t, cache.WaitForCacheSync(t.Context().Done(), inf.HasSynced))
		assert.Len(t, inf.GetStore().ListKeys(), items+2, "ours, written and kube-root-ca.crt")

		_, err = jsonClient.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		for ev := range w.ResultChan() {
			cm, ok := ev.Object.(*corev1.ConfigMap)
			require.True(t, ok, "%s %#v", ev.Type, ev.Object)
			if ev.Type == watch.Added && cm.Name == "watched" {
				assert.Equal(t, ns, cm.Namespace)
				break
			}
		}
		require.Eventually(t, func() bool {
			_, exists, _ := inf.GetStore().GetByKey(ns + "/watched")
			return exists
		}, 30*time.Second, 50*time.Millisecond, "the informer sees the new object under the tenant's namespace")
	})
	t.Run("not found", func(t *testing.T) {
		_, err := pb.CoreV1().ConfigMaps(ns).Get(t.Context(), "only-beta", metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "%v", err)
		assert.Equal(t, runtime.ContentTypeJSON, seen.last())
		assert.Contains(t, err.Error(), `configmaps "only-beta" not found`)
		assert.NotContains(t, err.Error(), "acme-")
	})
}
