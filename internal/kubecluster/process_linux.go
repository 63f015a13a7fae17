package kubecluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is one control-plane binary the cluster runs.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed
}

// startProcess runs bin with args, appending its output to logs/<name>.log
// under dir and recording its pid in pids/<name>.pid.
//
// An attached process dies with its parent (PR_SET_PDEATHSIG), so a test
// binary that panics, times out or is interrupted leaves no orphans. A
// detached process gets a session of its own and outlives the caller; it is
// stopped later by stopRecorded.
func startProcess(dir, name, bin string, args []string, detach bool) (*process, error) {
	for _, sub := range []string{"logs", "pids"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	logFile, err := os.OpenFile(filepath.Join(dir, "logs", name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor

	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = dir
	if detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	pidFile := filepath.Join(dir, "pids", name+".pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended, with its error.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop asks the process to end and kills it after grace.
func (p *process) stop(grace time.Duration) {
	if ended, _ := p.exited(); ended {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// stopRecorded stops the processes whose pids are recorded under dir by a
// detached start, in reverse start order, and removes their pid files. A pid
// whose process no longer runs the recorded binary is ignored, so a stale pid
// file never kills an unrelated process.
func stopRecorded(dir string, order []string, grace time.Duration) error {
	var errs []error
	for i := len(order) - 1; i >= 0; i-- {
		name := order[i]
		pidFile := filepath.Join(dir, "pids", name+".pid")
		raw, err := os.ReadFile(pidFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			errs = append(errs, err)
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err == nil && runsBinary(pid, name) {
			killAndWait(pid, grace)
		}
		if err := os.Remove(pidFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runsBinary reports whether pid is alive and its executable is named name.
func runsBinary(pid int, name string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(cmdline) == 0 {
		return false
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return filepath.Base(string(argv0)) == name
}

func killAndWait(pid int, grace time.Duration) {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
