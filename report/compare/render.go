package compare

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Text writes the comparison as plain text: the two runs, each scope's table, the rules and the
// verdict.
func (c *Comparison) Text(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.line("callfleet compare")
	ew.line("base:      %s (%s)", c.Base.Path, c.Base.describe())
	ew.line("candidate: %s (%s)", c.Cand.Path, c.Cand.describe())
	for _, warn := range c.Warnings {
		ew.line("warning: %s", warn)
	}
	for _, t := range c.Tables {
		ew.line("")
		ew.line("%s", t.Scope)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  quantity\tbase\tcandidate\tchange\tMann-Whitney p")
		for _, r := range t.Rows {
			b, cd, ch := r.cells()
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Quantity, b, cd, ch, formatP(r.P))
		}
		tw.Flush() // its error is the errWriter's
	}
	ew.line("")
	ew.line("rules (latency changes relative to the base must also be significant: one-sided Mann-Whitney, alpha %s):",
		formatAlpha(c.Alpha))
	for _, res := range c.Results {
		if len(res.Checks) == 1 {
			ew.line("  %-5s  %s: %s", res.Status, res.Rule.Text, scoped(res.Checks[0], res.Rule))
			continue
		}
		ew.line("  %-5s  %s", res.Status, res.Rule.Text)
		for _, ch := range res.Checks {
			ew.line("         %s %s", ch.Status, scoped(ch, res.Rule))
		}
	}
	ew.line("")
	ew.line("result: %s", c.summary())
	if ew.err != nil {
		return fmt.Errorf("compare: text: %w", ew.err)
	}
	return nil
}

// scoped is a check's detail with its scope.
func scoped(ch Check, r Rule) string { return "[" + ch.Scope + "] " + ch.detail(r) }

// Markdown writes the comparison for a pull-request comment: the verdict and rules first, the
// overall table, and each step's table folded.
func (c *Comparison) Markdown(w io.Writer) error {
	ew := &errWriter{w: w}
	verdict := "✅ pass"
	if c.Regressed() {
		verdict = "❌ regression"
	}
	ew.line("## callfleet compare: %s", verdict)
	ew.line("")
	ew.line("%s.", c.counts())
	ew.line("")
	ew.line("| | base | candidate |")
	ew.line("| --- | --- | --- |")
	ew.line("| report | `%s` | `%s` |", c.Base.Path, c.Cand.Path)
	ew.line("| run | %s | %s |", c.Base.describe(), c.Cand.describe())
	for _, warn := range c.Warnings {
		ew.line("")
		ew.line("> ⚠️ %s", warn)
	}
	ew.line("")
	ew.line("### Rules")
	ew.line("")
	ew.line("Latency changes relative to the base must also be significant (one-sided Mann-Whitney, α = %s).", formatAlpha(c.Alpha))
	ew.line("")
	ew.line("| status | rule | scope | detail |")
	ew.line("| --- | --- | --- | --- |")
	for _, res := range c.Results {
		for _, ch := range res.Checks {
			ew.line("| %s | `%s` | %s | %s |", mdStatus(ch.Status), cell(res.Rule.Text), ch.Scope, cell(ch.detail(res.Rule)))
		}
	}
	for i, t := range c.Tables {
		ew.line("")
		if i == 0 {
			ew.line("### Overall")
			ew.line("")
			mdTable(ew, t)
			continue
		}
		ew.line("<details><summary>%s</summary>", t.Scope)
		ew.line("")
		mdTable(ew, t)
		ew.line("")
		ew.line("</details>")
	}
	if ew.err != nil {
		return fmt.Errorf("compare: markdown: %w", ew.err)
	}
	return nil
}

func mdTable(ew *errWriter, t Table) {
	ew.line("| quantity | base | candidate | change | Mann-Whitney p |")
	ew.line("| --- | ---: | ---: | ---: | ---: |")
	for _, r := range t.Rows {
		b, cd, ch := r.cells()
		ew.line("| %s | %s | %s | %s | %s |", r.Quantity, b, cd, ch, formatP(r.P))
	}
}

func mdStatus(s Status) string {
	switch s {
	case StatusFail:
		return "❌ FAIL"
	case StatusPass:
		return "✅ PASS"
	case StatusNoise:
		return "〰️ NOISE"
	}
	return "⏭️ SKIP"
}

// cell escapes the one character that breaks a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// The JUnit XML that CI systems read: one test case per rule.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit writes the rules as JUnit XML: a failed rule is a failure, a rule with nothing to compare
// is skipped, and every case's output holds its checks.
func (c *Comparison) JUnit(w io.Writer) error {
	s := junitSuite{Name: "callfleet compare", Tests: len(c.Results), Failures: c.Count(StatusFail), Skipped: c.Count(StatusSkip),
		Properties: []junitProperty{{"base", c.Base.Path}, {"candidate", c.Cand.Path}, {"alpha", formatAlpha(c.Alpha)}}}
	for _, res := range c.Results {
		var lines []string
		for _, ch := range res.Checks {
			lines = append(lines, ch.Status.String()+" "+scoped(ch, res.Rule))
		}
		out := strings.Join(lines, "\n")
		jc := junitCase{Name: res.Rule.Text, Classname: "callfleet.compare", Time: "0", SystemOut: out}
		switch res.Status {
		case StatusFail:
			jc.Failure = &junitMessage{Message: "regression: " + res.Rule.Text, Type: "regression", Text: out}
		case StatusSkip:
			jc.Skipped = &junitMessage{Message: res.Checks[0].Note}
		}
		s.Cases = append(s.Cases, jc)
	}
	doc := junitSuites{Name: "callfleet compare", Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Suites: []junitSuite{s}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("compare: junit: %w", err)
	}
	if _, err := fmt.Fprintf(w, "%s%s\n", xml.Header, b); err != nil {
		return fmt.Errorf("compare: junit: %w", err)
	}
	return nil
}
