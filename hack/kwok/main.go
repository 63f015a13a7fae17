// Command kwok is the kwok of the local upstream (internal/kubecluster): the
// pinned kwok command (sigs.k8s.io/kwok/pkg/kwok/cmd), run in this process on
// a loopback port of its own, behind a front that answers the fake node's
// kubelet port. The front serves `kubectl exec` from a sandbox of built-in
// commands (sandbox.go), so that an exec into a pod never runs anything on
// this machine; logs, attach, port-forward, health and metrics go to kwok.
//
//	kwok --listen=127.0.0.1:10250 --tls-cert-file=F --tls-private-key-file=K \
//	     --sandbox-dir=D -- <kwok's own flags>
//
// kwok's flags must not configure an exec (ClusterExec, Exec): the front
// serves every exec path itself, and kwok without one refuses any exec that
// still reached it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"

	"github.com/spf13/pflag"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

// frontFlags are the flags of the front, before the `--` that starts kwok's.
type frontFlags struct {
	listen, certFile, keyFile, sandboxDir string
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "kwok:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	front, kwokArgs, err := parseArgs(args)
	if err != nil {
		return err
	}
	inner, err := freeLoopbackAddr()
	if err != nil {
		return err
	}
	// kwok reads its flags from os.Args (config.InitFlags, log.InitFlags).
	os.Args = append([]string{os.Args[0]}, append(kwokArgs, "--server-address="+inner)...)

	ctx := signals.SetupSignalContext()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2)
	go func() { errs <- serveFront(ctx, front, "http://"+inner) }()
	go func() { errs <- runKwok(ctx) }()
	err = <-errs
	cancel()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// parseArgs splits args at `--` into the front's flags and kwok's.
func parseArgs(args []string) (frontFlags, []string, error) {
	var f frontFlags
	fs := flag.NewFlagSet("kwok", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error says what is wrong; main prints it
	fs.StringVar(&f.listen, "listen", "", "address of the fake node's kubelet port (the node's --node-port)")
	fs.StringVar(&f.certFile, "tls-cert-file", "", "the kubelet port's serving certificate")
	fs.StringVar(&f.keyFile, "tls-private-key-file", "", "the kubelet port's serving key")
	fs.StringVar(&f.sandboxDir, "sandbox-dir", "", "directory under which each pod's exec sandbox is made")
	sep := slices.Index(args, "--")
	if sep < 0 {
		return f, nil, errors.New("usage: kwok FRONT-FLAGS -- KWOK-FLAGS")
	}
	if err := fs.Parse(args[:sep]); err != nil {
		return f, nil, err
	}
	if fs.NArg() != 0 {
		return f, nil, fmt.Errorf("unexpected arguments before --: %q", fs.Args())
	}
	for _, req := range [][2]string{{"--listen", f.listen}, {"--tls-cert-file", f.certFile},
		{"--tls-private-key-file", f.keyFile}, {"--sandbox-dir", f.sandboxDir}} {
		if req[1] == "" {
			return f, nil, fmt.Errorf("%s is required", req[0])
		}
	}
	return f, args[sep+1:], nil
}

// runKwok runs kwok's command as its own main does.
func runKwok(ctx context.Context) error {
	flagset := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flagset.ParseErrorsWhitelist.UnknownFlags = true
	flagset.Usage = func() {}
	ctx, _ = log.InitFlags(ctx, flagset)
	ctx, err := config.InitFlags(ctx, flagset)
	if err != nil {
		return fmt.Errorf("kwok config: %w", err)
	}
	command := cmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flagset)
	if err := command.ExecuteContext(ctx); err != nil {
		return fmt.Errorf("kwok: %w", err)
	}
	return ctx.Err()
}

// freeLoopbackAddr returns a loopback address that was free a moment ago,
// for kwok's own server.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a port for kwok: %w", err)
	}
	addr := l.Addr().String()
	return addr, l.Close()
}
