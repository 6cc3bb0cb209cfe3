package main

import (
	"encoding/json"

	"github.com/callfleet/callfleet/report"
)

func init() {
	register("report", "print a run's report again: text, markdown or json", cmdReport)
}

func cmdReport(st *state, args []string) int {
	fs := st.newFlags("report", "DIR/report.json [--format text|markdown|json]")
	format := fs.String("format", "text", "text, markdown or json")
	if code, ok := parse(fs, interleaved(fs, args)); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	r, err := report.Load(fs.Arg(0))
	if err != nil {
		return st.fail(exitUsage, "%v", err) // already says "report: load ..."
	}
	switch *format {
	case "text":
		err = report.Text(st.stdout, r)
	case "markdown", "md":
		err = report.Markdown(st.stdout, r)
	case "json":
		enc := json.NewEncoder(st.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	default:
		return st.fail(exitUsage, "report: --format %q: want text, markdown or json", *format)
	}
	if err != nil {
		return st.fail(exitFailure, "report: %v", err)
	}
	return exitOK
}

