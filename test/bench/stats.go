package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/internal/runinfo"
)

// result is one figure measured on the four endpoints; nil where it does
// not apply (the direct endpoint has no proxy process to measure).
type result struct {
	Workload    string   `json:"workload"`
	Metric      string   `json:"metric"`
	Unit        string   `json:"unit"`
	Direct      *float64 `json:"direct"`
	Passthrough *float64 `json:"passthrough"`
	Proxied     *float64 `json:"proxied"`
	// Server is the multi-tenant server's (serve --listen) figure.
	Server *float64 `json:"server"`
	// HigherIsBetter tells how to read the ratios.
	HigherIsBetter bool `json:"higherIsBetter"`
	// Baseline and Scaled are the figures of a scale workload: measured
	// with 2 tenants and with Tenants tenants, in the same run.
	Baseline *float64 `json:"baseline,omitempty"`
	Scaled   *float64 `json:"scaled,omitempty"`
	Tenants  int      `json:"tenants,omitempty"`
	// PerTenant is (Scaled-Baseline)/(Tenants-2): what one tenant adds,
	// for the figures of what the upstream holds.
	PerTenant *float64 `json:"perTenant,omitempty"`
	// Namespaces, when set, makes Baseline and Scaled the figures of one
	// tenant with its objects in 1 namespace and in Namespaces namespaces
	// (the scale workload's other axis); Tenants is then 0.
	Namespaces int `json:"namespaces,omitempty"`
	// Watches is set on the rows of the fleet workload: the watches the
	// server replica held.
	Watches int `json:"watches,omitempty"`
}

func (r *result) set(endpoint string, v float64) {
	switch endpoint {
	case "direct":
		r.Direct = &v
	case "passthrough":
		r.Passthrough = &v
	case "proxied":
		r.Proxied = &v
	case "server":
		r.Server = &v
	}
}

// percentile returns the p-th percentile (0..100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ratio(a, b *float64) string {
	if a == nil || b == nil || *b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", *a / *b)
}

func cell(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *v)
}

// printTable prints the figures with the ratios of serve (proxied) and of
// the server to direct and to pass-through, then the scale figures with the ratio of N tenants
// to 2 (and what one tenant adds), then those of 200 namespaces to 1.
func printTable(w io.Writer, results []result) {
	var plain, scale, spread []result
	for _, r := range results {
		switch {
		case r.Scaled != nil && r.Namespaces > 0:
			spread = append(spread, r)
		case r.Scaled != nil:
			scale = append(scale, r)
		default:
			plain = append(plain, r)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(plain) > 0 {
		fmt.Fprintln(tw, "WORKLOAD\tMETRIC\tUNIT\tDIRECT\tPASSTHROUGH\tPROXIED\tSERVER\tPROXIED/DIRECT\tPROXIED/PASSTHROUGH\tSERVER/DIRECT\tSERVER/PASSTHROUGH")
	}
	for _, r := range plain {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Workload, r.Metric, r.Unit,
			cell(r.Direct), cell(r.Passthrough), cell(r.Proxied), cell(r.Server), ratio(r.Proxied, r.Direct), ratio(r.Proxied, r.Passthrough),
			ratio(r.Server, r.Direct), ratio(r.Server, r.Passthrough))
	}
	_ = tw.Flush()
	if len(scale) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "WORKLOAD\tMETRIC\tUNIT\t2 TENANTS\t%d TENANTS\tRATIO\tPER TENANT\n", scale[0].Tenants)
		for _, r := range scale {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Workload, r.Metric, r.Unit, cell(r.Baseline), cell(r.Scaled),
				ratio(r.Scaled, r.Baseline), cell(r.PerTenant))
		}
		_ = tw.Flush()
	}
	if len(spread) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "WORKLOAD\tMETRIC\tUNIT\t1 NAMESPACE\t%d NAMESPACES\tRATIO\n", spread[0].Namespaces)
		for _, r := range spread {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Workload, r.Metric, r.Unit, cell(r.Baseline), cell(r.Scaled), ratio(r.Scaled, r.Baseline))
		}
		_ = tw.Flush()
	}
}

// runFile is what a results file holds: the figures of one run, with when and
// on which commit they were measured.
type runFile struct {
	// Date is when the run ended, RFC 3339 in UTC.
	Date string `json:"date"`
	// Commit is the checkout's commit, with "-dirty" when it had changes
	// of its own; empty when git could not tell.
	Commit  string   `json:"commit"`
	Results []result `json:"results"`
}

// startCommit is the checkout's commit when the run started: the code it
// measures (the checkout may move while a run of many minutes goes on).
var startCommit = runinfo.Commit()

// writeJSON writes results, with the date and the commit, to path.
func writeJSON(path string, results []result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(runFile{Date: time.Now().UTC().Format(time.RFC3339), Commit: startCommit, Results: results}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// readJSON reads a results file; the files of earlier runs hold the
// results alone, without date or commit.
func readJSON(path string) (runFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return runFile{}, err
	}
	var r runFile
	if err := json.Unmarshal(b, &r); err == nil {
		return r, nil
	}
	if err := json.Unmarshal(b, &r.Results); err != nil {
		return runFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
