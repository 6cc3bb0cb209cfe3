// Package report is the record of a run: turns.jsonl (every turn and call record, written as they
// finish, after a run line and between step lines that let Rebuild remake report.json from the
// file alone when the run died; readers skip and count lines they cannot read), report.json (schema-versioned: run config, machine, per-step aggregates, verdicts and
// capacity, built from the records with package checks) and its renderers (a plain-text summary,
// Markdown, and a one-line progress format). It only reads and writes files: no network, no
// printing of its own; renderers write to the io.Writer they are given.
//
// Percentiles are those of checks.Summarize: montanaflynn/stats Percentile, linear interpolation
// between closest ranks (Hyndman & Fan type 7), over exactly the turns the controller passes for a
// step (those whose Wall falls in the measured window).
package report
