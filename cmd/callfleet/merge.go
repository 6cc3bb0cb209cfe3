package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/callfleet/callfleet/report"
)

func init() {
	register("merge", "join the reports of a sharded run into one, from their per-turn records", cmdMerge)
}

func cmdMerge(st *state, args []string) int {
	fs := st.newFlags("merge", "SHARD/report.json... -o MERGED.json\n\n"+
		"Joins the shards of one sharded run (the same plan, each with a share of every step's calls): step i\n"+
		"of the result is built from every shard's records of step i, so percentiles are those of all the\n"+
		"samples, and N is the sum of the shards' N. Writes MERGED.json and its records beside it\n"+
		"(MERGED.turns.jsonl, or turns.jsonl beside a report.json), then prints the merged summary.\n\n"+
		"Reports of `callfleet run --shard I/N` must be all N shards of one run (the same seed, steps, step\n"+
		"timing and --start-at, each index once), and their N must add up to the plan's; exit 2 otherwise.")
	out := fs.String("o", "", "the merged report to write (required)")
	if code, ok := parse(fs, interleaved(fs, args)); !ok {
		return code
	}
	if fs.NArg() < 1 || *out == "" {
		fs.Usage()
		return exitUsage
	}
	turnsPath := filepath.Join(filepath.Dir(*out), report.TurnsNameFor(*out))
	if _, err := os.Stat(turnsPath); err == nil {
		return st.fail(exitUsage, "merge: %s exists: remove it or choose another -o", turnsPath)
	}
	shards := make([]*report.Run, 0, fs.NArg())
	for _, path := range fs.Args() {
		run, err := report.LoadRun(path)
		if err != nil {
			return st.fail(exitUsage, "merge: %v", err)
		}
		if note := report.SkippedNote(run.Skipped); note != "" {
			st.fail(0, "merge: warning: %s: %s", run.Report.TurnsPath(path), note)
		}
		shards = append(shards, run)
	}
	merged, err := report.Merge(shards)
	if errors.Is(err, report.ErrShardMismatch) {
		return st.fail(exitUsage, "merge: %v", err)
	}
	if err != nil {
		return st.fail(exitFailure, "merge: %v", err)
	}
	if err := report.WriteRun(*out, merged); err != nil {
		return st.fail(exitFailure, "merge: %v", err)
	}
	if err := report.Text(st.stdout, merged.Report); err != nil {
		return st.fail(exitFailure, "merge: %v", err)
	}
	fmt.Fprintf(st.stdout, "\nmerged %d shards: %s (records: %s)\n", len(shards), *out, turnsPath)
	return exitOK
}
