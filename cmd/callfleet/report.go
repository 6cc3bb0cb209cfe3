package main

import (
	"encoding/json"
	"io"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/report"
)

func init() {
	register("report", "print a run's report again: text, markdown, json or html", cmdReport)
}

func cmdReport(st *state, args []string) int {
	fs := st.newFlags("report", "DIR/report.json [--format text|markdown|json|html] [-o FILE]")
	format := fs.String("format", "text", "text, markdown, json or html (one self-contained page with charts)")
	out := fs.String("o", "", "write to FILE instead of standard output")
	if code, ok := parse(fs, interleaved(fs, args)); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	path := fs.Arg(0)
	r, err := report.Load(path)
	if err != nil {
		return st.fail(exitUsage, "%v", err) // already says "report: load ..."
	}
	var render func(io.Writer) error
	switch *format {
	case "text":
		render = func(w io.Writer) error { return report.Text(w, r) }
		// A probe, barge-in or idle run keeps its figures in a scenario section.
		if sr, err := report.LoadScenarios(path); err == nil && (sr.Probe != nil || sr.BargeIn != nil || sr.Idle != nil) {
			render = func(w io.Writer) error { return report.TextScenarios(w, sr) }
		}
	case "markdown", "md":
		render = func(w io.Writer) error { return report.Markdown(w, r) }
		if sr, err := report.LoadScenarios(path); err == nil && (sr.Probe != nil || sr.BargeIn != nil || sr.Idle != nil) {
			render = func(w io.Writer) error { return report.MarkdownScenarios(w, sr) }
		}
	case "json":
		render = func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}
	case "html":
		turns := st.reportTurns(r, path)
		var extra []report.Section // a probe's, barge-in's or idle's tables
		if sr, err := report.LoadScenarios(path); err == nil {
			extra = sr.Sections()
		}
		render = func(w io.Writer) error { return report.HTML(w, r, turns, extra...) }
	default:
		return st.fail(exitUsage, "report: --format %q: want text, markdown, json or html", *format)
	}
	if err := writeTo(st.stdout, *out, render); err != nil {
		return st.fail(exitFailure, "report: %v", err)
	}
	return exitOK
}

// reportTurns reads the report's turn records for the HTML distributions; without them the page
// is still written, with a warning.
func (st *state) reportTurns(r *report.Report, path string) []callers.Turn {
	tp := r.TurnsPath(path)
	if tp == "" {
		st.fail(0, "report: warning: the report names no turns file: the distributions are left out")
		return nil
	}
	turns, _, err := report.ReadJSONL(tp)
	if err != nil {
		st.fail(0, "report: warning: %v: the distributions are left out", err)
		return nil
	}
	return turns
}
