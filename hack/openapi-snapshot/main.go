// Command openapi-snapshot writes the OpenAPI v3 snapshot that the schema
// walk (pkg/translate TestSchemaWalk) reads, from a running kube-apiserver:
//
//	go run ./internal/devcluster up --dir .zoo-dev --bin .cache/kube/v1.34.4
//	go run ./hack/openapi-snapshot --kubeconfig .zoo-dev/kubeconfig
//
// It writes testdata/openapi/<server version>/fields.txt (internal/openapisnap).
// Run it when the pinned Kubernetes moves; test/e2e/cluster
// TestOpenAPISnapshot fails while the snapshot differs from the server.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/internal/openapisnap"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of a cluster admin of the API server")
	root := flag.String("root", ".", "the repository; the snapshot goes to ROOT/testdata/openapi/<version>/fields.txt")
	flag.Parse()
	if err := run(*kubeconfig, *root); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-snapshot:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, root string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	snap, err := openapisnap.Fetch(context.Background(), cfg, translate.IsBuiltinGroup)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := snap.Write(&buf); err != nil {
		return err
	}
	path := filepath.Join(root, openapisnap.Path(snap.Version))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("snapshot directory: %w", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write snapshot: %w", err)
	}
	fmt.Printf("wrote %s: %d resources, %d fields\n", path, len(snap.Resources), len(snap.Fields))
	return nil
}
