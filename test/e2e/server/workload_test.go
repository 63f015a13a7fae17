package server_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// workloadServer starts two replicas that advertise the balancer in front
// of them to tenant pods, with the CA of their serving certificate. It
// returns the balancer and the advertised address.
func workloadServer(t *testing.T) (*balancer, string) {
	t.Helper()
	setup(t)
	pki := servingCert(t)
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(caFile, []byte(pki.CAPEM), 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	flags := []string{"--advertise-address", addr, "--advertise-ca-file", caFile}
	r1, r2 := startReplica(t, flags...), startReplica(t, flags...)
	return balanceOn(t, ln, false, r1.Addr, r2.Addr), addr
}

// kubectlIn runs kubectl with kubeconfig and stdin, requiring success.
func kubectlIn(t *testing.T, kubeconfig, stdin string, args ...string) string {
	t.Helper()
	res := framework.Run(context.Background(), []byte(stdin), framework.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	require.NoError(t, res.Err, "kubectl %v: %s", args, res.Stderr)
	return res.Stdout
}

// kubectlFails runs kubectl and returns its standard error, requiring a
// failure.
func kubectlFails(t *testing.T, kubeconfig, stdin string, args ...string) string {
	t.Helper()
	res := framework.Run(context.Background(), []byte(stdin), framework.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	require.Error(t, res.Err, "kubectl %v succeeded: %s", args, res.Stdout)
	return res.Stderr
}

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

// operatorManifest is a tenant's operator: it reads its cluster with its
// ServiceAccount; a sidecar mounts the ServiceAccount path itself.
const operatorManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: operator, namespace: operators}
spec:
  replicas: 1
  selector: {matchLabels: {app: operator}}
  template:
    metadata: {labels: {app: operator}}
    spec:
      serviceAccountName: operator
      initContainers: [{name: init, image: busybox}]
      containers:
      - name: operator
        image: operator:v1
        env: [{name: ENDPOINT, value: "$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)"}%s]
      - name: sidecar
        image: sidecar:v1
        volumeMounts: [{name: own, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}]
      volumes: [{name: own, emptyDir: {}}]
`

// upstreamPod waits for the one pod labeled app=<app> in the upstream
// namespace ns (the ReplicaSet controller makes it) and returns it.
func upstreamPod(t *testing.T, ns, app string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	require.Eventually(t, func() bool {
		pods, err := framework.AdminClient(t).CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + app})
		if err != nil || len(pods.Items) != 1 {
			return false
		}
		pod = &pods.Items[0]
		return true
	}, 90*time.Second, 250*time.Millisecond, "no pod app=%s in %s", app, ns)
	return pod
}

// accessOf describes what a pod spec has of the API access: per
// container, "mount" for a mount of the injected volume and the names of
// the injected variables; "volume" once per injected volume.
func accessOf(spec *corev1.PodSpec) map[string][]string {
	out := map[string][]string{}
	for _, v := range spec.Volumes {
		if v.Name == translate.APIAccessName {
			out["volume"] = append(out["volume"], v.Name)
		}
	}
	all := slices.Concat(spec.InitContainers, spec.Containers)
	for _, c := range all {
		for _, m := range c.VolumeMounts {
			if m.Name == translate.APIAccessName {
				out[c.Name] = append(out[c.Name], "mount")
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name == translate.APIAccessName {
				out[c.Name] = append(out[c.Name], e.Name)
			}
		}
	}
	return out
}

// injected is what the operator's pod spec gets upstream: both its
// containers but the sidecar, which mounts the path itself.
var injected = map[string][]string{
	"volume":   {translate.APIAccessName},
	"init":     {"mount", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"},
	"operator": {"mount", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"},
}

// protobufClient is acme's clientset asking for protobuf, as controllers do.
func protobufClient(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return client
}

// TestTenantWorkloadsSeeTheirTenantsCluster: a tenant's operator, run from
// a Deployment whose pods the upstream controllers create, gets the
// in-cluster access of its tenant's view — upstream, and hidden from the
// tenant on every read path — and a client-go program given exactly the
// environment and files of its pod sees the tenant's cluster through
// rest.InClusterConfig.
func TestTenantWorkloadsSeeTheirTenantsCluster(t *testing.T) {
	lb, addr := workloadServer(t)
	ctx := context.Background()
	admin := framework.AdminClient(t)
	acme := tenantKubeconfig(t, lb.URL(), clusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	beta := tenantKubeconfig(t, lb.URL(), clusterCert(t, "zoo:beta:admin", "zoo:tenant:beta"))
	kubectlIn(t, acme, "", "create", "namespace", "operators")
	kubectlIn(t, acme, "", "create", "serviceaccount", "operator", "-n", "operators")
	kubectlIn(t, acme, "", "create", "rolebinding", "operator-view", "-n", "operators", "--clusterrole=view", "--serviceaccount=operators:operator")
	kubectlIn(t, acme, "", "create", "configmap", "op-config", "-n", "operators", "--from-literal=v=acme")
	kubectlIn(t, beta, "", "create", "configmap", "beta-config", "-n", "default", "--from-literal=v=beta")
	kubectlIn(t, acme, strings.Replace(operatorManifest, "%s", "", 1), "apply", "-f", "-")

	// Upstream: the pod the ReplicaSet controller made has it, and the
	// ServiceAccount admission plugin added no kube-api-access volume.
	pod := upstreamPod(t, "acme-operators", "operator")
	assert.Equal(t, injected, accessOf(&pod.Spec))
	for _, v := range pod.Spec.Volumes {
		assert.False(t, strings.HasPrefix(v.Name, "kube-api-access-"), "the admission plugin added %s", v.Name)
	}
	op := pod.Spec.Containers[slices.IndexFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == "operator" })]
	assert.Equal(t, []string{"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "ENDPOINT"},
		[]string{op.Env[0].Name, op.Env[1].Name, op.Env[2].Name}, "injected first: the tenant's variables may refer to them")
	cm, err := admin.CoreV1().ConfigMaps("acme-operators").Get(ctx, translate.APIAccessName, metav1.GetOptions{})
	require.NoError(t, err)
	host, port, _ := net.SplitHostPort(addr)
	assert.Equal(t, map[string]string{"ca.crt": servingCert(t).CAPEM, "namespace": "operators", "host": host, "port": port}, cm.Data)

	// The tenant's view: JSON (kubectl), protobuf and watch (client-go),
	// YAML and Tables carrying the objects.
	for _, args := range [][]string{
		{"get", "pods", "-n", "operators", "-o", "json"}, {"get", "pod", pod.Name, "-n", "operators", "-o", "yaml"},
		{"get", "deployments,replicasets", "-n", "operators", "-o", "json"}, {"get", "pods", "-A", "-o", "json"},
		{"get", "pods", "-n", "operators", "-o", "wide"},
	} {
		out := kubectlIn(t, acme, "", args...)
		assert.NotContains(t, out, translate.APIAccessName, "kubectl %v", args)
	}
	client := protobufClient(t, acme)
	seen, err := client.CoreV1().Pods("operators").Get(ctx, pod.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, accessOf(&seen.Spec), "get")
	assert.Equal(t, []corev1.EnvVar{{Name: "ENDPOINT", Value: "$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)"}},
		seen.Spec.Containers[slices.IndexFunc(seen.Spec.Containers, func(c corev1.Container) bool { return c.Name == "operator" })].Env)
	dep, err := client.AppsV1().Deployments("operators").Get(ctx, "operator", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, accessOf(&dep.Spec.Template.Spec), "deployment")
	w, err := client.CoreV1().Pods("operators").Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	select {
	case ev := <-w.ResultChan():
		p, ok := ev.Object.(*corev1.Pod)
		require.True(t, ok, "%T", ev.Object)
		assert.Empty(t, accessOf(&p.Spec), "watch")
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event")
	}
	w.Stop()
	for _, accept := range []string{"application/json;as=Table;v=v1;g=meta.k8s.io", "application/yaml", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"} {
		body, err := client.CoreV1().RESTClient().Get().Namespace("operators").Resource("pods").
			Param("includeObject", "Object").SetHeader("Accept", accept).DoRaw(ctx)
		require.NoError(t, err, accept)
		assert.Contains(t, string(body), pod.Name, accept)
		assert.NotContains(t, string(body), translate.APIAccessName, accept)
	}

	// The operator's pod as the kubelet would run it: client-go's
	// rest.InClusterConfig, exactly the pod's environment and files.
	dir, env := podFiles(t, pod, "operator")
	assert.Contains(t, env, "KUBERNETES_SERVICE_HOST="+host, "the injected variable wins over the kubelet's service variable")
	assert.Contains(t, env, "KUBERNETES_SERVICE_PORT="+port)
	program := buildProgram(t, "test/e2e/server/incluster")
	out := runAsPod(t, program, dir, env, "watching", func() {
		kubectlIn(t, acme, "", "create", "configmap", "made-while-watching", "-n", "operators")
	}, "made-while-watching")
	var got struct {
		Host, Namespace, User, Watched string
		ConfigMaps                     []string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "https://"+addr, got.Host)
	assert.Equal(t, "operators", got.Namespace, "the tenant's namespace, not the upstream one")
	assert.Equal(t, "system:serviceaccount:operators:operator", got.User)
	assert.Contains(t, got.ConfigMaps, "operators/op-config")
	assert.Equal(t, "operators/made-while-watching", got.Watched)
	for _, name := range got.ConfigMaps {
		assert.True(t, strings.HasPrefix(name, "operators/"), name)
		assert.NotContains(t, name, "beta")
	}

	require.NoError(t, admin.CoreV1().Namespaces().Delete(ctx, "acme-operators", metav1.DeleteOptions{}))
	require.NoError(t, admin.CoreV1().ConfigMaps("beta-default").Delete(ctx, "beta-config", metav1.DeleteOptions{}))
}

// TestTenantWorkloadAccessRoundTrips: updates and patches made from the
// tenant's view — kubectl replace, client-side and server-side apply, a
// strategic merge patch — keep the injected parts exactly once, a no-op
// write changes no pod template, and a pod (whose spec is immutable) can be
// replaced and labeled. A pod that opts out gets nothing, and a tenant
// volume of the reserved name is refused.
func TestTenantWorkloadAccessRoundTrips(t *testing.T) {
	lb, _ := workloadServer(t)
	ctx := context.Background()
	admin := framework.AdminClient(t)
	acme := tenantKubeconfig(t, lb.URL(), clusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
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
	lb, _ := workloadServer(t)
	ctx := context.Background()
	admin := framework.AdminClient(t)
	acme := tenantKubeconfig(t, lb.URL(), clusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	beta := tenantKubeconfig(t, lb.URL(), clusterCert(t, "zoo:beta:admin", "zoo:tenant:beta"))

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
