// Package kubecluster runs a real Kubernetes control plane on loopback for
// tests and for `make dev-cluster`: etcd, kube-apiserver (RBAC + Node
// authorization, default admission plugins), kube-controller-manager,
// kube-scheduler and kwok with one fake node that is Ready and serves logs,
// exec, attach and port-forward through the apiserver's real streaming path.
// The binaries come from hack/build-kube.sh, and kwok from hack/build-kwok.sh
// (its exec runs built-in commands in a sandbox directory, never a command of
// this machine); no docker, no downloads.
package kubecluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Binaries in start order; their pid files carry these names.
var binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

// Options configure Start.
type Options struct {
	// BinDir holds etcd, kube-apiserver, kube-controller-manager,
	// kube-scheduler and kubectl.
	BinDir string
	// KwokBinDir holds the kwok built from hack/kwok (`make kwok`), whose
	// exec runs in a sandbox; $ZOO_KWOK_BIN if empty. The kwok of BinDir,
	// upstream's, is never run: its exec runs commands on this machine.
	KwokBinDir string
	// Dir is where the cluster keeps its state: pki/, etcd/, logs/, pids/
	// and the admin kubeconfig. It is created if missing.
	Dir string
	// Detach makes the processes outlive the caller (make dev-cluster).
	// Otherwise they die with the calling process, whatever way it ends.
	Detach bool
	// ReadyTimeout bounds the wait for the whole cluster; 2 minutes if zero.
	ReadyTimeout time.Duration
}

// Cluster is a running control plane.
type Cluster struct {
	// Dir is the cluster's state directory.
	Dir string
	// BinDir is where its binaries (and the matching kubectl) are.
	BinDir string
	// Kubeconfig is the path of an admin (system:masters) kubeconfig.
	Kubeconfig string
	// Config is a REST config for the admin.
	Config *rest.Config
	// Server is the apiserver's URL.
	Server string
	// EtcdServer is etcd's client URL (plain HTTP on loopback). Besides the
	// etcd API it serves etcd's /metrics and the v3 JSON gateway (/v3/...),
	// for tools that measure what the cluster stores.
	EtcdServer string
	// NodeName is the kwok node pods are scheduled to.
	NodeName string
	// LogFile is the file `kubectl logs` returns for every container.
	LogFile string
	// ExecSandbox is the directory under which kwok's exec keeps each pod's
	// files, in <namespace>/<pod>/: what an exec into the pod sees as "/".
	ExecSandbox string

	pki   *pki
	procs []*process
}

// PID returns the process ID of the named component (kube-apiserver, etcd,
// ...), for tools that measure what it spends.
func (c *Cluster) PID(name string) (int, bool) {
	for _, p := range c.procs {
		if p.name == name && p.cmd.Process != nil {
			return p.cmd.Process.Pid, true
		}
	}
	return 0, false
}

// KubeconfigFileName is the admin kubeconfig's name inside Dir.
const KubeconfigFileName = "kubeconfig"

