// Package runinfo names the run a measurement came from: the checkout's
// commit, for the results files of `make bench` and `make conformance`.
package runinfo

import (
	"bytes"
	"os/exec"
	"strings"
)

// Commit is the short commit of the checkout in the working directory,
// with "-dirty" when its tracked files have changes of their own; empty
// when git cannot tell (no git, or not a checkout).
func Commit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "-dirty"
	}
	return c
}
