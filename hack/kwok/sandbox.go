package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/utils/exec"
)

// sandbox is the container runtime of the front's exec: each pod gets a
// directory of its own under dir, which its commands see as "/", and a
// command is one of the built-ins (builtins.go), run in this process. No
// command of this machine ever runs, whatever the pod asks: an absolute path
// names a built-in by its base name, a shell is refused, and a path cannot
// leave the pod's directory (os.Root refuses `..` and symbolic links out).
type sandbox struct {
	dir string
}

// ExecInContainer runs cmd as a built-in in the pod's sandbox. name is
// "namespace/pod". A command that ends with a non-zero status returns an
// error carrying it, which kubectl turns into its own exit status.
func (s *sandbox) ExecInContainer(_ context.Context, name string, _ types.UID, _ string, cmd []string,
	in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommand.TerminalSize, _ time.Duration) error {
	if resize != nil {
		go func() { // the stream handler blocks until someone reads
			for range resize {
			}
		}()
	}
	root, host, err := s.podRoot(name)
	if err != nil {
		return err
	}
	defer root.Close()
	p := &proc{root: root, hostname: host, in: in, out: orDiscard(out), errOut: orDiscard(errOut)}
	if tty { // one stream, stdout, for both
		p.out = crlfWriter{p.out}
		p.errOut = p.out
	}
	if p.in == nil {
		p.in = strings.NewReader("")
	}
	if code := p.run(cmd); code != 0 {
		return utilexec.CodeExitError{Err: fmt.Errorf("command terminated with exit code %d", code), Code: code}
	}
	return nil
}

// podRoot opens (making it if needed) the sandbox of the pod
// "namespace/pod" and returns it with the pod's name.
func (s *sandbox) podRoot(name string) (*os.Root, string, error) {
	ns, pod, ok := strings.Cut(name, "/")
	if !ok || len(validation.IsDNS1123Label(ns)) != 0 || len(validation.IsDNS1123Subdomain(pod)) != 0 {
		return nil, "", fmt.Errorf("invalid pod %q", name)
	}
	dir := filepath.Join(s.dir, ns, pod)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("pod sandbox: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", fmt.Errorf("pod sandbox: %w", err)
	}
	return root, pod, nil
}

// crlfWriter writes "\n" as "\r\n", as a terminal in raw mode needs.
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(b []byte) (int, error) {
	if _, err := c.w.Write([]byte(strings.ReplaceAll(string(b), "\n", "\r\n"))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// orDiscard is w, or io.Discard for a stream the client did not ask for.
func orDiscard(w io.WriteCloser) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
