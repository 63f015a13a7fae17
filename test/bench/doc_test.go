package main

import (
	"flag"
	"testing"

	"github.com/kubectl-zoo/kubectl-zoo/internal/docgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/performance.md's generated table from bench/results.json")

// TestPerformanceDoc: the table of docs/performance.md is the one
// bench/results.json makes, so that no figure in the docs is typed by hand
// or left behind by a newer run.
func TestPerformanceDoc(t *testing.T) {
	const docPath, resultsPath = "../../docs/performance.md", "../../bench/results.json"
	r, err := readJSON(resultsPath)
	require.NoError(t, err)
	require.NotEmpty(t, r.Results)
	got, want, err := docgen.Sync(docPath, docBegin, docEnd, markdownTable(r), *update)
	require.NoError(t, err)
	assert.Equal(t, want, got, "docs/performance.md's table is not bench/results.json's: go test ./test/bench -run TestPerformanceDoc -update")
}

func TestMarkdownTable(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	got := markdownTable(runFile{Date: "2026-11-28T17:00:00Z", Commit: "0123456789ab", Results: []result{
		{Workload: "GET one ConfigMap", Metric: "p50", Unit: "ms", Direct: f(0.85), Passthrough: f(1.1), Proxied: f(1.21), Server: f(1.32)},
		{Workload: "GET, 32 clients", Metric: "proxy CPU per GET", Unit: "µs", Passthrough: f(138), Proxied: f(134.4), Server: f(12.34)},
		{Workload: "scale", Metric: "x", Unit: "ms", Baseline: f(1), Scaled: f(2), Tenants: 1000},
	}})
	assert.Equal(t, "`make bench` run of 2026-11-28T17:00:00Z, commit 0123456789ab:\n\n"+
		"| workload | metric | unit | direct | pass-through | `serve` | server | `serve` vs pass-through | server vs pass-through |\n"+
		"|---|---|---|---|---|---|---|---|---|\n"+
		"| GET one ConfigMap | p50 | ms | 0.85 | 1.10 | 1.21 | 1.32 | 1.10x | 1.20x |\n"+
		"| GET, 32 clients | proxy CPU per GET | µs | – | 138 | 134 | 12.3 | 0.97x | 0.09x |\n", got)

}
