package main

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/kubectl-zoo/kubectl-zoo/internal/docgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/conformance.md's generated table from bench/conformance*.json")

// TestConformanceDoc: the table of docs/conformance.md is the one the
// results files make, so that no count in the docs is typed by hand.
func TestConformanceDoc(t *testing.T) {
	const docPath = "../../docs/conformance.md"
	suites := []suiteFile{{"sig-api-machinery", "conformance.json"}, {"sig-apps", "conformance-apps.json"}, {"sig-auth", "conformance-auth.json"}}
	var names []string
	var runs []comparison
	for _, s := range suites {
		c, err := readComparison(filepath.Join("../../bench", s.path))
		require.NoError(t, err)
		require.NotZero(t, c.Matched, s.path)
		names, runs = append(names, s.name), append(runs, c)
	}
	got, want, err := docgen.Sync(docPath, docBegin, docEnd, markdownTable(names, runs), *update)
	require.NoError(t, err)
	assert.Equal(t, want, got, "docs/conformance.md's table is not the results files': go test ./test/conformance -run TestConformanceDoc -update")
}

func TestMarkdownTable(t *testing.T) {
	c := comparison{Date: "2026-11-28", Commit: "0123456789ab", Matched: 95, Skipped: 22,
		Direct: runSummary{Ran: 73, Passed: 73, Seconds: 692}, Proxied: runSummary{Ran: 73, Passed: 70, Failed: 3, Seconds: 603.4},
		PassedBoth: 70, Ratio: 70.0 / 73, Lost: make([]lostSpec, 3)}
	old := comparison{Date: "2026-11-23", Matched: 10, Skipped: 3, Direct: runSummary{Ran: 7, Passed: 7, Seconds: 4},
		Proxied: runSummary{Ran: 7, Passed: 5, Seconds: 4}, PassedBoth: 5, Ratio: 5.0 / 7, Lost: make([]lostSpec, 2)}
	assert.Equal(t, "| | a | b |\n|---|---|---|\n"+
		"| run of | 2026-11-28 | 2026-11-23 |\n"+
		"| commit | 0123456789ab | not recorded |\n"+
		"| matched by the focus | 95 | 10 |\n"+
		"| skipped (kwok cannot run them) | 22 | 3 |\n"+
		"| passed directly | 73 of 73 | 7 of 7 |\n"+
		"| passed through `kubectl zoo serve` | 70 of 73 | 5 of 7 |\n"+
		"| **ratio** (of those passing directly) | **70/73 = 95.9 %** | **5/7 = 71.4 %** |\n"+
		"| lost through the proxy | 3 | 2 |\n"+
		"| time of the specs, directly / through the proxy | 11m32s / 10m3s | 4s / 4s |\n",
		markdownTable([]string{"a", "b"}, []comparison{c, old}))
}