// Start runs a new cluster and returns once it is ready: apiserver ready, the
// default ServiceAccount made by the controller-manager, the kwok node Ready.
// On error nothing is left running.
func Start(ctx context.Context, opts Options) (c *Cluster, err error) {
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 2 * time.Minute
	}
	if opts.KwokBinDir == "" {
		opts.KwokBinDir = os.Getenv(KwokBinEnv)
	}
	for _, b := range append([]string{"kubectl"}, binaries...) {
		if _, err := os.Stat(opts.binPath(b)); err != nil {
			return nil, fmt.Errorf("missing control-plane binary %s in %s (run `make kube kwok`; $%s names kwok's directory): %w",
				b, filepath.Dir(opts.binPath(b)), KwokBinEnv, err)
		}
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if opts.BinDir, err = filepath.Abs(opts.BinDir); err != nil { // the processes run in other directories
		return nil, err
	}
	if opts.KwokBinDir, err = filepath.Abs(opts.KwokBinDir); err != nil {
		return nil, err
	}
	for _, sub := range []string{"etcd", "logs", "pids", "kwok"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return nil, err
		}
	}
	c = &Cluster{Dir: dir, BinDir: opts.BinDir, NodeName: "kwok-node-0"}
	started := c // every error return sets c to nil
	defer func() {
		if err != nil {
			started.Stop()
		}
	}()
	ports, err := freePorts(4)
	if err != nil {
		return nil, err
	}
	etcdPort, etcdPeerPort, apiPort, kwokPort := ports[0], ports[1], ports[2], ports[3]
	c.Server = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	c.EtcdServer = "http://127.0.0.1:" + strconv.Itoa(etcdPort)

	if err := c.writePKI(); err != nil {
		return nil, err
	}
	if err := c.start(opts, "etcd", etcdArgs(dir, etcdPort, etcdPeerPort)); err != nil {
		return nil, err
	}
	if err := c.start(opts, "kube-apiserver", apiserverArgs(c.pki, etcdPort, apiPort)); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithTimeout(ctx, opts.ReadyTimeout)
	defer cancel()
	if c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	if err := c.waitFor(ctx, "kube-apiserver /readyz", func(ctx context.Context) error {
		return client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	}); err != nil {
		return nil, err
	}

	if err := c.start(opts, "kube-controller-manager", controllerManagerArgs(c.pki, c.Dir)); err != nil {
		return nil, err
	}
	if err := c.start(opts, "kube-scheduler", schedulerArgs(c.Dir)); err != nil {
		return nil, err
	}
	kwokConfig, err := c.writeKwokConfig()
	if err != nil {
		return nil, err
	}
	if err := c.start(opts, "kwok", kwokArgs(c.pki, c.Dir, kwokConfig, c.ExecSandbox, kwokPort)); err != nil {
		return nil, err
	}
	if err := c.registerNode(ctx, client); err != nil {
		return nil, err
	}
	if err := c.waitFor(ctx, "kwok node Ready", func(ctx context.Context) error {
		return nodeReady(ctx, client, c.NodeName)
	}); err != nil {
		return nil, err
	}
	if err := c.waitFor(ctx, "ServiceAccount default/default (kube-controller-manager)", func(ctx context.Context) error {
		_, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1GetOptions)
		return err
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop ends every process of the cluster. The state directory stays.
func (c *Cluster) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].stop(10 * time.Second)
	}
	c.procs = nil
	_ = stopRecorded(c.Dir, binaries, 10*time.Second)
}

// StopDir stops a detached cluster whose state directory is dir.
func StopDir(dir string) error {
	return stopRecorded(dir, binaries, 15*time.Second)
}

// Running reports whether every process of a detached cluster in dir is
// alive.
func Running(dir string) bool {
	for _, name := range binaries {
		raw, err := os.ReadFile(filepath.Join(dir, "pids", name+".pid"))
		if err != nil {
			return false
		}
		pid, err := strconv.Atoi(string(raw))
		if err != nil || !runsBinary(pid, name) {
			return false
		}
	}
	return true
}

// KwokBinEnv names the directory of the sandboxed kwok when
// Options.KwokBinDir is empty; the Makefile exports it.
const KwokBinEnv = "ZOO_KWOK_BIN"

// binPath is where the binary name is: kwok in KwokBinDir, the rest in
// BinDir.
func (o Options) binPath(name string) string {
	if name == "kwok" {
		return filepath.Join(o.KwokBinDir, name)
	}
	return filepath.Join(o.BinDir, name)
}

func (c *Cluster) start(opts Options, name string, args []string) error {
	p, err := startProcess(c.Dir, name, opts.binPath(name), args, opts.Detach)
	if err != nil {
		return err
	}
	c.procs = append(c.procs, p)
	return nil
}

// waitFor polls check until it succeeds, a process dies or ctx ends.
func (c *Cluster) waitFor(ctx context.Context, what string, check func(context.Context) error) error {
	var last error
	for {
		if last = check(ctx); last == nil {
			return nil
		}
		for _, p := range c.procs {
			if ended, err := p.exited(); ended {
				return fmt.Errorf("waiting for %s: %s exited (%v); see %s", what, p.name, err,
					filepath.Join(c.Dir, "logs", p.name+".log"))
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last error: %v); logs in %s", what, ctx.Err(), last,
				filepath.Join(c.Dir, "logs"))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
