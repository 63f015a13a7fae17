package translate

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/internal/openapisnap"
)

// pinnedSnapshot reads the OpenAPI snapshot of the Kubernetes version the
// Makefile pins (KUBE_VERSION).
func pinnedSnapshot(t *testing.T) *openapisnap.Snapshot {
	t.Helper()
	mk, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^KUBE_VERSION \?= (\S+)$`).FindSubmatch(mk)
	require.NotNil(t, m, "the Makefile pins no KUBE_VERSION")
	f, err := os.Open("../../" + openapisnap.Path(string(m[1])))
	require.NoError(t, err, "no OpenAPI snapshot of the pinned Kubernetes: run `go run ./hack/openapi-snapshot` against it")
	defer f.Close()
	snap, err := openapisnap.Read(f)
	require.NoError(t, err)
	require.Equal(t, string(m[1]), snap.Version)
	return snap
}

// TestSchemaWalk walks every reference-like field of every built-in kind of
// the pinned API (the OpenAPI snapshot) and fails on one that neither the
// kinds table nor a FieldRule classifies, naming it as a line to add. Open
// fields (holes nothing holds yet) are printed. Every resource the server
// serves must have a row of the kinds table.
func TestSchemaWalk(t *testing.T) {
	snap := pinnedSnapshot(t)
	for _, r := range snap.Resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		group, kind := openapisnap.GroupKind(r.Kind)
		_, ok := kindsByResource[schema.GroupResource{Group: group, Resource: r.Name}]
		assert.True(t, ok, "%s %s (%s) has no row in the kinds table", r.GroupVersion, r.Name, kind)
	}
	used := map[FieldRule]bool{}
	var missing, open []string
	for _, f := range snap.Fields {
		rule, ok := ClassifyField(f.Kind, f.Path, f.Def)
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s %s (%s %s)", f.Kind, f.Path, f.Def, f.Type))
			continue
		case rule.Class == FieldOpen:
			open = append(open, fmt.Sprintf("%s %s: %s", f.Kind, f.Path, rule.Reason))
		}
		used[rule] = true
	}
	if len(missing) > 0 {
		t.Errorf("%d reference-like fields that nothing classifies: add them to pkg/translate/fields_*.go (or a Ref of the kinds table):\n%s",
			len(missing), strings.Join(missing, "\n"))
	}
	for _, o := range open {
		t.Log("OPEN", o)
	}
	for _, r := range FieldRules() {
		assert.True(t, used[r], "%+v classifies no field of the snapshot", r)
		assert.NotEmpty(t, r.Reason, "%+v has no reason", r)
	}
}

// TestKindsDoc keeps docs/kinds.md what WriteKindsDoc renders from the
// kinds table, the field rules and the pinned snapshot (-update rewrites it).
func TestKindsDoc(t *testing.T) {
	snap := pinnedSnapshot(t)
	fields := make([]SchemaField, 0, len(snap.Fields))
	for _, f := range snap.Fields {
		fields = append(fields, SchemaField{Kind: f.Kind, Path: f.Path, Def: f.Def})
	}
	var b strings.Builder
	require.NoError(t, WriteKindsDoc(&b, snap.Version, fields))
	const path = "../../docs/kinds.md"
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String(), "docs/kinds.md is stale: go test ./pkg/translate -run TestKindsDoc -update")
}
