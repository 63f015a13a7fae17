package proxy_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestProtobufReadsReferences writes a reference-bearing object with a
// protobuf client (client-go with ContentType protobuf, as controllers
// run) through serve and reads it back as GET, LIST and WATCH: the
// references read as the tenant wrote them, upstream they are acme's. The
// proxy answers such kinds in JSON (only namespace-only kinds come back in
// protobuf, translate.AcceptsProtobuf), which client-go decodes by the
// answer's Content-Type. Then the upstream admin writes into acme's
// namespace a claim of a class that becomes tenant gamma's (gamma is
// created after it) and an EndpointSlice whose targetRef is beta's pod:
// neither reference may read back, as protobuf client or JSON one, as one
// of acme's own (acme owns a class of that name too).
func TestProtobufReadsReferences(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	const ns = "pbrefs"
	bg := context.Background()
	upstream := framework.AdminClient(t)
	for _, s := range []*served{acme, beta} {
		cs := clientFor(t, s)
		_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(bg, ns, metav1.DeleteOptions{}) })
	}
	class := func(name string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "example.com/none"}
	}
	for _, c := range []struct {
		s    *served
		name string
	}{{beta, "fast"}, {acme, "beta-fast"}} { // upstream "beta-fast" (beta's) and "acme-beta-fast" (acme's)
		cs := clientFor(t, c.s)
		_, err := cs.StorageV1().StorageClasses().Create(t.Context(), class(c.name), metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.StorageV1().StorageClasses().Delete(bg, c.name, metav1.DeleteOptions{}) })
	}

	pb, seen := protobufClient(t, acme)
	answered := func(t *testing.T) {
		t.Helper()
		assert.Contains(t, []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf, runtime.ContentTypeProtobuf + ";stream=watch"}, seen.last())
	}
	t.Run("a RoleBinding written and read back by a protobuf client", func(t *testing.T) {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "readers"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "robot", Namespace: ns}}}
		_, err := pb.RbacV1().RoleBindings(ns).Create(t.Context(), rb, metav1.CreateOptions{})
		require.NoError(t, err)
		up, err := upstream.RbacV1().RoleBindings("acme-"+ns).Get(t.Context(), "readers", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "acme-view", up.RoleRef.Name)
		assert.Equal(t, "acme-"+ns, up.Subjects[0].Namespace)

		check := func(what string, got *rbacv1.RoleBinding) {
			assert.Equal(t, "view", got.RoleRef.Name, what)
			require.Len(t, got.Subjects, 1, what)
			assert.Equal(t, ns, got.Subjects[0].Namespace, what)
			assert.Equal(t, ns, got.Namespace, what)
		}
		got, err := pb.RbacV1().RoleBindings(ns).Get(t.Context(), "readers", metav1.GetOptions{})
		require.NoError(t, err)
		answered(t)
		check("GET", got)
		list, err := pb.RbacV1().RoleBindings(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "metadata.name=readers"})
		require.NoError(t, err)
		answered(t)
		require.Len(t, list.Items, 1)
		check("LIST", &list.Items[0])
		w, err := pb.RbacV1().RoleBindings(ns).Watch(t.Context(), metav1.ListOptions{FieldSelector: "metadata.name=readers"})
		require.NoError(t, err)
		defer w.Stop()
		answered(t)
		ev := <-w.ResultChan()
		require.Equal(t, watch.Added, ev.Type, "%#v", ev.Object)
		check("WATCH", ev.Object.(*rbacv1.RoleBinding))
	})

	t.Run("values naming another tenant's objects, written upstream, never read as acme's", func(t *testing.T) {
		// zoo-tenant-storage refuses, whoever writes it, a claim in a
		// tenant's namespace naming a class of another existing tenant;
		// one written before that tenant existed names its class later.
		_, err := upstream.CoreV1().PersistentVolumeClaims("acme-"+ns).Create(t.Context(), &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "foreign"},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr("gamma-fast"), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		zoo := func(args ...string) framework.Result {
			return framework.Run(bg, nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
		}
		res := zoo("tenant", "create", "gamma")
		require.NoError(t, res.Err, res.Stderr)
		defer zoo("tenant", "delete", "gamma")
		_, err = clientFor(t, acme).StorageV1().StorageClasses().Create(t.Context(), class("gamma-fast"), metav1.CreateOptions{})
		require.NoError(t, err, "acme's own class of the name")
		defer func() {
			_ = clientFor(t, acme).StorageV1().StorageClasses().Delete(bg, "gamma-fast", metav1.DeleteOptions{})
		}()
		_, err = upstream.DiscoveryV1().EndpointSlices("acme-"+ns).Create(t.Context(), &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Name: "foreign"}, AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"},
				TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "beta-" + ns, Name: "p"}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)

		for name, cs := range map[string]kubernetes.Interface{"protobuf": pb, "JSON": clientFor(t, acme)} {
			// The proxy learns the tenants' names within a TTL.
			require.EventuallyWithT(t, func(c *assert.CollectT) {
				claim, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), "foreign", metav1.GetOptions{})
				require.NoError(c, err, name)
				assert.Nil(c, claim.Spec.StorageClassName, "%s: gamma's class read back as acme's own class", name)
			}, 30*time.Second, 500*time.Millisecond)
			claims, err := cs.CoreV1().PersistentVolumeClaims(ns).List(t.Context(), metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "foreign").String()})
			require.NoError(t, err, name)
			require.Len(t, claims.Items, 1, name)
			assert.Nil(t, claims.Items[0].Spec.StorageClassName, "%s: LIST", name)
			up, err := upstream.CoreV1().PersistentVolumeClaims("acme-"+ns).Get(t.Context(), "foreign", metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, "gamma-fast", *up.Spec.StorageClassName, "upstream the claim still asks for gamma's class")

			slice, err := cs.DiscoveryV1().EndpointSlices(ns).Get(t.Context(), "foreign", metav1.GetOptions{})
			require.NoError(t, err, name)
			require.Len(t, slice.Endpoints, 1, name)
			assert.Equal(t, []string{"10.0.0.1"}, slice.Endpoints[0].Addresses, name)
			assert.Nil(t, slice.Endpoints[0].TargetRef, "%s: beta's pod read back as acme's pod p", name)
		}

		// kubectl get prints the server's Table: its class cells read as
		// the objects do (table_refs.go).
		_, err = clientFor(t, acme).CoreV1().PersistentVolumeClaims(ns).Create(t.Context(), &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "mine"},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr("beta-fast"), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		out := acme.k(t, "get", "pvc", "-n", ns, "mine", "foreign")
		assert.NotContains(t, out, "acme-", "an upstream name in a cell:\n%s", out)
		assert.NotContains(t, out, "gamma-fast", "gamma's class in a cell:\n%s", out)
		assert.Regexp(t, `(?m)^mine\s+Pending\s+beta-fast\s`, out, "acme's own class beta-fast")
		_ = upstream.CoreV1().PersistentVolumeClaims("acme-"+ns).Delete(bg, "foreign", metav1.DeleteOptions{})
	})
	for _, s := range []*served{acme, beta} {
		_ = clientFor(t, s).CoreV1().Namespaces().Delete(bg, ns, metav1.DeleteOptions{})
	}
}
