package main

import (
	"fmt"
	"strings"
)

// docBegin and docEnd enclose, in docs/performance.md, the table that
// markdownTable makes of bench/results.json (TestPerformanceDoc keeps them
// equal; `-update` rewrites the table).
const (
	docBegin = "<!-- generated from bench/results.json: go test ./test/bench -run TestPerformanceDoc -update -->"
	docEnd   = "<!-- end of the generated table -->"
)

// markdownTable is the run's figures of the four endpoints as a Markdown
// table, with the ratios of serve and of the server to the pass-through
// hop, under a line that names the run's date and commit.
func markdownTable(r runFile) string {
	var b strings.Builder
	commit := r.Commit
	if commit == "" {
		commit = "not recorded"
	}
	date := r.Date
	if date == "" {
		date = "not recorded"
	}
	fmt.Fprintf(&b, "`make bench` run of %s, commit %s:\n\n", date, commit)
	b.WriteString("| workload | metric | unit | direct | pass-through | `serve` | server | `serve` vs pass-through | server vs pass-through |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range r.Results {
		if x.Scaled != nil {
			continue // the scale workloads have tables of their own
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", x.Workload, x.Metric, x.Unit,
			figure(x.Direct), figure(x.Passthrough), figure(x.Proxied), figure(x.Server),
			ratio(x.Proxied, x.Passthrough), ratio(x.Server, x.Passthrough))
	}
	return b.String()
}

// figure is v with as many decimals as its size calls for; "–" when the
// figure does not apply.
func figure(v *float64) string {
	switch {
	case v == nil:
		return "–"
	case *v >= 100:
		return fmt.Sprintf("%.0f", *v)
	case *v >= 10:
		return fmt.Sprintf("%.1f", *v)
	}
	return fmt.Sprintf("%.2f", *v)
}
