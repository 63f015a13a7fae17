// Command kubectl-zoo is the kubectl plugin that gives every tenant of a shared
// cluster a whole cluster of its own. All behaviour lives in pkg/cmd.
package main

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/component-base/cli"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/cmd"
)

func main() {
	root := cmd.NewCmdZoo(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	os.Exit(cli.Run(root))
}
