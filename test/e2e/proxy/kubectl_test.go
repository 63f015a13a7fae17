package proxy_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestKubectlThroughProxy runs the long tail of kubectl commands for tenant
// acme through `kubectl zoo serve` (in its namespace "shop") and through two
// replicas of the multi-tenant server, reached with acme's client
// certificate (in "shop-server").
func TestKubectlThroughProxy(t *testing.T) {
	t.Run("serve", func(t *testing.T) { kubectlThrough(t, serve(t, "acme"), "shop") })
	t.Run("server", func(t *testing.T) { kubectlThrough(t, viaServer(t, servers(t), "acme"), "shop-server") })
}

func kubectlThrough(t *testing.T, s *served, shop string) {
	s.k(t, "create", "namespace", shop)
	t.Cleanup(func() { s.run(t, "", "delete", "namespace", shop, "--wait=false") })
	manifest := strings.ReplaceAll(workload("acme"), "namespace: prod", "namespace: "+shop)

	t.Run("apply client-side and diff", func(t *testing.T) {
		out := s.apply(t, manifest)
		assert.Contains(t, out, "deployment.apps/web created")
		res := s.run(t, manifest, "diff", "-f", "-")
		require.NoError(t, res.Err, "diff of an unchanged manifest: %s %s", res.Stdout, res.Stderr)
		changed := strings.Replace(manifest, "owner: acme", "owner: changed", 1)
		res = s.run(t, changed, "diff", "-f", "-")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stdout, "+  owner: changed")
		assert.NotContains(t, res.Stdout, "acme-"+shop)
	})
	t.Run("apply server-side", func(t *testing.T) {
		out := s.apply(t, strings.Replace(manifest, "owner: acme", "owner: ssa", 1), "--server-side", "--force-conflicts")
		assert.Contains(t, out, "serverside-applied")
		assert.Equal(t, "ssa", s.k(t, "-n", shop, "get", "cm", "cfg", "-o", "jsonpath={.data.owner}"))
		mf := s.k(t, "-n", shop, "get", "cm", "cfg", "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[*].manager}")
		assert.Contains(t, mf, "kubectl")
	})
	t.Run("patch all types", func(t *testing.T) {
		s.k(t, "-n", shop, "patch", "cm", "cfg", "--type=merge", "-p", `{"data":{"merge":"1"}}`)
		s.k(t, "-n", shop, "patch", "cm", "cfg", "--type=json", "-p", `[{"op":"add","path":"/data/json","value":"2"}]`)
		s.k(t, "-n", shop, "patch", "cm", "cfg", "--type=strategic", "-p", `{"data":{"strategic":"3"}}`)
		s.k(t, "-n", shop, "patch", "deploy", "web", "--type=strategic", "-p", `{"spec":{"template":{"metadata":{"annotations":{"patched":"yes"}}}}}`)
		got := s.k(t, "-n", shop, "get", "cm", "cfg", "-o", "jsonpath={.data.merge}{.data.json}{.data.strategic}")
		assert.Equal(t, "123", got)
	})
	t.Run("label and annotate", func(t *testing.T) {
		s.k(t, "-n", shop, "label", "cm", "cfg", "tier=gold")
		s.k(t, "-n", shop, "annotate", "cm", "cfg", "note=hi")
		assert.Equal(t, "configmap/cfg\n", s.k(t, "-n", shop, "get", "cm", "-l", "tier=gold", "-o", "name"))
		s.k(t, "label", "ns", shop, "team=blue-"+shop)
		assert.Equal(t, "namespace/"+shop+"\n", s.k(t, "get", "ns", "-l", "team=blue-"+shop, "-o", "name"))
	})
	t.Run("rollout, wait, scale", func(t *testing.T) {
		s.k(t, "-n", shop, "rollout", "status", "deploy/web", "--timeout=90s")
		s.k(t, "-n", shop, "wait", "deploy/web", "--for=condition=Available", "--timeout=90s")
		s.k(t, "-n", shop, "scale", "deploy/web", "--replicas=2")
		s.k(t, "-n", shop, "rollout", "status", "deploy/web", "--timeout=90s")
		assert.Equal(t, "2", s.k(t, "-n", shop, "get", "deploy", "web", "-o", "jsonpath={.status.readyReplicas}"))
		s.k(t, "-n", shop, "scale", "deploy/web", "--replicas=1")
		s.k(t, "-n", shop, "rollout", "status", "deploy/web", "--timeout=90s")
	})
	pod := waitPod(t, s, shop, "app=web")

	t.Run("logs", func(t *testing.T) {
		// Every container's log is the cluster's one log file (CRI format):
		// what kwok started it with, and what attach tests appended since.
		raw, err := os.ReadFile(framework.Cluster().LogFile)
		require.NoError(t, err)
		var want strings.Builder
		for _, line := range lines(string(raw)) {
			fields := strings.SplitN(line, " ", 4) // time stream tag message
			require.Len(t, fields, 4, line)
			want.WriteString(fields[3] + "\n")
		}
		require.True(t, strings.HasPrefix(want.String(), strings.Join(kubecluster.LogLines, "\n")+"\n"), want.String())
		assert.Equal(t, want.String(), s.k(t, "-n", shop, "logs", pod))
	})
	t.Run("logs follow", func(t *testing.T) { framework.LogsFollowShows(t, s.Kubeconfig, shop, pod) })
	t.Run("exec websocket", func(t *testing.T) {
		assert.Equal(t, "exec-42\n", s.k(t, "-n", shop, "exec", pod, "--", "echo", "exec-42"))
		res := s.run(t, "through stdin\n", "-n", shop, "exec", "-i", pod, "--", "cat")
		require.NoError(t, res.Err, res.Stderr)
		assert.Equal(t, "through stdin\n", res.Stdout)
	})
	t.Run("exec spdy", func(t *testing.T) {
		res := framework.Run(t.Context(), nil, "env", "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false", framework.KubectlPath(),
			"--kubeconfig", s.Kubeconfig, "-n", shop, "exec", pod, "--", "echo", "spdy-ok")
		require.NoError(t, res.Err, res.Stderr)
		assert.Equal(t, "spdy-ok\n", res.Stdout)
	})
	t.Run("cp", func(t *testing.T) {
		src := filepath.Join(t.TempDir(), "hello.txt")
		require.NoError(t, os.WriteFile(src, []byte("copied through the proxy\n"), 0o600))
		dir := strings.TrimSpace(s.k(t, "-n", shop, "exec", pod, "--", "mktemp", "-d"))
		// kubectl cp pipes a tar stream into `tar xf -` over exec and needs
		// the container to see the end of stdin; check the node does that
		// without the proxy first.
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		direct := framework.Run(ctx, nil, framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig,
			"-n", "acme-"+shop, "cp", src, pod+":"+dir+"/direct.txt")
		if direct.Err != nil {
			t.Skipf("kubectl cp does not work against the kwok node even without the proxy: %v %s", direct.Err, direct.Stderr)
		}
		s.k(t, "-n", shop, "cp", src, pod+":"+dir+"/hello.txt")
		assert.Equal(t, "copied through the proxy\n", s.k(t, "-n", shop, "exec", pod, "--", "cat", dir+"/hello.txt"))
	})
	t.Run("port-forward websocket", func(t *testing.T) { framework.PortForwardEcho(t, s.Kubeconfig, shop, "pod/"+pod, "8080") })
	t.Run("port-forward spdy", func(t *testing.T) {
		framework.PortForwardEcho(t, s.Kubeconfig, shop, "pod/"+pod, "8080", "KUBECTL_PORT_FORWARD_WEBSOCKETS=false")
	})
	t.Run("port-forward service", func(t *testing.T) { framework.PortForwardEcho(t, s.Kubeconfig, shop, "svc/web", "80") })
	t.Run("attach", func(t *testing.T) { framework.AttachSees(t, s.Kubeconfig, shop, pod) })
	t.Run("events", func(t *testing.T) {
		// Event messages are free text written by upstream controllers
		// ("Successfully assigned acme-shop/web-... to kwok-node-0"); the
		// translator never rewrites free text, so only the structured
		// fields are checked.
		out := s.k(t, "-n", shop, "events", "-o", "jsonpath={range .items[*]}{.involvedObject.namespace}/{.reason}{\"\\n\"}{end}")
		assert.Contains(t, out, shop+"/Scheduled")
		assert.NotContains(t, out, "acme-"+shop)
		out = s.k(t, "get", "events", "-A", "-o", "custom-columns=NS:.metadata.namespace,OBJNS:.involvedObject.namespace", "--no-headers")
		assert.Contains(t, out, shop)
		assert.NotContains(t, out, "acme-"+shop)
	})
	t.Run("discovery and explain", func(t *testing.T) {
		out := s.k(t, "api-resources")
		assert.Contains(t, out, "deployments")
		out = s.k(t, "api-versions")
		assert.Contains(t, out, "apps/v1")
		out = s.k(t, "explain", "deployment.spec.replicas")
		assert.Contains(t, out, "replicas")
	})
	t.Run("auth", func(t *testing.T) {
		assert.Equal(t, "yes\n", s.k(t, "-n", shop, "auth", "can-i", "create", "configmaps"))
		who := s.k(t, "auth", "whoami")
		assert.Contains(t, who, "admin")
		assert.NotContains(t, who, "zoo:")
		res := s.run(t, "", "auth", "can-i", "delete", "nodes", "-A")
		assert.Equal(t, "no\n", res.Stdout)
	})
	t.Run("watch", func(t *testing.T) {
		watchSees(t, s, []string{"-n", shop, "get", "cm", "-w", "--output-watch-events"}, func() {
			s.k(t, "-n", shop, "create", "cm", "watched", "--from-literal=a=b")
		}, "watched")
		watchSees(t, s, []string{"get", "cm", "-A", "-w"}, func() {
			s.k(t, "-n", shop, "create", "cm", "watched-all", "--from-literal=a=b")
		}, "watched-all")
	})
	t.Run("delete", func(t *testing.T) {
		s.k(t, "-n", shop, "delete", "cm", "watched")
		s.k(t, "-n", shop, "delete", "cm", "--all")
		out := s.k(t, "-n", shop, "get", "cm", "-o", "name")
		assert.NotContains(t, out, "configmap/cfg")
		assert.Equal(t, "", admin(t, "-n", "acme-"+shop, "get", "cm", "cfg", "--ignore-not-found", "-o", "name"))
	})
}

