package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// ginkgoReport is the part of a ginkgo JSON report (github.com/onsi/ginkgo/v2
// types.Report) this command reads; the plugin module does not depend on
// ginkgo for it.
type ginkgoReport struct {
	SuiteDescription string
	SuiteSucceeded   bool
	RunTime          time.Duration
	SpecReports      []specReport
}

// specReport is one spec's outcome.
type specReport struct {
	ContainerHierarchyTexts []string
	LeafNodeText            string
	LeafNodeType            string
	State                   string
	RunTime                 time.Duration
	Failure                 struct {
		Message  string
		Location struct {
			FileName   string
			LineNumber int
		}
	}
}

// name is the spec's full text, the one --ginkgo.focus matches.
func (s specReport) name() string {
	return strings.Join(append(append([]string{}, s.ContainerHierarchyTexts...), s.LeafNodeText), " ")
}

// firstFailureLine is the first non-blank line of the failure message; for
// gomega's bare "Expected" it adds the first line of what was found instead
// (the line after the value's <type>).
func (s specReport) firstFailureLine() string {
	var first string
	for line := range strings.SplitSeq(s.Failure.Message, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case first == "":
			if first = line; first != "Expected" {
				return first
			}
		case !strings.HasPrefix(line, "<"):
			return first + ": " + line
		}
	}
	return first
}

// outcome is what one run made of one spec.
type outcome struct {
	State   string        `json:"state"`
	RunTime time.Duration `json:"-"`
	Seconds float64       `json:"seconds"`
	Failure string        `json:"failure,omitempty"`
	Where   string        `json:"where,omitempty"`
}

// runResult is what one run's report says.
type runResult struct {
	// specs holds the outcome of every It spec the focus matches, by name.
	specs map[string]outcome
	// suiteFailure is the first failed suite-level node (the e2e framework's
	// SynchronizedBeforeSuite, ...); when set-up fails, ginkgo runs and
	// reports no spec at all.
	suiteFailure *outcome
}

// readOutcomes reads a ginkgo JSON report.
func readOutcomes(path string, focus *regexp.Regexp) (runResult, error) {
	res := runResult{specs: map[string]outcome{}}
	raw, err := os.ReadFile(path)
	if err != nil {
		return res, fmt.Errorf("read ginkgo report: %w", err)
	}
	var reports []ginkgoReport
	if err := json.Unmarshal(raw, &reports); err != nil {
		return res, fmt.Errorf("parse ginkgo report %s: %w", path, err)
	}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			failed := s.State != "passed" && s.State != "skipped" && s.State != "pending"
			if s.LeafNodeType != "It" {
				if failed && res.suiteFailure == nil {
					o := newOutcome(s)
					o.Failure = s.LeafNodeType + " failed: " + o.Failure
					res.suiteFailure = &o
				}
				continue
			}
			// ginkgo matches its focus against this text.
			if focus.MatchString(r.SuiteDescription + " " + s.name()) {
				res.specs[s.name()] = newOutcome(s)
			}
		}
	}
	return res, nil
}

func newOutcome(s specReport) outcome {
	o := outcome{State: s.State, RunTime: s.RunTime, Seconds: s.RunTime.Round(100 * time.Millisecond).Seconds()}
	if s.State != "passed" && s.State != "skipped" {
		o.Failure = s.firstFailureLine()
		if s.Failure.Location.FileName != "" {
			o.Where = fmt.Sprintf("%s:%d", trimModulePath(s.Failure.Location.FileName), s.Failure.Location.LineNumber)
		}
	}
	return o
}

// trimModulePath shortens a source path to the part after the module
// directory (k8s.io/kubernetes@v1.34.4/test/e2e/... -> test/e2e/...).
func trimModulePath(path string) string {
	if i := strings.Index(path, "/test/e2e/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// lostSpec is a spec that passed directly and not through the proxy.
type lostSpec struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Failure string `json:"failure"`
	Where   string `json:"where,omitempty"`
}

// runSummary counts one run's outcomes.
type runSummary struct {
	Ran     int     `json:"ran"`
	Passed  int     `json:"passed"`
	Failed  int     `json:"failed"`
	Seconds float64 `json:"seconds"`
}

func summarize(o map[string]outcome, took time.Duration) runSummary {
	s := runSummary{Seconds: took.Round(time.Second).Seconds()}
	for _, x := range o {
		switch x.State {
		case "skipped", "pending":
			continue
		case "passed":
			s.Passed++
		default:
			s.Failed++
		}
		s.Ran++
	}
	return s
}

// comparison is the result of one `make conformance`, as bench/conformance.json
// keeps it.
type comparison struct {
	Date string `json:"date"`
	// Commit is the checkout's (runinfo.Commit); empty in the files of runs
	// made before it was recorded.
	Commit            string      `json:"commit,omitempty"`
	KubernetesVersion string      `json:"kubernetesVersion"`
	Focus             string      `json:"focus"`
	Skip              []skipEntry `json:"skip"`
	// Matched counts the specs the focus selects, Skipped those of them
	// skipped by Skip (kwok cannot run them) or by the suite itself.
	Matched int        `json:"matched"`
	Skipped int        `json:"skipped"`
	Direct  runSummary `json:"direct"`
	Proxied runSummary `json:"proxied"`
	// PassedBoth counts the specs passing in both runs; Ratio is their
	// share of the specs passing directly.
	PassedBoth int        `json:"passedBoth"`
	Ratio      float64    `json:"ratio"`
	Lost       []lostSpec `json:"lost"`
	// Gained are specs passing through the proxy but not directly.
	Gained []string `json:"gained,omitempty"`
	// FailedBoth are specs failing in both runs, with the direct failure.
	FailedBoth []lostSpec `json:"failedBoth,omitempty"`
	// SuiteFailures holds, by run, a failed suite-level node.
	SuiteFailures map[string]string `json:"suiteFailures,omitempty"`
}

// compare puts the direct and proxied outcomes side by side.
func compare(direct, proxied runResult) (lost []lostSpec, gained []string, both []lostSpec, passedDirect, passedBoth int) {
	for name, d := range direct.specs {
		p, ok := proxied.specs[name]
		if !ok {
			p = outcome{State: "missing", Failure: "not in the proxied run's report"}
			if f := proxied.suiteFailure; f != nil {
				p = outcome{State: "not run", Failure: f.Failure, Where: f.Where}
			}
		}
		switch {
		case d.State == "passed" && p.State == "passed":
			passedDirect++
			passedBoth++
		case d.State == "passed":
			passedDirect++
			lost = append(lost, lostSpec{Name: name, State: p.State, Failure: p.Failure, Where: p.Where})
		case p.State == "passed":
			gained = append(gained, name)
		case d.State != "skipped" && d.State != "pending":
			both = append(both, lostSpec{Name: name, State: d.State, Failure: d.Failure, Where: d.Where})
		}
	}
	sort.Slice(lost, func(i, j int) bool { return lost[i].Name < lost[j].Name })
	sort.Slice(both, func(i, j int) bool { return both[i].Name < both[j].Name })
	sort.Strings(gained)
	return lost, gained, both, passedDirect, passedBoth
}

func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
