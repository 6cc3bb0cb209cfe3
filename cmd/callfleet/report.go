package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/report"
)

func init() {
	register("report", "print a run's report again (rebuilt from turns.jsonl if the run died): text, markdown, json or html", cmdReport)
}

func cmdReport(st *state, args []string) int {
	fs := st.newFlags("report", "DIR | DIR/report.json [--format text|markdown|json|html] [-o FILE]\n\n"+
		"Prints a run's report again. When the run died before writing DIR/report.json (killed, crashed, a\n"+
		"full disk), or report.json is older than its turns.jsonl, it first rebuilds report.json and\n"+
		"report.html from turns.jsonl, which holds every record the run finished. Unreadable lines of\n"+
		"turns.jsonl are skipped and counted.")
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
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, report.FileName)
	}
	r, recs, code := st.loadOrRebuild(path)
	if r == nil {
		return code
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
		var turns []callers.Turn
		if recs != nil {
			turns = recs.Turns
		} else {
			turns = st.reportTurns(r, path)
		}
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

// loadOrRebuild loads the report at path, or rebuilds it (and report.html beside it) from its
// turns file when the run never wrote it or wrote it before its last records; the records come
// back when it rebuilt. A nil report comes with the exit code.
func (st *state) loadOrRebuild(path string) (*report.Report, *report.Records, int) {
	turnsPath := filepath.Join(filepath.Dir(path), report.TurnsNameFor(path))
	if !stale(path, turnsPath) {
		r, err := report.Load(path)
		if err != nil {
			return nil, nil, st.fail(exitUsage, "%v", err) // already says "report: load ..."
		}
		return r, nil, exitOK
	}
	_, statErr := os.Stat(path)
	recs, err := report.ReadRecords(turnsPath)
	if err != nil {
		return nil, nil, st.fail(exitUsage, "report: %v", err)
	}
	if note := recs.SkippedNote(); note != "" {
		st.fail(0, "report: warning: %s: %s", turnsPath, note)
	}
	r, err := report.Rebuild(recs)
	switch {
	case errors.Is(err, report.ErrNoRunLine) && statErr == nil: // a merge's or an older run's records: the report stands
		if r, err = report.Load(path); err != nil {
			return nil, nil, st.fail(exitUsage, "%v", err)
		}
		return r, nil, exitOK
	case errors.Is(err, report.ErrNoRunLine):
		return nil, nil, st.fail(exitUsage, "report: %s is missing and %s has no run line to rebuild it from "+
			"(written by an older callfleet, by merge or by a scenario run)", path, turnsPath)
	case err != nil:
		return nil, nil, st.fail(exitUsage, "report: rebuild from %s: %v", turnsPath, err)
	}
	r.TurnsFile = report.TurnsNameFor(path)
	if err := r.WriteFile(path); err != nil {
		return nil, nil, st.fail(exitFailure, "report: %v", err)
	}
	dir := filepath.Dir(path)
	if err := report.WriteHTML(dir, r, recs.Turns); err != nil {
		return nil, nil, st.fail(exitFailure, "report: %v", err)
	}
	why := "it is older than its records"
	if statErr != nil {
		why = "the run did not write it"
	}
	st.fail(0, "report: rebuilt %s and %s from %s (%s): %d turns, %d calls", path,
		filepath.Join(dir, report.HTMLFileName), turnsPath, why, len(recs.Turns), len(recs.Calls))
	return r, recs, exitOK
}

// stale says whether the report at path must be rebuilt from turnsPath: the turns file exists and
// the report does not, or was written before the turns file's last record.
func stale(path, turnsPath string) bool {
	tf, err := os.Stat(turnsPath)
	if err != nil {
		return false
	}
	rf, err := os.Stat(path)
	return err != nil || tf.ModTime().After(rf.ModTime())
}

// reportTurns reads the report's turn records for the HTML distributions; without them the page
// is still written, with a warning.
func (st *state) reportTurns(r *report.Report, path string) []callers.Turn {
	tp := r.TurnsPath(path)
	if tp == "" {
		st.fail(0, "report: warning: the report names no turns file: the distributions are left out")
		return nil
	}
	recs, err := report.ReadRecords(tp)
	if err != nil {
		st.fail(0, "report: warning: %v: the distributions are left out", err)
		return nil
	}
	if note := recs.SkippedNote(); note != "" {
		st.fail(0, "report: warning: %s: %s", tp, note)
	}
	return recs.Turns
}