// waitPod waits for a running pod and returns its name.
func waitPod(t *testing.T, s *served, ns, selector string) string {
	t.Helper()
	s.k(t, "-n", ns, "wait", "pod", "-l", selector, "--for=jsonpath={.status.phase}=Running", "--timeout=90s")
	out := s.k(t, "-n", ns, "get", "pod", "-l", selector, "-o", "name")
	pod := strings.TrimPrefix(lines(out)[0], "pod/")
	require.NotEmpty(t, pod)
	return pod
}

// watchSees runs a kubectl watch and expects want to show up after action.
func watchSees(t *testing.T, s *served, args []string, action func(), want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	seen := startWatch(ctx, t, s, args)
	action()
	for {
		select {
		case l, ok := <-seen:
			require.True(t, ok, "watch ended before %q showed up", want)
			assert.NotContains(t, l, s.Tenant+"-")
			if strings.Contains(l, want) {
				return
			}
		case <-ctx.Done():
			t.Fatalf("watch never showed %q", want)
		}
	}
}

// startWatch runs kubectl with args (a watch) through s until ctx ends (the
// test waits for it to exit) and returns its output lines, once it has had a
// second for its initial list.
func startWatch(ctx context.Context, t *testing.T, s *served, args []string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, framework.KubectlPath(), append([]string{"--kubeconfig", s.Kubeconfig}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	time.Sleep(time.Second) // the initial list
	return lines
}
