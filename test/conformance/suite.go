package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// suiteRun is one ginkgo run of e2e.test against one kubeconfig.
type suiteRun struct {
	// name is "direct" or "proxied"; the run's files are in dir/name.
	name       string
	kubeconfig string
}

// run runs the focused specs with ginkgo and returns the path of its JSON
// report. A failing spec is not an error; a missing report is.
func (r suiteRun) run(ctx context.Context, c config, skip string) (report string, took time.Duration, err error) {
	dir := filepath.Join(c.work, r.name)
	if err := os.RemoveAll(dir); err != nil {
		return "", 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}
	logPath := filepath.Join(dir, "ginkgo.log")
	log, err := os.Create(logPath)
	if err != nil {
		return "", 0, err
	}
	defer log.Close()

	args := []string{
		"--nodes=" + strconv.Itoa(c.nodes),
		"--focus=" + c.focus,
		"--timeout=" + c.timeout.String(),
		"--poll-progress-after=" + (5 * time.Minute).String(),
		"--json-report=report.json",
		"--output-dir=" + dir,
		"--no-color",
		"--silence-skips",
	}
	if skip != "" {
		args = append(args, "--skip="+skip)
	}
	args = append(args, filepath.Join(c.e2eBin, "e2e.test"), "--",
		"--kubeconfig="+r.kubeconfig,
		"--provider=skeleton",
		"--kubectl-path="+filepath.Join(c.kubeBin, "kubectl"),
		"--report-dir="+dir,
		"--e2e-output-dir="+dir,
		"--disable-log-dump",
		"--allowed-not-ready-nodes=0",
		"--node-os-distro=custom",
		// The upstream's kube-system holds no pods; do not wait for any.
		"--minStartupPods=0",
	)
	cmd := exec.CommandContext(ctx, filepath.Join(c.e2eBin, "ginkgo"), args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	// e2e.test runs kubectl itself for some specs; KUBECONFIG must not
	// point elsewhere than --kubeconfig.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+r.kubeconfig)
	// ginkgo runs one e2e.test per node: on cancel, end the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	logf("%s: running %q with %d ginkgo nodes; log in %s", r.name, c.focus, c.nodes, logPath)
	start := time.Now()
	runErr := cmd.Run()
	took = time.Since(start)
	report = filepath.Join(dir, "report.json")
	if _, err := os.Stat(report); err != nil {
		return "", took, fmt.Errorf("%s run wrote no report (ginkgo: %v); see %s: %w", r.name, runErr, logPath, err)
	}
	logf("%s: done in %s (ginkgo: %v)", r.name, took.Round(time.Second), exitState(runErr))
	return report, took, nil
}

// exitState describes how ginkgo ended: a non-zero exit just means that some
// spec failed.
func exitState(err error) string {
	if err == nil {
		return "every spec passed"
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return "exit " + strconv.Itoa(ee.ExitCode()) + ", some specs failed"
	}
	return err.Error()
}

// joinSkips turns the skip list into one ginkgo regular expression.
func joinSkips(skips []skipEntry) string {
	var parts []string
	for _, s := range skips {
		parts = append(parts, "(?:"+s.Pattern+")")
	}
	return strings.Join(parts, "|")
}
