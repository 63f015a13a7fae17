package localproxy

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/joinlist")

// TestJoinListAnswersAsBefore: the answers of the all-namespaces lists of
// joinCases, page by page (status code and document), are those recorded
// under testdata/joinlist, which were recorded (-update) with the join that
// decoded every leg into a generic document and encoded the joined one:
// the join of translated bytes answers the same documents.
func TestJoinListAnswersAsBefore(t *testing.T) {
	for _, tc := range joinCases {
		t.Run(tc.name, func(t *testing.T) {
			pages, _ := tc.read(t, legWindow)
			var answers []any
			for _, pg := range pages {
				var body any
				require.NoError(t, json.Unmarshal([]byte(pg.body), &body), pg.body)
				answers = append(answers, map[string]any{"code": pg.code, "body": body})
			}
			got, err := json.MarshalIndent(answers, "", "  ")
			require.NoError(t, err)
			name := strings.NewReplacer(" ", "-", ",", "", "'", "").Replace(tc.name)
			path := filepath.Join("testdata", "joinlist", name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
		})
	}
}
