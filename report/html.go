package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/callfleet/callfleet/callers"
)

// HTMLFileName is the HTML report's name in a run directory.
const HTMLFileName = "report.html"

// Section is an optional table of the HTML report, after the charts: the hook for results that
// are not in report.json, such as a probe's table.
type Section struct {
	ID    string // the anchor; derived from the title when empty
	Title string
	Note  string // a paragraph under the title
	Head  []string
	Rows  [][]string
}

// HTML writes the report as one self-contained page: no scripts, no styles or fonts fetched, the
// charts inline SVG drawn by gonum/plot. turns are the run's turn records (all of turns.jsonl, or
// only the measured ones); without them the per-step distributions are left out.
func HTML(w io.Writer, r *Report, turns []callers.Turn, extra ...Section) error {
	steps := StepRecords(r, turns, nil)
	cs, left := charts(r, steps)
	page := htmlPage{
		Title:     "callfleet report: capacity " + capacityText(r.Capacity),
		Schema:    r.Schema,
		Header:    header(r),
		Ears:      calibrationLines(r),
		Untrusted: r.Calibration != nil && !r.Calibration.Trusted,
		Capacity:  capacityLine(r),
		Turns:     runTurnsLine(r),
		Warnings:  append(warnings(r), left...),
		Summary:   htmlTableOf(summaryTable(r), r),
		Cross:     htmlTableOf(crossTable(r), nil),
		Legend:    crossLegend,
		Failures:  failureLines(r),
		Verdicts:  verdictLines(r),
		Charts:    cs,
		NoTurns:   len(turns) == 0,
	}
	for i, s := range extra {
		if s.ID == "" {
			s.ID = fmt.Sprintf("section-%d", i+1)
		}
		page.Extra = append(page.Extra, s)
	}
	// A scenario run (probe, barge-in, idle) has no steps: its page is its sections.
	page.Ramp = len(r.Steps) > 0 || len(extra) == 0
	if !page.Ramp {
		var titles []string
		for _, s := range extra {
			titles = append(titles, s.Title)
		}
		page.Title = "callfleet report: " + strings.Join(titles, ", ")
		page.Capacity = "not a ramp: the scenario's tables are below"
		page.Header = scenarioHeader(r)
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	return nil
}

// WriteHTML writes dir/report.html through a temporary file renamed into place. With nil turns it
// reads the records from the turns file the report names in dir.
func WriteHTML(dir string, r *Report, turns []callers.Turn, extra ...Section) error {
	if turns == nil && r.TurnsFile != "" {
		tp := r.TurnsFile
		if !filepath.IsAbs(tp) {
			tp = filepath.Join(dir, tp)
		}
		var err error
		if turns, _, err = ReadJSONL(tp); err != nil {
			return fmt.Errorf("report: html: %w", err)
		}
	}
	var b bytes.Buffer
	if err := HTML(&b, r, turns, extra...); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, HTMLFileName), b.Bytes()); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	return nil
}

type htmlPage struct {
	Ramp                            bool // a ramp's steps, charts and cross-tab; false: only the sections
	Title, Schema, Capacity, Legend string
	Turns                           string   // the run's ok / failed / slips figure
	Ears                            []string // the calibration of the caller's ears
	Untrusted                       bool     // the ears were not trusted: Ears is a warning
	Header, Warnings                []string
	Failures, Verdicts              []string
	Summary, Cross                  htmlTable
	Charts                          []chart
	Extra                           []Section
	NoTurns                         bool
}

// scenarioHeader is the run lines of a scenario run: no steps to describe.
func scenarioHeader(r *Report) []string {
	c, m := r.Config, r.Machine
	lines := []string{
		fmt.Sprintf("target %s over %s, seed %d", orDash(c.Target), orDash(c.Transport), c.Seed),
		fmt.Sprintf("machine %s, %s/%s, %d cores, %s%s", orDash(m.Hostname), m.OS, m.Arch, m.Cores, m.GoVersion, prefixed(", ", m.CPUModel)),
	}
	if !r.Started.IsZero() {
		lines = append(lines, fmt.Sprintf("from %s to %s", stamp(r.Started), stamp(r.Ended)))
	}
	return lines
}

type htmlTable struct {
	Head []string
	Rows []htmlRow
}

type htmlRow struct {
	Class string // ok, fail, bound or incomplete: the step's verdict
	Cells []string
}

// htmlTableOf converts a table; with r, each row is one of r's steps and takes its verdict's class.
func htmlTableOf(t table, r *Report) htmlTable {
	out := htmlTable{Head: t.head}
	for i, row := range t.rows {
		hr := htmlRow{Cells: row}
		if r != nil && i < len(r.Steps) {
			hr.Class = verdictClass(r.Steps[i])
		}
		out.Rows = append(out.Rows, hr)
	}
	return out
}

