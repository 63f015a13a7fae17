package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// What a pod may write to this machine's disk: its sandbox holds at most
// podMaxBytes (an archive is counted whole, headers too), and one `tar x`
// extracts at most tarMaxEntries entries.
const (
	podMaxBytes   = 64 << 20
	tarMaxEntries = 4096
)

// tarArgs is what tar was asked: kubectl cp runs `tar -xmf - [-C dir]` and
// `tar cf - path`; the archive is always stdin or stdout.
type tarArgs struct {
	extract bool
	dir     string
	paths   []string
}

func parseTar(args []string) (tarArgs, error) {
	var t tarArgs
	var mode, file bool
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--no-same-permissions" || a == "--no-same-owner":
		case a == "-C" && i+1 < len(args):
			i++
			t.dir = args[i]
		case !mode && strings.Trim(strings.TrimPrefix(a, "-"), "xcfmvop") == "" && strings.ContainsAny(a, "xc"):
			mode = true
			t.extract = strings.Contains(a, "x")
			if strings.Contains(a, "x") == strings.Contains(a, "c") {
				return t, errors.New("one of x and c")
			}
			if file = strings.Contains(a, "f"); file {
				if i+1 >= len(args) || args[i+1] != "-" {
					return t, errors.New("the archive is stdin or stdout (f -) here")
				}
				i++
			}
		case mode:
			t.paths = append(t.paths, a)
		default:
			return t, fmt.Errorf("unsupported argument %q", a)
		}
	}
	if !mode {
		return t, errors.New("one of x and c")
	}
	return t, nil
}

// tar extracts stdin into the sandbox or writes an archive of its paths to
// stdout. Only directories and regular files are extracted: a link could
// name a place outside the sandbox to a later command.
func (p *proc) tar(args []string) int {
	t, err := parseTar(args)
	if err != nil {
		fmt.Fprintf(p.errOut, "tar: %v (only `tar [-]x[m]f - [-C dir]` and `tar [-]cf - path...` run here)\n", err)
		return 2
	}
	if t.extract {
		return p.untar(t.dir)
	}
	return p.mktar(t.paths)
}

func (p *proc) untar(dir string) int {
	left, err := p.left()
	if err != nil {
		return p.fail("tar", "/", err)
	}
	in := &io.LimitedReader{R: p.in, N: left + 1}
	r := tar.NewReader(in)
	for n := 0; ; n++ {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err == nil && n >= tarMaxEntries {
			err = fmt.Errorf("more than %d entries", tarMaxEntries)
		}
		if err == nil {
			err = p.extract(r, rel(path.Join(dir, h.Name)), h)
		}
		if in.N <= 0 {
			err = fmt.Errorf("archive larger than the %d bytes left of the pod's %d", left, podMaxBytes)
		}
		if err != nil {
			fmt.Fprintf(p.errOut, "tar: %v\n", err)
			return 2
		}
	}
}

// left is what the pod may still write: podMaxBytes less the size of the
// files in its sandbox.
func (p *proc) left() (int64, error) {
	used := int64(0)
	err := fs.WalkDir(p.root.FS(), ".", func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err == nil && info.Mode().IsRegular() {
			used += info.Size()
		}
		return err
	})
	return max(podMaxBytes-used, 0), err
}

func (p *proc) extract(r io.Reader, name string, h *tar.Header) error {
	switch h.Typeflag {
	case tar.TypeDir:
		return p.root.MkdirAll(name, 0o755)
	case tar.TypeReg:
		if err := p.root.MkdirAll(path.Dir(name), 0o755); err != nil {
			return err
		}
		f, err := p.root.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, r)
		return errors.Join(err, f.Close())
	}
	fmt.Fprintf(p.errOut, "tar: %s: skipped: only directories and regular files are extracted here\n", h.Name)
	return nil
}

// mktar writes the files and directories under paths, named without their
// leading "/" as GNU tar names them.
func (p *proc) mktar(paths []string) int {
	w := tar.NewWriter(p.out)
	status := 0
	for _, name := range paths {
		err := fs.WalkDir(p.root.FS(), rel(name), func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return p.addTar(w, name, d)
		})
		if err != nil {
			status = p.fail("tar", name, err)
		}
	}
	if err := w.Close(); err != nil {
		return p.fail("tar", "-", err)
	}
	return status
}

func (p *proc) addTar(w *tar.Writer, name string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	h, err := tar.FileInfoHeader(info, "")
	if err != nil {
		return err
	}
	h.Name = name
	if d.IsDir() {
		h.Name += "/"
	}
	if err := w.WriteHeader(h); err != nil || !info.Mode().IsRegular() {
		return err
	}
	f, err := p.root.Open(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return errors.Join(err, f.Close())
}
