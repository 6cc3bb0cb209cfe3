package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// errWriter keeps the first write error, so renderers check once at the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) line(format string, args ...any) { fmt.Fprintf(e, format+"\n", args...) }

// Text writes the plain-text summary: the run and the ears' calibration, the per-step table, where
// turns failed, turns not understood by reason, verdicts, capacity and generator warnings.
func Text(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	ew.line("callfleet report (%s)", r.Schema)
	for _, l := range header(r) {
		ew.line("%s", l)
	}
	for _, l := range calibrationLines(r) {
		ew.line("%s", l)
	}
	ew.line("")
	textTable(ew, summaryTable(r))
	ew.line("")
	ew.line("where turns failed (server transcript x caller's transcription of the reply):")
	textTable(ew, crossTable(r))
	ew.line("(%s)", crossLegend)
	ew.line("")
	ew.line("the load generator (this machine):")
	textTable(ew, generatorTable(r))
	textSection(ew, "turns not understood and unclean calls, by reason:", failureLines(r))
	textSection(ew, "verdicts:", verdictLines(r))
	ew.line("")
	ew.line("%s", capacityLine(r))
	if l := runTurnsLine(r); l != "" {
		ew.line("%s", l)
	}
	if l := costLine(r); l != "" {
		ew.line("%s", l)
	}
	for _, l := range warnings(r) {
		ew.line("%s", l)
	}
	if ew.err != nil {
		return fmt.Errorf("report: text: %w", ew.err)
	}
	return nil
}

func textSection(ew *errWriter, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	ew.line("")
	ew.line("%s", title)
	for _, l := range lines {
		ew.line("  %s", l)
	}
}

func textTable(ew *errWriter, t table) {
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.head, "\t"))
	for _, row := range t.rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush() // its error is the errWriter's, reported by the caller
}
