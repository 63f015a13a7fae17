package verify

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
)

// Styles of the table. lipgloss always renders ANSI; the caller writes
// through a colorprofile.Writer that downsamples or strips it.
var (
	styleClass   = lipgloss.NewStyle().Bold(true)
	styleHeader  = lipgloss.NewStyle().Faint(true)
	statusStyles = map[Status]lipgloss.Style{
		Held:          lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		Escaped:       lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		NotApplicable: lipgloss.NewStyle().Faint(true),
		CouldNotRun:   lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
	}
)

// How much of a result's title and detail the table shows.
const (
	tableTitle  = 60
	tableDetail = 100
)

// trimLines removes the padding at the end of each line of s.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// WriteTable writes rep as one table per class (check, path, result, the
// layer that held it or why not), then a summary line.
func WriteTable(w io.Writer, rep *Report) error {
	var b strings.Builder
	if rep.Victim == "" {
		fmt.Fprintf(&b, "%s checked against its policy, with dry runs and reads only\n", rep.Attacker)
	} else {
		fmt.Fprintf(&b, "%s attacked %s and the platform\n", rep.Attacker, rep.Victim)
	}
	for _, class := range rep.Classes() {
		tbl := table.New().Border(lipgloss.HiddenBorder()).BorderTop(false).BorderBottom(false).
			BorderLeft(false).BorderRight(false).BorderHeader(false).BorderColumn(false).
			Headers("CHECK", "ATTEMPT", "PATH", "RESULT", "LAYER OR WHY NOT").
			StyleFunc(func(row, col int) lipgloss.Style {
				if row == table.HeaderRow {
					return styleHeader.PaddingRight(2)
				}
				return lipgloss.NewStyle().PaddingRight(2)
			})
		last := ""
		for _, r := range rep.Results {
			if r.Class != class {
				continue
			}
			id, title := r.ID, oneLine(r.Title, tableTitle)
			if id == last {
				id, title = "", ""
			}
			last = r.ID
			path, why := string(r.Path), r.Layer
			if path == "" {
				path = "-"
			}
			if r.Status != Held {
				why = oneLine(r.Detail, tableDetail)
			}
			tbl.Row(id, title, path, statusStyles[r.Status].Render(string(r.Status)), why)
		}
		fmt.Fprintf(&b, "\n%s\n%s\n", styleClass.Render(class), trimLines(tbl.Render()))
	}
	fmt.Fprintf(&b, "\n%s\n", Summary(rep))
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is the one-line count of rep's results.
func Summary(rep *Report) string {
	return fmt.Sprintf("%d held, %d escaped, %d not applicable, %d could not run",
		rep.Count(Held), rep.Count(Escaped), rep.Count(NotApplicable), rep.Count(CouldNotRun))
}

// WriteJSON writes rep as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the report: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// JUnit XML: a suite per class, a case per check and path; an escape is a
// failure, a check that did not apply or could not run is skipped.
type (
	junitSuites struct {
		XMLName xml.Name     `xml:"testsuites"`
		Name    string       `xml:"name,attr"`
		Suites  []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Failure   *junitMessage `xml:"failure,omitempty"`
		Skipped   *junitMessage `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitMessage struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes rep as JUnit XML.
func WriteJUnit(w io.Writer, rep *Report) error {
	out := junitSuites{Name: "kubectl zoo verify"}
	for _, class := range rep.Classes() {
		s := junitSuite{Name: class}
		for _, r := range rep.Results {
			if r.Class != class {
				continue
			}
			c := junitCase{Name: r.ID + ": " + r.Title, ClassName: "verify." + class}
			if r.Path != "" {
				c.Name += " [" + string(r.Path) + "]"
			}
			switch r.Status {
			case Held:
				c.SystemOut = "held by " + r.Layer + ": " + r.Detail
			case Escaped:
				c.Failure = &junitMessage{Message: "escaped", Text: r.Detail}
				s.Failures++
			default:
				c.Skipped = &junitMessage{Message: string(r.Status) + ": " + r.Detail}
				s.Skipped++
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		out.Suites = append(out.Suites, s)
	}
	data, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the JUnit report: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, data)
	return err
}
