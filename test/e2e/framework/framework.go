// Package framework gives end-to-end tests a real control plane (one per test
// binary, started in TestMain) and the real kubectl and kubectl-zoo binaries.
//
//	func TestMain(m *testing.M) { framework.Main(m) }
//
// It needs ZOO_KUBE_BIN (the control-plane binaries, built by `make kube`) and
// ZOO_ROOT (the repository, whose bin/kubectl-zoo `make build` made, and
// whose bin/kwok/kwok `make kwok` made, unless ZOO_KWOK_BIN names another
// directory); `make test-e2e` sets them.
package framework

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
)

var cluster *kubecluster.Cluster

// Main starts the cluster, runs the tests and stops the cluster. When a test
// fails, the tail of every component's log is printed and the state directory
// is kept for a closer look.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bin := os.Getenv("ZOO_KUBE_BIN")
	if bin == "" {
		fmt.Fprintln(os.Stderr, "e2e: ZOO_KUBE_BIN is not set; run `make test-e2e` (it builds the control plane and sets it)")
		return 1
	}
	if os.Getenv(kubecluster.KwokBinEnv) == "" { // every cluster of the test binary
		_ = os.Setenv(kubecluster.KwokBinEnv, filepath.Join(os.Getenv("ZOO_ROOT"), "bin", "kwok"))
	}
	dir, err := os.MkdirTemp("", "zoo-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	start := time.Now()
	cluster, err = kubecluster.Start(context.Background(), kubecluster.Options{BinDir: bin, Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: start cluster:", err)
		printLogTails(dir)
		return 1
	}
	fmt.Fprintf(os.Stderr, "e2e: cluster ready in %s at %s (state in %s)\n", time.Since(start).Round(time.Millisecond), cluster.Server, dir)
	code := m.Run()
	cluster.Stop()
	if code != 0 {
		printLogTails(dir)
		fmt.Fprintf(os.Stderr, "e2e: tests failed; cluster state kept in %s\n", dir)
		return code
	}
	_ = os.RemoveAll(dir)
	return code
}

// Cluster returns the cluster of this test binary.
func Cluster() *kubecluster.Cluster { return cluster }

// AdminClient returns a clientset acting as a cluster admin.
func AdminClient(t testing.TB) kubernetes.Interface {
	t.Helper()
	client, err := kubernetes.NewForConfig(cluster.Config)
	require.NoError(t, err)
	return client
}

// KubectlPath is the pinned kubectl built with the control plane.
func KubectlPath() string { return filepath.Join(cluster.BinDir, "kubectl") }

// ZooPath is the kubectl-zoo binary under test (bin/kubectl-zoo).
func ZooPath(t testing.TB) string {
	t.Helper()
	root := os.Getenv("ZOO_ROOT")
	require.NotEmpty(t, root, "ZOO_ROOT is not set; run `make test-e2e`")
	path := filepath.Join(root, "bin", "kubectl-zoo")
	_, err := os.Stat(path)
	require.NoError(t, err, "run `make build` first")
	return path
}

// Result is what a command printed and how it ended.
type Result struct {
	Stdout, Stderr string
	Err            error
}

// Run runs a command with a timeout and returns what it printed. The
// environment has KUBECONFIG unset, so commands act only on the flags given.
// A context that is done already does not stop the command: the testing
// package cancels t.Context() before a test's cleanups run, and a cleanup
// that deletes what the test made with it must still delete it.
func Run(ctx context.Context, stdin []byte, name string, args ...string) Result {
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG=/dev/null/unset")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

// Kubectl runs the pinned kubectl as the cluster admin and fails the test if
// it fails. It returns stdout.
func Kubectl(t testing.TB, args ...string) string {
	t.Helper()
	return KubectlAs(t, cluster.Kubeconfig, args...)
}

// KubectlAs runs the pinned kubectl with kubeconfig and fails the test if it
// fails. It returns stdout.
func KubectlAs(t testing.TB, kubeconfig string, args ...string) string {
	t.Helper()
	res := Run(t.Context(), nil, KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	require.NoError(t, res.Err, "kubectl %v\nstdout: %s\nstderr: %s", args, res.Stdout, res.Stderr)
	return res.Stdout
}

// printLogTails prints the last lines of each component log under dir.
func printLogTails(dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*.log"))
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		var lines []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if len(lines) > 40 {
				lines = lines[1:]
			}
		}
		_ = f.Close()
		fmt.Fprintf(os.Stderr, "----- last lines of %s\n", path)
		for _, l := range lines {
			fmt.Fprintln(os.Stderr, l)
		}
	}
}

// WriteClientKubeconfig writes a kubeconfig for the cluster that
// authenticates with the given client certificate and key, and returns its
// path (in a directory the test removes).
func WriteClientKubeconfig(t testing.TB, certPEM, keyPEM []byte) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["zoo-dev"] = &clientcmdapi.Cluster{Server: cluster.Server, CertificateAuthorityData: cluster.CACertPEM()}
	cfg.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	cfg.Contexts["zoo-dev"] = &clientcmdapi.Context{Cluster: "zoo-dev", AuthInfo: "user"}
	cfg.CurrentContext = "zoo-dev"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}
