// Command kubectl-zoo is the kubectl plugin that gives every tenant of a shared
// cluster a whole cluster of its own. All behaviour lives in pkg/cmd.
package main

import (
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/component-base/cli"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/cmd"
)

func main() {
	root := cmd.NewCmdZoo(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	// Like kubectl: one line "error: ..." on stderr and exit 1.
	if err := cli.RunNoErrOutput(root); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
