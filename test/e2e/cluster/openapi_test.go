package cluster_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/internal/openapisnap"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

var update = flag.Bool("update", false, "rewrite testdata/openapi/<version>/fields.txt from the running API server")

// TestOpenAPISnapshot keeps the snapshot that pkg/translate's schema walk
// reads (testdata/openapi/<version>/fields.txt) equal to what the pinned
// API server serves: its built-in resources and the reference-like fields
// of their kinds. A Kubernetes bump without a new snapshot fails here;
// -update (or `go run ./hack/openapi-snapshot`) writes it.
func TestOpenAPISnapshot(t *testing.T) {
	snap, err := openapisnap.Fetch(context.Background(), framework.Cluster().Config, translate.IsBuiltinGroup)
	require.NoError(t, err)
	if v := os.Getenv("ZOO_KUBE_VERSION"); v != "" {
		require.Equal(t, v, snap.Version, "the API server is not the pinned version")
	}
	var live bytes.Buffer
	require.NoError(t, snap.Write(&live))
	path := filepath.Join(os.Getenv("ZOO_ROOT"), openapisnap.Path(snap.Version))
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, live.Bytes(), 0o644))
	}
	stored, err := os.ReadFile(path)
	require.NoError(t, err, "no snapshot of %s: run `go run ./hack/openapi-snapshot` against it", snap.Version)
	assert.Equal(t, string(stored), live.String(),
		"the API server's schema differs from %s: regenerate it (`go run ./hack/openapi-snapshot`) and classify what TestSchemaWalk names", path)
}
