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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// workloadServer starts two replicas that advertise the balancer in front
// of them to tenant pods, with the CA of their serving certificate. It
// returns the advertised address and kubeconfigs of acme's and beta's
// admins.
func workloadServer(t *testing.T) (addr, acme, beta string) {
	t.Helper()
	setup(t)
	pki := framework.ServingCert(t)
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(caFile, pki.CAPEM, 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr = ln.Addr().String()
	flags := []string{"--advertise-address", addr, "--advertise-ca-file", caFile}
	r1, r2 := framework.StartReplica(t, flags...), framework.StartReplica(t, flags...)
	lb := framework.BalanceOn(t, ln, false, r1.Addr, r2.Addr)
	acme = framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
	beta = framework.ServerKubeconfigFor(t, lb.URL(), framework.ClusterCert(t, "zoo:beta:admin", "zoo:tenant:beta"))
	return addr, acme, beta
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
	addr, acme, beta := workloadServer(t)
	ctx := context.Background()
	admin := framework.AdminClient(t)
	kubectlIn(t, acme, "", "create", "namespace", "operators")
	kubectlIn(t, acme, "", "create", "serviceaccount", "operator", "-n", "operators")
	kubectlIn(t, acme, "", "create", "rolebinding", "operator-view", "-n", "operators", "--clusterrole=view", "--serviceaccount=operators:operator")
	waitAuthorized(t, "system:serviceaccount:acme-operators:operator", "list", "configmaps", "acme-operators")
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
	assert.Equal(t, map[string]string{"ca.crt": string(framework.ServingCert(t).CAPEM), "namespace": "operators", "host": host, "port": port}, cm.Data)

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
