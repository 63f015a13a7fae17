package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// zoo runs `kubectl zoo ARGS` as the upstream admin.
func zoo(ctx context.Context, c config, adminKubeconfig string, args ...string) error {
	cmd := exec.CommandContext(ctx, c.zoo, append([]string{"--kubeconfig", adminKubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("kubectl zoo %v: %w\n%s", args, err, out)
	}
	return nil
}

// served is a running `kubectl zoo serve`.
type served struct {
	cmd        *exec.Cmd
	kubeconfig string
	// exited is closed once the process has ended, with waitErr set.
	exited  chan struct{}
	waitErr error
}

// startServe starts `kubectl zoo serve --tenant` and returns once its
// kubeconfig answers. Its output goes to dir/serve.log.
func startServe(ctx context.Context, c config, adminKubeconfig, tenant, dir string) (*served, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dir, tenant+".kubeconfig")
	_ = os.Remove(kubeconfig)
	log, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.zoo, "--kubeconfig", adminKubeconfig, "serve", "--tenant", tenant,
		"--kubeconfig-out", kubeconfig)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		_ = log.Close()
		return nil, err
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("start kubectl zoo serve: %w", err)
	}
	s := &served{cmd: cmd, kubeconfig: kubeconfig, exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
		}
		s.waitErr = cmd.Wait()
		_ = log.Close()
		close(s.exited)
	}()

	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ping(ctx, kubeconfig)
		if err == nil {
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("kubectl zoo serve exited (%v); see %s", s.waitErr, filepath.Join(dir, "serve.log"))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, errors.Join(errors.New("kubectl zoo serve did not answer within 30s"), err)
		}
	}
}

// ping asks the server of kubeconfig for its version.
func ping(ctx context.Context, kubeconfig string) error {
	if _, err := os.Stat(kubeconfig); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = cs.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	return err
}

// stop ends serve with SIGTERM (SIGKILL after 20 s); it may be called more
// than once.
func (s *served) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}
