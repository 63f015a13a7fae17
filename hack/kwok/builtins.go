package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
)

// proc is one command run in a pod's sandbox: its root is the pod's
// directory, "/" to the command, which is also its working directory.
type proc struct {
	root        *os.Root
	hostname    string
	in          io.Reader
	out, errOut io.Writer
}

// builtin runs a command with its arguments (without its name) and returns
// its exit status.
type builtin func(p *proc, args []string) int

// builtins are the only commands an exec runs.
var builtins = map[string]builtin{
	"cat":      (*proc).cat,
	"echo":     (*proc).echo,
	"env":      (*proc).env,
	"false":    func(*proc, []string) int { return 1 },
	"hostname": (*proc).printHostname,
	"ls":       (*proc).ls,
	"mkdir":    (*proc).mkdir,
	"mktemp":   (*proc).mktemp,
	"pwd":      func(p *proc, _ []string) int { fmt.Fprintln(p.out, "/"); return 0 },
	"tar":      (*proc).tar,
	"test":     (*proc).test,
	"true":     func(*proc, []string) int { return 0 },
}

// shells are refused with a word on what runs instead: k9s's shell key and
// `kubectl exec -it pod -- sh` ask for one.
var shells = []string{"sh", "bash", "ash", "dash", "zsh", "ksh", "busybox"}

// Exit statuses of a command that was refused or does not exist, as a shell
// reports them.
const (
	exitRefused  = 126
	exitNotFound = 127
)

// run runs cmd[0] as a built-in named by its base name: /bin/echo is echo.
func (p *proc) run(cmd []string) int {
	if len(cmd) == 0 {
		fmt.Fprintln(p.errOut, "no command")
		return exitNotFound
	}
	name := path.Base(cmd[0])
	if run, ok := builtins[name]; ok {
		return run(p, cmd[1:])
	}
	if slices.Contains(shells, name) {
		fmt.Fprintf(p.errOut, "%s: refused: pods of the dev cluster's kwok node run no shell, only %s\n",
			cmd[0], strings.Join(slices.Sorted(maps.Keys(builtins)), ", "))
		return exitRefused
	}
	fmt.Fprintf(p.errOut, "%s: command not found (pods of the dev cluster's kwok node run only %s)\n",
		cmd[0], strings.Join(slices.Sorted(maps.Keys(builtins)), ", "))
	return exitNotFound
}

// rel is name as a path inside the sandbox root: `..` never climbs above it.
func rel(name string) string {
	clean := strings.TrimPrefix(path.Clean("/"+name), "/")
	if clean == "" {
		return "."
	}
	return clean
}

// fail prints "cmd: name: reason" and returns status 1.
func (p *proc) fail(cmd, name string, err error) int {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err
	}
	fmt.Fprintf(p.errOut, "%s: %s: %v\n", cmd, name, err)
	return 1
}

func (p *proc) echo(args []string) int {
	end := "\n"
	if len(args) > 0 && args[0] == "-n" {
		args, end = args[1:], ""
	}
	fmt.Fprint(p.out, strings.Join(args, " ")+end)
	return 0
}

// cat copies stdin ("-" or no argument) and files to stdout.
func (p *proc) cat(args []string) int {
	if len(args) == 0 {
		args = []string{"-"}
	}
	status := 0
	for _, name := range args {
		if name == "-" {
			_, _ = io.Copy(p.out, p.in)
			continue
		}
		f, err := p.root.Open(rel(name))
		if err != nil {
			status = p.fail("cat", name, err)
			continue
		}
		if _, err := io.Copy(p.out, f); err != nil {
			status = p.fail("cat", name, err)
		}
		_ = f.Close()
	}
	return status
}

// env prints the container's environment, which is fixed: it never runs a
// command, so `env VAR=x cmd` is refused.
func (p *proc) env(args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(p.errOut, "env: refused: only prints the environment here")
		return exitRefused
	}
	fmt.Fprintf(p.out, "HOME=/\nHOSTNAME=%s\nPATH=/usr/local/bin:/usr/bin:/bin\n", p.hostname)
	return 0
}

func (p *proc) printHostname([]string) int {
	fmt.Fprintln(p.out, p.hostname)
	return 0
}

// ls lists directories (one name a line, sorted) and names files.
func (p *proc) ls(args []string) int {
	if len(args) == 0 {
		args = []string{"."}
	}
	status := 0
	for _, name := range args {
		info, err := p.root.Stat(rel(name))
		if err != nil {
			status = p.fail("ls", name, err)
			continue
		}
		if !info.IsDir() {
			fmt.Fprintln(p.out, name)
			continue
		}
		entries, err := fs.ReadDir(p.root.FS(), rel(name))
		if err != nil {
			status = p.fail("ls", name, err)
			continue
		}
		for _, e := range entries {
			fmt.Fprintln(p.out, e.Name())
		}
	}
	return status
}

// mkdir makes directories; -p makes their parents and accepts existing ones.
func (p *proc) mkdir(args []string) int {
	parents := len(args) > 0 && args[0] == "-p"
	if parents {
		args = args[1:]
	}
	status := 0
	for _, name := range args {
		var err error
		if parents {
			err = p.root.MkdirAll(rel(name), 0o755)
		} else {
			err = p.root.Mkdir(rel(name), 0o755)
		}
		if err != nil {
			status = p.fail("mkdir", name, err)
		}
	}
	return status
}

// mktemp makes /tmp/tmp.XXXXXXXXXX, a file or with -d a directory, and
// prints its name.
func (p *proc) mktemp(args []string) int {
	dir := slices.Equal(args, []string{"-d"})
	if !dir && len(args) > 0 {
		fmt.Fprintln(p.errOut, "mktemp: only mktemp and mktemp -d run here")
		return 1
	}
	if err := p.root.MkdirAll("tmp", 0o755); err != nil {
		return p.fail("mktemp", "/tmp", err)
	}
	name := "tmp/tmp." + rand.Text()[:10]
	var err error
	if dir {
		err = p.root.Mkdir(name, 0o700)
	} else {
		var f *os.File
		if f, err = p.root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
			err = f.Close()
		}
	}
	if err != nil {
		return p.fail("mktemp", "/"+name, err)
	}
	fmt.Fprintln(p.out, "/"+name)
	return 0
}

// test answers -e, -f and -d of one path, as kubectl cp asks `test -d`.
func (p *proc) test(args []string) int {
	if len(args) != 2 || !slices.Contains([]string{"-e", "-f", "-d"}, args[0]) {
		fmt.Fprintln(p.errOut, "test: only -e, -f and -d of one path run here")
		return 2
	}
	info, err := p.root.Stat(rel(args[1]))
	switch {
	case err != nil:
		return 1
	case args[0] == "-d" && !info.IsDir(), args[0] == "-f" && !info.Mode().IsRegular():
		return 1
	}
	return 0
}
