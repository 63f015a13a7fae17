package tenant_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestServerServiceAccountRights proves the RBAC of install --server with a
// token of the server's ServiceAccount (TokenRequest): every upstream call
// the proxy makes with its own identity, and every call the server adds,
// succeeds; what the server never does is forbidden.
func TestServerServiceAccountRights(t *testing.T) {
	install(t)
	mustZoo(t, "install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
	t.Cleanup(func() { // also when the test fails half-way; t.Context() is gone by now
		framework.Run(context.Background(), nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig,
			"install", "--server", "--uninstall")
	})
	createTenant(t, "srvr")
	cfg := serverConfig(t)
	kube, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	tenantSel := metav1.ListOptions{LabelSelector: translate.TenantLabel + "=srvr"}
	as := func(imp rest.ImpersonationConfig) kubernetes.Interface {
		c := rest.CopyConfig(cfg)
		c.Impersonate = imp
		client, err := kubernetes.NewForConfig(c)
		require.NoError(t, err)
		return client
	}
	whoami := func(ctx context.Context, client kubernetes.Interface, want string) error {
		r, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err == nil {
			assert.Equal(t, want, r.Status.UserInfo.Username)
		}
		return err
	}
	watchOnce := func(w interface{ Stop() }, err error) error {
		if err == nil {
			w.Stop()
		}
		return err
	}

	// The tenant's cluster-scoped CRD, and the ClusterRole the proxy writes
	// for it as the tenant (tenant_group_role.go): the server may serve its
	// objects, and only its.
	gizmos, deleteGizmos := tenantClusterCRD(t, "srvr", "srvr-g.example.org", "gizmos")
	require.Eventually(t, func() bool {
		_, err := dyn.Resource(gizmos).List(t.Context(), metav1.ListOptions{})
		return err == nil
	}, 60*time.Second, 200*time.Millisecond, "the CRD is served and zoo-server aggregates its ClusterRole")

	allowed := []struct {
		why  string
		call func(ctx context.Context) error
	}{
		{"create, list, watch and delete the objects of a tenant's cluster-scoped CRD (tenant_group.go)", func(ctx context.Context) error {
			g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "srvr-g.example.org/v1", "kind": "Thing", "metadata": map[string]any{"name": "g"}}}
			if _, err := dyn.Resource(gizmos).Create(ctx, g, metav1.CreateOptions{}); err != nil {
				return err
			}
			if err := watchOnce(dyn.Resource(gizmos).Watch(ctx, metav1.ListOptions{})); err != nil {
				return err
			}
			return dyn.Resource(gizmos).Delete(ctx, "g", metav1.DeleteOptions{})
		}},
		{"read the caller's tenant record (tenant_record.go)", func(ctx context.Context) error {
			_, err := dyn.Resource(tenantapi.TenantGVR).Get(ctx, "srvr", metav1.GetOptions{})
			return err
		}},
		{"sleep and wake the caller's tenant, its workloads scaled (localproxy/sleep.go, sleep.go)", func(ctx context.Context) error {
			kubectlOK(t, deployment("sleeper", "srvr-default", ""), "apply", "-f", "-")
			tc, err := tenantctl.NewClient(cfg)
			if err != nil {
				return err
			}
			if res, err := tc.SleepTenant(ctx, "srvr", tenantctl.SleepOptions{NoPods: true}); err != nil || len(res.Changed) != 1 {
				return fmt.Errorf("sleep changed %v: %w", res.Changed, err)
			}
			_, err = tc.WakeTenant(ctx, "srvr")
			return err
		}},
		{"list the other tenants (shared_tenants.go) and the informer's list", func(ctx context.Context) error {
			_, err := dyn.Resource(tenantapi.TenantGVR).List(ctx, metav1.ListOptions{})
			return err
		}},
		{"the informer's watch of tenants", func(ctx context.Context) error {
			return watchOnce(dyn.Resource(tenantapi.TenantGVR).Watch(ctx, metav1.ListOptions{}))
		}},
		{"list the tenant's namespaces (namespaces.go)", func(ctx context.Context) error {
			list, err := kube.CoreV1().Namespaces().List(ctx, tenantSel)
			if err == nil {
				assert.NotEmpty(t, list.Items)
			}
			return err
		}},
		{"watch the tenant's namespaces (fanout_watch.go)", func(ctx context.Context) error {
			return watchOnce(kube.CoreV1().Namespaces().Watch(ctx, tenantSel))
		}},
		{"read one namespace's priority classes annotation (platform.go)", func(ctx context.Context) error {
			_, err := kube.CoreV1().Namespaces().Get(ctx, "srvr-default", metav1.GetOptions{})
			return err
		}},
		{"read a priority class's value (platform.go)", func(ctx context.Context) error {
			_, err := kube.SchedulingV1().PriorityClasses().Get(ctx, "system-cluster-critical", metav1.GetOptions{})
			return err
		}},
		{"publish the API access of a tenant namespace's pods (apiaccess.go)", func(ctx context.Context) error {
			cms := kube.CoreV1().ConfigMaps("srvr-default")
			cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: translate.APIAccessName}}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			if cm, err = cms.Get(ctx, cm.Name, metav1.GetOptions{}); err != nil {
				return err
			}
			cm.Data = map[string]string{"namespace": "default"}
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
			return err
		}},
		{"read a stored ClusterRoleBinding by name (crbstore)", func(ctx context.Context) error {
			_, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, tenantapi.TenantClusterClusterRole, metav1.GetOptions{})
			return err
		}},
		{"list the tenant's stored ClusterRoleBindings (crbstore)", func(ctx context.Context) error {
			_, err := kube.RbacV1().ClusterRoleBindings().List(ctx, tenantSel)
			return err
		}},
		{"discovery of resources and scopes (scopes.go)", func(ctx context.Context) error {
			_, _, err := kube.Discovery().ServerGroupsAndResources()
			return err
		}},
		{"impersonate a tenant user with its groups", func(ctx context.Context) error {
			client := as(rest.ImpersonationConfig{UserName: "zoo:srvr:admin", Groups: []string{"zoo:tenant:srvr", translate.AdminsGroup}})
			if err := whoami(ctx, client, "zoo:srvr:admin"); err != nil {
				return err
			}
			_, err := client.CoreV1().Pods("srvr-default").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"impersonate a tenant pod's ServiceAccount", func(ctx context.Context) error {
			return whoami(ctx, as(rest.ImpersonationConfig{UserName: "system:serviceaccount:srvr-default:default",
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:srvr-default"}}), "system:serviceaccount:srvr-default:default")
		}},
		{"TokenReview of a caller's bearer token", func(ctx context.Context) error {
			r, err := kube.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{
				Spec: authenticationv1.TokenReviewSpec{Token: cfg.BearerToken}}, metav1.CreateOptions{})
			if err == nil {
				assert.True(t, r.Status.Authenticated)
			}
			return err
		}},
		{"SubjectAccessReview for /metrics", func(ctx context.Context) error {
			_, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: "zoo:srvr:admin",
					NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}}}, metav1.CreateOptions{})
			return err
		}},
		{"read the cluster's client CA", func(ctx context.Context) error {
			_, err := kube.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, tenantapi.ClientCAConfigMap, metav1.GetOptions{})
			return err
		}},
	}
	// Every shared kind of the kinds table, read by name (shared.go).
	mapper := restMapper(t)
	for _, k := range translate.Kinds() {
		if k.Treatment != translate.Shared {
			continue
		}
		gvr, err := mapper.ResourceFor(k.Resource.WithVersion(""))
		if meta.IsNoMatchError(err) {
			t.Logf("shared kind %s is not served here", k.Resource)
			continue
		}
		require.NoError(t, err)
		allowed = append(allowed, struct {
			why  string
			call func(ctx context.Context) error
		}{"read a " + k.Kind + " by name (shared.go)", func(ctx context.Context) error {
			_, err := dyn.Resource(gvr).Get(ctx, "zoo-e2e-absent", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}})
	}
	for _, tc := range allowed {
		t.Run("may "+tc.why, func(t *testing.T) {
			require.NoError(t, tc.call(t.Context()))
		})
	}

	forbidden := []struct {
		what string
		call func(ctx context.Context) error
	}{
		{"create a secret in a tenant namespace", func(ctx context.Context) error {
			_, err := kube.CoreV1().Secrets("srvr-default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
			return err
		}},
		{"list secrets cluster-wide", func(ctx context.Context) error {
			_, err := kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"read its own serving key", func(ctx context.Context) error {
			_, err := kube.CoreV1().Secrets(tenantapi.ServerNamespace).Get(ctx, tenantapi.ServerTLSSecret, metav1.GetOptions{})
			return err
		}},
		{"read another ConfigMap in kube-system", func(ctx context.Context) error {
			_, err := kube.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err
		}},
		{"read a tenant's ConfigMap other than the API access one", func(ctx context.Context) error {
			_, err := kube.CoreV1().ConfigMaps("srvr-default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err
		}},
		{"list a tenant's ConfigMaps", func(ctx context.Context) error {
			_, err := kube.CoreV1().ConfigMaps("srvr-default").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"delete the API access ConfigMap", func(ctx context.Context) error {
			return kube.CoreV1().ConfigMaps("srvr-default").Delete(ctx, translate.APIAccessName, metav1.DeleteOptions{})
		}},
		{"list pods cluster-wide", func(ctx context.Context) error {
			_, err := kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"create a pod in its own namespace", func(ctx context.Context) error {
			_, err := kube.CoreV1().Pods(tenantapi.ServerNamespace).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "x"}}}}, metav1.CreateOptions{})
			return err
		}},
		{"change a tenant record", func(ctx context.Context) error {
			_, err := dyn.Resource(tenantapi.TenantGVR).Patch(ctx, "srvr", types.MergePatchType, []byte(`{"spec":{"displayName":"x"}}`), metav1.PatchOptions{})
			return err
		}},
		{"create a namespace", func(ctx context.Context) error {
			_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "srvr-stolen"}}, metav1.CreateOptions{})
			return err
		}},
		{"create a ClusterRoleBinding", func(ctx context.Context) error {
			_, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "zoo-e2e-x"},
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}, metav1.CreateOptions{})
			return err
		}},
		{"delete a ClusterRoleBinding", func(ctx context.Context) error {
			return kube.RbacV1().ClusterRoleBindings().Delete(ctx, tenantapi.TenantClusterClusterRole, metav1.DeleteOptions{})
		}},
		{"impersonate with extra fields (the proxy passes none)", func(ctx context.Context) error {
			_, err := as(rest.ImpersonationConfig{UserName: "zoo:srvr:admin", Groups: []string{"zoo:tenant:srvr"},
				Extra: map[string][]string{"example.com/from-proxy": {"x"}}}).CoreV1().Pods("srvr-default").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"list the objects of a tenant's CRD group it has no ClusterRole for", func(ctx context.Context) error {
			_, err := dyn.Resource(schema.GroupVersionResource{Group: "srvr-h.example.org", Version: "v1", Resource: "gizmos"}).List(ctx, metav1.ListOptions{})
			return err
		}},
		{"read a subresource the tenant's CRD does not declare", func(ctx context.Context) error {
			_, err := dyn.Resource(gizmos).Get(ctx, "g", metav1.GetOptions{}, "scale")
			return err
		}},
		{"list priority classes (shared kinds are read by name only)", func(ctx context.Context) error {
			_, err := kube.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
			return err
		}},
	}
	for _, tc := range forbidden {
		t.Run("may not "+tc.what, func(t *testing.T) {
			err := tc.call(t.Context())
			require.True(t, apierrors.IsForbidden(err), "want Forbidden, got %v", err)
		})
	}

	// What docs/security.md says: an identity that may impersonate anyone
	// is as strong as cluster-admin. RBAC cannot confine impersonation to
	// names with a prefix; this pins the fact, so that the docs change with
	// it.
	deleteGizmos()
	t.Run("is as strong as cluster-admin through impersonation", func(t *testing.T) {
		_, err := as(rest.ImpersonationConfig{UserName: "anyone", Groups: []string{"system:masters"}}).
			CoreV1().Secrets("").List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
	})
}
