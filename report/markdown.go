package report

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the same summary as Text, as Markdown (GitHub tables).
func Markdown(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	ew.line("# callfleet report")
	ew.line("")
	ew.line("Schema `%s`.", r.Schema)
	ew.line("")
	for _, l := range header(r) {
		ew.line("- %s", l)
	}
	for _, l := range calibrationLines(r) {
		ew.line("")
		ew.line("%s", mdCalibration(r, l))
	}
	ew.line("")
	mdTable(ew, summaryTable(r))
	ew.line("")
	ew.line("## Where turns failed")
	ew.line("")
	ew.line("Server transcript x the caller's transcription of the reply. %s.", crossLegend)
	ew.line("")
	mdTable(ew, crossTable(r))
	ew.line("")
	ew.line("## The load generator")
	ew.line("")
	mdTable(ew, generatorTable(r))
	mdSection(ew, "Turns not understood and unclean calls, by reason", failureLines(r))
	mdSection(ew, "Verdicts", verdictLines(r))
	ew.line("")
	ew.line("**%s**", capacityLine(r))
	if l := runTurnsLine(r); l != "" {
		ew.line("")
		ew.line("%s", l)
	}
	if l := costLine(r); l != "" {
		ew.line("")
		ew.line("%s", l)
	}
	for _, l := range warnings(r) {
		ew.line("")
		ew.line("> %s", l)
	}
	if ew.err != nil {
		return fmt.Errorf("report: markdown: %w", ew.err)
	}
	return nil
}

// mdCalibration sets an untrusted calibration apart as a bold quote: it changes what FAIL means.
func mdCalibration(r *Report, line string) string {
	if r.Calibration.Trusted {
		return line
	}
	return "> **" + line + "**"
}

func mdSection(ew *errWriter, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	ew.line("")
	ew.line("## %s", title)
	ew.line("")
	for _, l := range lines {
		ew.line("- %s", l)
	}
}

func mdTable(ew *errWriter, t table) {
	ew.line("| %s |", strings.Join(mdCells(t.head), " | "))
	seps := make([]string, len(t.head))
	for i := range seps {
		seps[i] = "---"
	}
	ew.line("| %s |", strings.Join(seps, " | "))
	for _, row := range t.rows {
		ew.line("| %s |", strings.Join(mdCells(row), " | "))
	}
}

// mdCells escapes pipes, the one character that breaks a table cell.
func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return out
}
