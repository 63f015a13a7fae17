// Command devcluster starts and stops the local upstream cluster for
// `make dev-cluster` and `make dev-cluster-down`:
//
//	go run ./internal/devcluster up --dir .zoo-dev --bin .cache/kube/v1.34.4
//	go run ./internal/devcluster down --dir .zoo-dev
//
// `up` returns once the cluster is ready and leaves it running in the
// background; it does nothing when a cluster already runs in --dir. The admin
// kubeconfig is <dir>/kubeconfig.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/kubectl-zoo/kubectl-zoo/internal/kubecluster"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "devcluster:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: devcluster up|down --dir DIR [--bin BINDIR]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	dir := fs.String("dir", ".zoo-dev", "state directory; the admin kubeconfig is DIR/kubeconfig")
	bin := fs.String("bin", "", "directory with the control-plane binaries")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	switch args[0] {
	case "up":
		return up(*dir, *bin)
	case "down":
		if err := kubecluster.StopDir(*dir); err != nil {
			return err
		}
		fmt.Printf("dev cluster in %s stopped\n", *dir)
		return nil
	}
	return fmt.Errorf("unknown subcommand %q: use up or down", args[0])
}

func up(dir, bin string) error {
	kubeconfig := filepath.Join(dir, kubecluster.KubeconfigFileName)
	if kubecluster.Running(dir) {
		fmt.Printf("dev cluster already running; export KUBECONFIG=%s\n", kubeconfig)
		return nil
	}
	if bin == "" {
		return fmt.Errorf("--bin is required")
	}
	// Stop what may be left of an earlier, partly dead cluster.
	if err := kubecluster.StopDir(dir); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := kubecluster.Start(ctx, kubecluster.Options{BinDir: bin, Dir: dir, Detach: true})
	if err != nil {
		return err
	}
	fmt.Printf("dev cluster ready at %s\n  export KUBECONFIG=%s\n  kubectl: %s\n  logs: %s\n",
		c.Server, c.Kubeconfig, filepath.Join(bin, "kubectl"), filepath.Join(c.Dir, "logs"))
	return nil
}
