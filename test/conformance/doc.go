package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// docBegin and docEnd enclose, in docs/conformance.md, the table that
// markdownTable makes of the suites' results files (TestConformanceDoc
// keeps them equal; `-update` rewrites the table).
const (
	docBegin = "<!-- generated from bench/conformance*.json: go test ./test/conformance -run TestConformanceDoc -update -->"
	docEnd   = "<!-- end of the generated table -->"
)

// suiteFile is one suite's results file, named for its column.
type suiteFile struct {
	name, path string
}

// readComparison reads a results file of `make conformance`.
func readComparison(path string) (comparison, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return comparison{}, err
	}
	var c comparison
	if err := json.Unmarshal(b, &c); err != nil {
		return comparison{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// markdownTable sets the suites' latest runs side by side: when, on which
// commit, what ran, what passed directly and through serve, and the ratio.
func markdownTable(names []string, runs []comparison) string {
	var b strings.Builder
	row := func(label string, cell func(c comparison) string) {
		b.WriteString("| " + label)
		for _, c := range runs {
			b.WriteString(" | " + cell(c))
		}
		b.WriteString(" |\n")
	}
	b.WriteString("| |")
	for _, n := range names {
		b.WriteString(" " + n + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(names)) + "\n")
	row("run of", func(c comparison) string { return c.Date })
	row("commit", func(c comparison) string {
		if c.Commit == "" {
			return "not recorded"
		}
		return c.Commit
	})
	row("matched by the focus", func(c comparison) string { return fmt.Sprint(c.Matched) })
	row("skipped (kwok cannot run them)", func(c comparison) string { return fmt.Sprint(c.Skipped) })
	row("passed directly", func(c comparison) string { return fmt.Sprintf("%d of %d", c.Direct.Passed, c.Direct.Ran) })
	row("passed through `kubectl zoo serve`", func(c comparison) string { return fmt.Sprintf("%d of %d", c.Proxied.Passed, c.Proxied.Ran) })
	row("**ratio** (of those passing directly)", func(c comparison) string {
		return fmt.Sprintf("**%d/%d = %.1f %%**", c.PassedBoth, c.Direct.Passed, 100*c.Ratio)
	})
	row("lost through the proxy", func(c comparison) string { return fmt.Sprint(len(c.Lost)) })
	row("time of the specs, directly / through the proxy", func(c comparison) string {
		return fmt.Sprintf("%s / %s", duration(c.Direct.Seconds), duration(c.Proxied.Seconds))
	})
	return b.String()
}

// duration is seconds as a person reads them.
func duration(seconds float64) string {
	return (time.Duration(seconds) * time.Second).Round(time.Second).String()
}
