package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/internal/runinfo"
)

// startCommit is the checkout's commit when the run started: the code the
// suite ran against (the checkout may move during a run of twenty minutes).
var startCommit = runinfo.Commit()

// buildComparison sums the two runs up.
func buildComparison(c config, skips []skipEntry, direct, proxied runResult, took map[string]time.Duration) comparison {
	cmp := comparison{
		Date:              time.Now().UTC().Format(time.DateOnly),
		Commit:            startCommit,
		KubernetesVersion: os.Getenv("ZOO_KUBE_VERSION"),
		Focus:             c.focus,
		Skip:              skips,
		Matched:           len(direct.specs),
		Direct:            summarize(direct.specs, took["direct"]),
		Proxied:           summarize(proxied.specs, took["proxied"]),
	}
	for name, r := range map[string]runResult{"direct": direct, "proxied": proxied} {
		if f := r.suiteFailure; f != nil {
			if cmp.SuiteFailures == nil {
				cmp.SuiteFailures = map[string]string{}
			}
			cmp.SuiteFailures[name] = f.Failure + " (" + f.Where + ")"
		}
	}
	if cmp.Skip == nil {
		cmp.Skip = []skipEntry{}
	}
	cmp.Skipped = cmp.Matched - cmp.Direct.Ran
	var passedDirect int
	cmp.Lost, cmp.Gained, cmp.FailedBoth, passedDirect, cmp.PassedBoth = compare(direct, proxied)
	if cmp.Lost == nil {
		cmp.Lost = []lostSpec{}
	}
	if passedDirect > 0 {
		cmp.Ratio = float64(cmp.PassedBoth) / float64(passedDirect)
	}
	return cmp
}

// printComparison prints the figures and every lost spec.
func printComparison(w io.Writer, cmp comparison) {
	fmt.Fprintf(w, "\nConformance %s, focus %s\n", cmp.KubernetesVersion, cmp.Focus)
	fmt.Fprintf(w, "  specs matched:   %d (%d skipped: kwok cannot run them, or the suite skipped them)\n", cmp.Matched, cmp.Skipped)
	fmt.Fprintf(w, "  directly:        %d of %d passed in %.0fs\n", cmp.Direct.Passed, cmp.Direct.Ran, cmp.Direct.Seconds)
	fmt.Fprintf(w, "  through serve:   %d of %d passed in %.0fs\n", cmp.Proxied.Passed, cmp.Proxied.Ran, cmp.Proxied.Seconds)
	fmt.Fprintf(w, "  ratio:           %d/%d = %.1f%% of the specs passing directly pass through the proxy\n",
		cmp.PassedBoth, cmp.Direct.Passed, 100*cmp.Ratio)
	for _, run := range []string{"direct", "proxied"} {
		if f, ok := cmp.SuiteFailures[run]; ok {
			fmt.Fprintf(w, "  %s run: %s\n", run, f)
		}
	}
	if len(cmp.Lost) > 0 {
		fmt.Fprintf(w, "\nLost through the proxy (%d):\n", len(cmp.Lost))
		for _, l := range cmp.Lost {
			fmt.Fprintf(w, "- %s\n    %s: %s (%s)\n", l.Name, l.State, l.Failure, l.Where)
		}
	}
	if len(cmp.Gained) > 0 {
		fmt.Fprintf(w, "\nPassing through the proxy only (%d):\n", len(cmp.Gained))
		for _, g := range cmp.Gained {
			fmt.Fprintf(w, "- %s\n", g)
		}
	}
	if len(cmp.FailedBoth) > 0 {
		fmt.Fprintf(w, "\nFailing in both runs (%d), direct failure:\n", len(cmp.FailedBoth))
		for _, l := range cmp.FailedBoth {
			fmt.Fprintf(w, "- %s\n    %s: %s (%s)\n", l.Name, l.State, l.Failure, l.Where)
		}
	}
}

func sortedNames(m map[string]outcome) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
