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
	mdSection(ew, "Failures by reason", failureLines(r))
	mdSection(ew, "Verdicts", verdictLines(r))
	ew.line("")
	ew.line("**%s**", capacityLine(r))
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
