package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
)

// benchTenant is the tenant every endpoint acts as.
const benchTenant = "bench"

// endpoint is one way to reach the upstream.
type endpoint struct {
	name   string
	config *rest.Config
	// prefix turns a tenant-local namespace into the one to use on this
	// endpoint: the upstream's for direct and pass-through, none through
	// the translating proxy.
	prefix string
	// cmd is the proxy process, nil for the direct endpoint.
	cmd *exec.Cmd
	// profiles is the proxy's net/http/pprof base URL, when it serves one.
	profiles string
}

func (e *endpoint) ns(local string) string { return e.prefix + local }

// endpoint returns the endpoint of that name.
func (e *env) endpoint(name string) *endpoint {
	for _, ep := range e.endpoints {
		if ep.name == name {
			return ep
		}
	}
	panic("no endpoint " + name)
}

func (e *endpoint) client() (*kubernetes.Clientset, error) {
	cfg := rest.CopyConfig(e.config)
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling: measure the servers
	return kubernetes.NewForConfig(cfg)
}

// env is the running set-up: the four endpoints.
type env struct {
	endpoints []*endpoint
	admin     *kubernetes.Clientset
	cluster   *kubecluster.Cluster
	// dir holds the run's files (kubeconfigs, logs).
	dir string
}

func (e *env) close() {
	for _, ep := range e.endpoints {
		ep.stop()
	}
}

// stop ends the endpoint's proxy process, if it has one.
func (e *endpoint) stop() {
	if e.cmd != nil && e.cmd.Process != nil {
		_ = e.cmd.Process.Signal(syscall.SIGTERM)
		_ = e.cmd.Wait()
	}
}

