package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// serviceAccountDir is where the kubelet mounts a pod's ServiceAccount
// volume and client-go's rest.InClusterConfig reads it.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// podFiles does the kubelet's part for one container of an upstream pod
// (kwok runs no container): it writes into a new directory the files of the
// projected volume mounted at serviceAccountDir — a token from a
// TokenRequest bound to the pod, with the expiration the source asks for,
// and the ConfigMap keys the source names — and returns it with the
// container's environment: the service variables the kubelet sets for the
// cluster's default/kubernetes Service, overridden by the variables the
// container declares (values and ConfigMap keys), as the kubelet does.
func podFiles(t *testing.T, pod *corev1.Pod, container string) (dir string, env []string) {
	t.Helper()
	ctx := context.Background()
	admin := framework.AdminClient(t)
	i := slices.IndexFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == container })
	require.GreaterOrEqual(t, i, 0, "container %s", container)
	ctr := pod.Spec.Containers[i]
	m := slices.IndexFunc(ctr.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == serviceAccountDir })
	require.GreaterOrEqual(t, m, 0, "the container mounts nothing at %s", serviceAccountDir)
	v := slices.IndexFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == ctr.VolumeMounts[m].Name })
	require.GreaterOrEqual(t, v, 0)
	projected := pod.Spec.Volumes[v].Projected
	require.NotNil(t, projected, "the volume at %s is not projected", serviceAccountDir)

	dir = t.TempDir()
	configMap := func(name string) *corev1.ConfigMap {
		cm, err := admin.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, "the kubelet could not start the pod: ConfigMap %s", name)
		return cm
	}
	for _, src := range projected.Sources {
		switch {
		case src.ServiceAccountToken != nil:
			s := src.ServiceAccountToken
			var audiences []string
			if s.Audience != "" {
				audiences = []string{s.Audience}
			}
			tr, err := admin.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, pod.Spec.ServiceAccountName, &authenticationv1.TokenRequest{
				Spec: authenticationv1.TokenRequestSpec{Audiences: audiences, ExpirationSeconds: s.ExpirationSeconds,
					BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, s.Path), []byte(tr.Status.Token), 0o644))
		case src.ConfigMap != nil:
			cm := configMap(src.ConfigMap.Name)
			for _, item := range src.ConfigMap.Items {
				val, ok := cm.Data[item.Key]
				require.True(t, ok, "ConfigMap %s has no key %s", cm.Name, item.Key)
				require.NoError(t, os.WriteFile(filepath.Join(dir, item.Path), []byte(val), 0o644))
			}
		default:
			t.Fatalf("a projected source podFiles does not know: %+v", src)
		}
	}

	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	svc, err := admin.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
	require.NoError(t, err)
	ip, port := svc.Spec.ClusterIP, strconv.Itoa(int(svc.Spec.Ports[0].Port))
	set("KUBERNETES_SERVICE_HOST", ip)
	set("KUBERNETES_SERVICE_PORT", port)
	set("KUBERNETES_SERVICE_PORT_HTTPS", port)
	set("KUBERNETES_PORT", "tcp://"+ip+":"+port)
	prefix := "KUBERNETES_PORT_" + port + "_TCP"
	set(prefix, "tcp://"+ip+":"+port)
	set(prefix+"_PROTO", "tcp")
	set(prefix+"_PORT", port)
	set(prefix+"_ADDR", ip)
	for _, e := range ctr.Env {
		switch {
		case e.ValueFrom == nil:
			set(e.Name, e.Value)
		case e.ValueFrom.ConfigMapKeyRef != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			val, ok := configMap(ref.Name).Data[ref.Key]
			require.True(t, ok, "ConfigMap %s has no key %s", ref.Name, ref.Key)
			set(e.Name, val)
		default:
			t.Fatalf("a variable podFiles does not resolve: %+v", e)
		}
	}
	for _, k := range order {
		env = append(env, k+"="+vars[k])
	}
	return dir, env
}

// runAsPod runs program with exactly env and with dir mounted read-only at
// serviceAccountDir, in a mount namespace of its own (unshare(1)): the
// paths client-go reads are fixed, so the program reads them where a pod
// would, and nothing of this machine's own /var/run is in its way. started
// is called once the program wrote line to its standard error.
func runAsPod(t *testing.T, program, dir string, env []string, line string, started func(), args ...string) string {
	t.Helper()
	run, err := filepath.EvalSymlinks("/var/run")
	require.NoError(t, err)
	script := `set -e
mount -t tmpfs -o mode=0755 zoo-e2e-run "$RUN"
mkdir -p "$RUN/secrets/kubernetes.io/serviceaccount"
mount --bind "$DIR" "$RUN/secrets/kubernetes.io/serviceaccount"
mount -o remount,bind,ro "$RUN/secrets/kubernetes.io/serviceaccount"
exec env -i "$@"`
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh"},
		append(append(env, program), args...)...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "RUN=" + run, "DIR=" + dir}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var errOut strings.Builder
	buf := make([]byte, 4096)
	signalled := false
	for {
		n, err := stderr.Read(buf)
		errOut.Write(buf[:n])
		if !signalled && strings.Contains(errOut.String(), line) {
			signalled = true
			started()
		}
		if err != nil {
			break
		}
	}
	err = cmd.Wait()
	require.NoError(t, err, "%s: %s", filepath.Base(program), errOut.String())
	return stdout.String()
}

// buildProgram builds a main package of this module into a temporary
// directory.
func buildProgram(t *testing.T, pkg string) string {
	t.Helper()
	root := os.Getenv("ZOO_ROOT")
	require.NotEmpty(t, root, "ZOO_ROOT is not set; run `make test-e2e`")
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, "./"+pkg)
	cmd.Dir = root
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build %s: %s", pkg, msg)
	return out
}
