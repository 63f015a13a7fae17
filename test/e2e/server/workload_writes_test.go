package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// replaceView reads an object in the tenant's view and writes it back
// unchanged with kubectl replace (an update), again when a controller
// changed it in between (409).
func replaceView(t *testing.T, kubeconfig, kind, name, ns string) {
	t.Helper()
	for range 10 {
		view := kubectlIn(t, kubeconfig, "", "get", kind, name, "-n", ns, "-o", "json")
		res := framework.Run(context.Background(), []byte(view), framework.KubectlPath(), "--kubeconfig", kubeconfig, "replace", "-f", "-")
		if res.Err == nil {
			return
		}
		require.Contains(t, res.Stderr, "the object has been modified", "kubectl replace")
	}
	t.Fatalf("kubectl replace of %s %s/%s kept conflicting", kind, ns, name)
}

// TestTenantWorkloadAccessRoundTrips: updates and patches made from the
// tenant's view — kubectl replace, client-side and server-side apply, a
// strategic merge patch — keep the injected parts exactly once, a no-op
// write changes no pod template, and a pod (whose spec is immutable) can be
// replaced and labeled. A pod that opts out gets nothing, and a tenant
// volume of the reserved name is refused.
func TestTenantWorkloadAccessRoundTrips(t *testing.T) {
	_, acme, _ := workloadServer(t)
	ctx := context.Background()
	admin := framework.AdminClient(t)
	kubectlIn(t, acme, "", "create", "namespace", "operators2")
	manifest := strings.ReplaceAll(strings.Replace(operatorManifest, "%s", "", 1), "operators", "operators2")
	kubectlIn(t, acme, "", "create", "serviceaccount", "operator", "-n", "operators2")
	kubectlIn(t, acme, manifest, "apply", "-f", "-")
	deployment := func() *appsv1.Deployment {
		d, err := admin.AppsV1().Deployments("acme-operators2").Get(ctx, "operator", metav1.GetOptions{})
		require.NoError(t, err)
		return d
	}
	var before *appsv1.Deployment
	require.Eventually(t, func() bool { // the controller's own writes first
		before = deployment()
		return before.Status.ObservedGeneration == before.Generation && before.Annotations["deployment.kubernetes.io/revision"] != ""
	}, time.Minute, 200*time.Millisecond)
	assert.Equal(t, injected, accessOf(&before.Spec.Template.Spec))

	replaceView(t, acme, "deployment", "operator", "operators2")
	after := deployment()
	// (kubectl replace rewrites the last-applied annotation, which alone
	// makes a Deployment's generation grow.)
	assert.Equal(t, before.Spec, after.Spec, "a replace of the view changes no spec, so rolls out nothing")
	require.Eventually(t, func() bool { d := deployment(); return d.Status.ObservedGeneration == d.Generation }, time.Minute, 200*time.Millisecond)
	sets, err := admin.AppsV1().ReplicaSets("acme-operators2").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, sets.Items, 1, "no new ReplicaSet: nothing rolled out")

	withFoo := strings.Replace(operatorManifest, "%s", `, {name: FOO, value: bar}`, 1)
	withFoo = strings.ReplaceAll(withFoo, "operators", "operators2")
	kubectlIn(t, acme, withFoo, "apply", "-f", "-")
	after = deployment()
	assert.NotEqual(t, before.Spec.Template, after.Spec.Template)
	assert.Equal(t, injected, accessOf(&after.Spec.Template.Spec), "client-side apply")
	kubectlIn(t, acme, "", "patch", "deployment", "operator", "-n", "operators2", "-p", `{"spec":{"template":{"metadata":{"labels":{"rev":"2"}}}}}`)
	assert.Equal(t, injected, accessOf(&deployment().Spec.Template.Spec), "strategic merge patch")
	kubectlIn(t, acme, "", "patch", "deployment", "operator", "-n", "operators2", "--type=json",
		"-p", `[{"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"BAZ","value":"1"}}]`)
	assert.Equal(t, injected, accessOf(&deployment().Spec.Template.Spec), "json patch")
	kubectlIn(t, acme, withFoo, "apply", "--server-side", "--force-conflicts", "-f", "-")
	assert.Equal(t, injected, accessOf(&deployment().Spec.Template.Spec), "server-side apply")
	var env []string
	for _, e := range deployment().Spec.Template.Spec.Containers[0].Env {
		env = append(env, e.Name)
	}
	assert.Equal(t, []string{"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "ENDPOINT", "FOO", "BAZ"}, env, "BAZ is the json patch's")
	seen, err := protobufClient(t, acme).AppsV1().Deployments("operators2").Get(ctx, "operator", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, accessOf(&seen.Spec.Template.Spec))

	// A pod written through the server: replaced (PUT, immutable spec) and
	// labeled (patch) from the tenant's view.
	kubectlIn(t, acme, "", "run", "bare", "-n", "operators2", "--image=busybox", "--labels=app=bare")
	bare := upstreamPod(t, "acme-operators2", "bare")
	assert.Equal(t, map[string][]string{"volume": {translate.APIAccessName}, "bare": {"mount", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"}}, accessOf(&bare.Spec))
	replaceView(t, acme, "pod", "bare", "operators2")
	kubectlIn(t, acme, "", "label", "pod", "bare", "-n", "operators2", "checked=yes")
	relabeled := upstreamPod(t, "acme-operators2", "bare")
	assert.Equal(t, "yes", relabeled.Labels["checked"])
	assert.Equal(t, bare.Spec.Containers, relabeled.Spec.Containers)

	// Opting out: the pod gets what it would upstream, nothing.
	kubectlIn(t, acme, `apiVersion: v1
kind: Pod
metadata: {name: quiet, namespace: operators2, labels: {app: quiet}}
spec:
  automountServiceAccountToken: false
  containers: [{name: c, image: busybox}]
`, "apply", "-f", "-")
	quiet := upstreamPod(t, "acme-operators2", "quiet")
	assert.Empty(t, accessOf(&quiet.Spec))
	assert.Empty(t, quiet.Spec.Volumes)

	stderr := kubectlFails(t, acme, `apiVersion: v1
kind: Pod
metadata: {name: squatter, namespace: operators2}
spec:
  containers: [{name: c, image: busybox}]
  volumes: [{name: zoo-kube-api-access, emptyDir: {}}]
`, "apply", "-f", "-")
	assert.Contains(t, stderr, "the volume name zoo-kube-api-access is kubectl-zoo's")

	require.NoError(t, admin.CoreV1().Namespaces().Delete(ctx, "acme-operators2", metav1.DeleteOptions{}))
}

// TestTenantWorkloadAccessIsConfined: the server writes the ConfigMap only
// in namespaces labeled as the writer's tenant, never replaces a tenant's
// own ConfigMap of that name, and a tenant changing its own copy changes
// nothing of another tenant's.
func TestTenantWorkloadAccessIsConfined(t *testing.T) {
	_, acme, beta := workloadServer(t)
	ctx := context.Background()
	admin := framework.AdminClient(t)

	// A platform namespace that happens to carry acme's prefix is not acme's.
	_, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acme-platformtools"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	kubectlFails(t, acme, "", "create", "deployment", "p", "-n", "platformtools", "--image=busybox")
	_, err = admin.CoreV1().ConfigMaps("acme-platformtools").Get(ctx, translate.APIAccessName, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the server wrote into a platform namespace: %v", err)

	// The tenant's own ConfigMap of that name is its data: never replaced.
	kubectlIn(t, acme, "", "create", "namespace", "clash")
	kubectlIn(t, acme, "", "create", "configmap", translate.APIAccessName, "-n", "clash", "--from-literal=mine=1")
	stderr := kubectlFails(t, acme, "", "create", "deployment", "c", "-n", "clash", "--image=busybox")
	assert.Contains(t, stderr, "is not kubectl-zoo's")
	cm, err := admin.CoreV1().ConfigMaps("acme-clash").Get(ctx, translate.APIAccessName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"mine": "1"}, cm.Data)
	_, err = admin.AppsV1().Deployments("acme-clash").Get(ctx, "c", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)

	// acme changing its copy is acme's business; beta's stays.
	kubectlIn(t, acme, "", "create", "namespace", "own")
	kubectlIn(t, acme, "", "create", "deployment", "a", "-n", "own", "--image=busybox")
	kubectlIn(t, beta, "", "create", "namespace", "own")
	kubectlIn(t, beta, "", "create", "deployment", "b", "-n", "own", "--image=busybox")
	betaCM, err := admin.CoreV1().ConfigMaps("beta-own").Get(ctx, translate.APIAccessName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "own", betaCM.Data["namespace"])
	kubectlIn(t, acme, "", "patch", "configmap", translate.APIAccessName, "-n", "own", "-p", `{"data":{"ca.crt":"acme's own CA","host":"evil.example.com"}}`)
	kubectlIn(t, acme, "", "create", "deployment", "a2", "-n", "own", "--image=busybox")
	after, err := admin.CoreV1().ConfigMaps("beta-own").Get(ctx, translate.APIAccessName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, betaCM.Data, after.Data)
	assert.Equal(t, betaCM.ResourceVersion, after.ResourceVersion)

	for _, ns := range []string{"acme-platformtools", "acme-clash", "acme-own", "beta-own"} {
		require.NoError(t, admin.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}))
	}
}