func verdictClass(s Step) string {
	switch {
	case s.Verdict.OK:
		return "ok"
	case s.Verdict.Incomplete:
		return "incomplete"
	case s.Verdict.GeneratorBound:
		return "bound"
	}
	return "fail"
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="callfleet ({{.Schema}})">
<title>{{.Title}}</title>
<style>
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 3rem; color: #1d1d1f; }
h1 { margin-bottom: .25rem; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .2rem; margin-top: 2.2rem; }
.capacity { font-size: 1.25rem; font-weight: 600; }
.warning { background: #fff4e0; border-left: 4px solid #ff8c00; padding: .4rem .7rem; }
.alert { background: #fde8e8; border-left: 6px solid #d62728; padding: .6rem .8rem; font-weight: 600; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: .6rem 0; }
th, td { border: 1px solid #ddd; padding: .3rem .55rem; text-align: right; white-space: nowrap; }
th { background: #f5f5f7; }
td:first-child, th:first-child { text-align: left; }
tr.ok td:last-child { color: #2e8b57; font-weight: 600; }
tr.fail td:last-child { color: #d62728; font-weight: 600; }
tr.bound td:last-child { color: #c06000; font-weight: 600; }
tr.incomplete td:last-child { color: #777; font-style: italic; }
.scroll { overflow-x: auto; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(30rem, 1fr)); gap: 1.2rem; }
figure { margin: 0; border: 1px solid #e5e5e5; border-radius: 6px; padding: .6rem; }
figcaption { font-size: .85rem; color: #555; margin-top: .3rem; }
svg.chart { width: 100%; height: auto; display: block; }
nav a { margin-right: .9rem; }
footer { margin-top: 3rem; color: #777; font-size: .85rem; }
</style>
</head>
<body>
<header>
<h1>callfleet report</h1>
{{range .Ears}}<p id="calibration" class="{{if $.Untrusted}}alert{{else}}note{{end}}">{{.}}</p>
{{end}}<p class="capacity" id="capacity">{{.Capacity}}</p>
{{if .Turns}}<p class="turns">{{.Turns}}</p>
{{end}}<ul class="run">{{range .Header}}
<li>{{.}}</li>{{end}}
</ul>
{{range .Warnings}}<p class="warning">{{.}}</p>
{{end}}<nav>{{if .Ramp}}<a href="#steps">Steps</a><a href="#charts">Charts</a><a href="#where">Where turns failed</a>{{if .Failures}}<a href="#failures">By reason</a>{{end}}{{if .Verdicts}}<a href="#verdicts">Verdicts</a>{{end}}{{end}}{{range .Extra}}<a href="#{{.ID}}">{{.Title}}</a>{{end}}</nav>
</header>
{{if .Ramp}}<section id="steps">
<h2>Steps</h2>
{{template "table" .Summary}}
</section>
<section id="charts">
<h2>Charts</h2>
{{if .NoTurns}}<p class="note">The turn records were not at hand: the per-step distributions are left out.</p>
{{end}}<div class="charts">
{{range .Charts}}<figure id="{{.ID}}">
{{.SVG}}<figcaption><strong>{{.Title}}.</strong> {{.Caption}}</figcaption>
</figure>
{{end}}</div>
</section>
<section id="where">
<h2>Where turns failed</h2>
<p>Server transcript × the caller's transcription of the reply. {{.Legend}}.</p>
{{template "table" .Cross}}
</section>
{{if .Failures}}<section id="failures">
<h2>Turns not understood and unclean calls, by reason</h2>
<ul>{{range .Failures}}
<li>{{.}}</li>{{end}}
</ul>
</section>
{{end}}{{if .Verdicts}}<section id="verdicts">
<h2>Verdicts</h2>
<ul>{{range .Verdicts}}
<li>{{.}}</li>{{end}}
</ul>
</section>
{{end}}{{end}}{{range .Extra}}<section id="{{.ID}}" class="extra">
<h2>{{.Title}}</h2>
{{if .Note}}<p>{{.Note}}</p>
{{end}}<div class="scroll"><table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}
</tbody>
</table></div>
</section>
{{end}}<footer>Generated by callfleet from a report of schema <code>{{.Schema}}</code>. This page is self-contained: it loads nothing.</footer>
</body>
</html>
{{define "table"}}<div class="scroll"><table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}
<tr{{if .Class}} class="{{.Class}}"{{end}}>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>{{end}}
</tbody>
</table></div>{{end}}
`))