// setUp installs kubectl-zoo, creates the tenant and starts the endpoints.
func setUp(ctx context.Context, c config, cluster *kubecluster.Cluster, dir string) (*env, error) {
	zoo := func(args ...string) error {
		out, err := exec.CommandContext(ctx, c.zoo, append([]string{"--kubeconfig", cluster.Kubeconfig}, args...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("kubectl-zoo %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := zoo("install"); err != nil {
		return nil, err
	}
	if err := zoo("tenant", "create", benchTenant); err != nil {
		return nil, err
	}
	adminCfg := rest.CopyConfig(cluster.Config)
	adminCfg.QPS, adminCfg.Burst = -1, 0 // set-up and watch writes must not be throttled
	admin, err := kubernetes.NewForConfig(adminCfg)
	if err != nil {
		return nil, err
	}
	e := &env{admin: admin, cluster: cluster, dir: dir}

	direct := rest.CopyConfig(cluster.Config)
	direct.Impersonate = rest.ImpersonationConfig{UserName: "zoo:" + benchTenant + ":admin", Groups: []string{"zoo:tenant:" + benchTenant, "zoo:admins"}}
	e.endpoints = append(e.endpoints, &endpoint{name: "direct", config: direct, prefix: benchTenant + "-"})

	pass, err := startPassthrough(ctx, c, cluster)
	if err != nil {
		e.close()
		return nil, err
	}
	e.endpoints = append(e.endpoints, pass)

	proxied, err := startServe(ctx, c, cluster, dir, benchTenant)
	if err != nil {
		e.close()
		return nil, err
	}
	e.endpoints = append(e.endpoints, proxied)

	server, err := startServer(ctx, c, cluster, dir)
	if err != nil {
		e.close()
		return nil, err
	}
	e.endpoints = append(e.endpoints, server)
	return e, nil
}

// startPassthrough runs `kubectl proxy` impersonating the tenant identity, so
// the upstream does the same authorization work as for the other two.
func startPassthrough(ctx context.Context, c config, cluster *kubecluster.Cluster) (*endpoint, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.kubeBin, "kubectl"), "proxy", "--port=0",
		"--kubeconfig", cluster.Kubeconfig,
		"--as", "zoo:"+benchTenant+":admin", "--as-group", "zoo:tenant:"+benchTenant, "--as-group", "zoo:admins")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ep := &endpoint{name: "passthrough", prefix: benchTenant + "-", cmd: cmd}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return ep, fmt.Errorf("kubectl proxy: %w", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "Starting to serve on ")
	if !ok {
		return ep, fmt.Errorf("kubectl proxy printed %q", line)
	}
	ep.config = &rest.Config{Host: "http://" + addr}
	return ep, nil
}

// startServe runs `kubectl zoo serve` for tenant with profiling on a free
// loopback port, reads the profile URL from its output and the kubeconfig it
// writes.
func startServe(ctx context.Context, c config, cluster *kubecluster.Cluster, dir, tenant string) (*endpoint, error) {
	kubeconfig := filepath.Join(dir, "zoo.kubeconfig")
	if tenant != benchTenant {
		kubeconfig = filepath.Join(dir, "zoo-"+tenant+".kubeconfig")
	}
	cmd := exec.CommandContext(ctx, c.zoo, "serve", "--tenant", tenant,
		"--kubeconfig", cluster.Kubeconfig, "--kubeconfig-out", kubeconfig, "--profile-address", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ep := &endpoint{name: "proxied", cmd: cmd}
	profiles := make(chan string, 1)
	go func() { // echo serve's output, noting the profile URL
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			fmt.Fprintln(os.Stderr, sc.Text())
			if u, ok := strings.CutPrefix(sc.Text(), "Serving profiles on "); ok {
				profiles <- strings.TrimSpace(u)
			}
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err == nil {
			if cs, err := kubernetes.NewForConfig(cfg); err == nil {
				if _, err := cs.Discovery().ServerVersion(); err == nil {
					ep.config = cfg
					select { // printed before the kubeconfig was written
					case ep.profiles = <-profiles:
					case <-time.After(5 * time.Second):
						return ep, errors.New("kubectl zoo serve printed no profile URL")
					}
					return ep, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return ep, errors.Join(errors.New("kubectl zoo serve did not come up in 30s"), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// goroutines returns the proxy's goroutine count from its profile endpoint
// (the first line of goroutine?debug=1: "goroutine profile: total N").
func (e *endpoint) goroutines(ctx context.Context) (float64, bool) {
	if e.profiles == "" {
		return 0, false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.profiles+"goroutine?debug=1", nil)
	if err != nil {
		return 0, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	var n float64
	if _, err := fmt.Sscanf(line, "goroutine profile: total %f", &n); err != nil {
		return 0, false
	}
	return n, true
}

// saveProfiles saves the proxy's heap profile and goroutine stacks as
// <dir>/<endpoint>-<when>-{heap.pb.gz,goroutines.txt}, for `go tool pprof`.
func (e *endpoint) saveProfiles(ctx context.Context, dir, when string) error {
	if e.profiles == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range []struct{ path, file string }{{"heap?gc=1", "heap.pb.gz"}, {"goroutine?debug=1", "goroutines.txt"}} {
		if err := e.saveProfile(ctx, p.path, filepath.Join(dir, e.name+"-"+when+"-"+p.file)); err != nil {
			return err
		}
	}
	return nil
}

// cpuSeconds returns the CPU time (user and system, all threads) the
// endpoint's proxy process has used so far.
func (e *endpoint) cpuSeconds() (float64, bool) {
	if e.cmd == nil || e.cmd.Process == nil {
		return 0, false
	}
	return processCPUSeconds(e.cmd.Process.Pid)
}

// processCPUSeconds returns the CPU time (user and system, all threads) the
// process pid has used so far.
func processCPUSeconds(pid int) (float64, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: count from its closing ')'.
	_, rest, ok := strings.Cut(string(stat), ") ")
	fields := strings.Fields(rest)
	if !ok || len(fields) < 13 {
		return 0, false
	}
	var utime, stime float64
	if _, err := fmt.Sscan(fields[11], &utime); err != nil {
		return 0, false
	}
	if _, err := fmt.Sscan(fields[12], &stime); err != nil {
		return 0, false
	}
	const userHZ = 100 // USER_HZ, the unit of utime and stime, is 100 on Linux
	return (utime + stime) / userHZ, true
}

// processRSSKiB returns the resident set size (VmRSS) and its peak (VmHWM)
// of process pid, in KiB.
func processRSSKiB(pid int) (rss, peak float64, ok bool) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		var v float64
		if _, err := fmt.Sscanf(line, "VmRSS: %f kB", &v); err == nil {
			rss = v
		}
		if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &v); err == nil {
			peak = v
		}
	}
	return rss, peak, true
}

// rssKiB returns the resident set size (VmRSS) and its peak (VmHWM) of the
// endpoint's proxy process, in KiB.
func (e *endpoint) rssKiB() (rss, peak float64, ok bool) {
	if e.cmd == nil || e.cmd.Process == nil {
		return 0, 0, false
	}
	return processRSSKiB(e.cmd.Process.Pid)
}

// profileWorkload, when -profiles names a directory and the endpoint serves
// profiles, saves the proxy's CPU profile over the next seconds and its
// cumulative allocations before and after them, as
// <dir>/<endpoint>-<what>-{cpu,allocs-before,allocs-after}.pb.gz
// (`go tool pprof -diff_base ...-allocs-before.pb.gz ...-allocs-after.pb.gz`
// gives the workload's own allocations). The returned wait blocks until
// the profiles are saved; a profile that fails is logged, never fatal.
func (e *endpoint) profileWorkload(ctx context.Context, c config, what string, seconds int) (wait func()) {
	if c.profiles == "" || e.profiles == "" {
		return func() {}
	}
	if err := os.MkdirAll(c.profiles, 0o755); err != nil {
		logf("saving the %s profiles: %v", e.name, err)
		return func() {}
	}
	save := func(path, file string) {
		if err := e.saveProfile(ctx, path, filepath.Join(c.profiles, e.name+"-"+what+"-"+file)); err != nil {
			logf("saving the %s %s profile: %v", e.name, file, err)
		}
	}
	save("allocs", "allocs-before.pb.gz")
	done := make(chan struct{})
	go func() {
		defer close(done)
		save(fmt.Sprintf("profile?seconds=%d", seconds), "cpu.pb.gz")
		save("allocs", "allocs-after.pb.gz")
	}()
	return func() { <-done }
}

// saveProfile fetches the profile at path of the endpoint's pprof server
// into file.
func (e *endpoint) saveProfile(ctx context.Context, path, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.profiles+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", path, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}
