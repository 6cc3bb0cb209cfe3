package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrShardMismatch means shard reports that cannot be joined: no shards, another number of steps,
// or other thresholds.
var ErrShardMismatch = errors.New("report: shards do not match")

// Merge joins the shards of one sharded run (the same plan, each running a share of every step's
// calls) exactly: step i of the result is Build over every shard's records of step i, so its
// percentiles are those of the union of samples, never an average of percentiles. N of a merged
// step is the sum of the shards' N.
//
// What no record holds is combined as follows. The measured window spans the shards' windows;
// generator CPU is the busiest shard's. Agent CPU and RSS per call assume the shards loaded one
// agent and each scraped it whole: shard i's figure times its N estimates the agent's total, and
// the merged figure is the mean of those estimates over the merged N. Machine is the first
// shard's, with every shard's host name and their cores summed. Call numbers that collide between
// shards are renumbered so calls stay distinct.
//
// The result holds the records Build counted (the measured turns and every call), so splitting
// them again with StepRecords gives the same steps.
func Merge(shards []*Run) (*Run, error) {
	if err := mergeable(shards); err != nil {
		return nil, err
	}
	shards = renumber(shards)
	first := shards[0].Report
	cfg := first.Config
	cfg.Steps = make([]int, len(first.Steps))
	cfg.Extra = map[string]string{}
	for k, v := range first.Config.Extra {
		cfg.Extra[k] = v
	}
	cfg.Extra["shards"] = strconv.Itoa(len(shards))
	per := make([][]StepData, len(shards))
	for k, s := range shards {
		per[k] = s.Steps()
	}
	steps := make([]StepData, len(first.Steps))
	merged := &Run{}
	for i := range steps {
		steps[i] = mergeStep(per, i)
		cfg.Steps[i] = steps[i].N
		merged.Turns = append(merged.Turns, steps[i].Turns...)
		merged.Calls = append(merged.Calls, steps[i].Calls...)
	}
	r := Build(cfg, steps, first.Config.Thresholds)
	r.Machine = mergeMachines(shards)
	for _, s := range shards {
		r.Started, r.Ended = span(r.Started, r.Ended, [2]time.Time{s.Report.Started, s.Report.Ended})
	}
	merged.Report = r
	return merged, nil
}

// mergeable checks the shards can be joined step by step under one rule.
func mergeable(shards []*Run) error {
	if len(shards) == 0 {
		return fmt.Errorf("%w: no shards", ErrShardMismatch)
	}
	first := shards[0]
	for _, s := range shards[1:] {
		if len(s.Report.Steps) != len(first.Report.Steps) {
			return fmt.Errorf("%w: %s has %d steps, %s has %d", ErrShardMismatch,
				first.Path, len(first.Report.Steps), s.Path, len(s.Report.Steps))
		}
		if s.Report.Config.Thresholds != first.Report.Config.Thresholds {
			return fmt.Errorf("%w: %s and %s were judged by other thresholds", ErrShardMismatch, first.Path, s.Path)
		}
	}
	return nil
}

// renumber shifts the call numbers of later shards when any two shards share a number; it
// returns copies, leaving the given runs as they were.
func renumber(shards []*Run) []*Run {
	seen := map[int]bool{}
	clash := false
	top := -1
	for _, s := range shards {
		mine := map[int]bool{}
		for _, c := range s.Calls {
			mine[c.Call] = true
			top = max(top, c.Call)
		}
		for _, t := range s.Turns {
			mine[t.Call] = true
			top = max(top, t.Call)
		}
		for c := range mine {
			clash = clash || seen[c]
			seen[c] = true
		}
	}
	if !clash {
		return shards
	}
	stride := top + 1
	out := make([]*Run, len(shards))
	for k, s := range shards {
		off := k * stride
		c := *s
		c.Turns, c.Calls = slices.Clone(s.Turns), slices.Clone(s.Calls)
		for i := range c.Turns {
			c.Turns[i].Call += off
		}
		for i := range c.Calls {
			c.Calls[i].Call += off
		}
		out[k] = &c
	}
	return out
}

// mergeStep joins step i of every shard.
func mergeStep(per [][]StepData, i int) StepData {
	var d StepData
	var cpu, rss []float64
	for _, steps := range per {
		s := steps[i]
		d.N += s.N
		d.Turns = append(d.Turns, s.Turns...)
		d.Calls = append(d.Calls, s.Calls...)
		d.GeneratorCPU = max(d.GeneratorCPU, s.GeneratorCPU)
		d.Window[0], d.Window[1] = span(d.Window[0], d.Window[1], s.Window)
		if s.N > 0 && s.AgentCPUMilli != nil {
			cpu = append(cpu, *s.AgentCPUMilli*float64(s.N))
		}
		if s.N > 0 && s.AgentRSSMiBPerCall != nil {
			rss = append(rss, *s.AgentRSSMiBPerCall*float64(s.N))
		}
	}
	d.AgentCPUMilli = perCall(cpu, d.N)
	d.AgentRSSMiBPerCall = perCall(rss, d.N)
	return d
}

// perCall is the mean of the shards' estimates of an agent total, over n calls; nil without any.
func perCall(totals []float64, n int) *float64 {
	if len(totals) == 0 || n <= 0 {
		return nil
	}
	sum := 0.0
	for _, t := range totals {
		sum += t
	}
	v := sum / float64(len(totals)) / float64(n)
	return &v
}

func mergeMachines(shards []*Run) Machine {
	m := shards[0].Report.Machine
	var hosts []string
	m.Cores = 0
	for _, s := range shards {
		m.Cores += s.Report.Machine.Cores
		if h := s.Report.Machine.Hostname; h != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	m.Hostname = strings.Join(hosts, ",")
	return m
}

// TurnsNameFor is the turns file written beside a report at path: turns.jsonl beside a
// report.json, else the report's stem with .turns.jsonl (merged.json: merged.turns.jsonl), so
// a merge never collides with a shard's own records in the same folder.
func TurnsNameFor(path string) string {
	base := filepath.Base(path)
	if base == FileName {
		return TurnsFileName
	}
	return strings.TrimSuffix(base, filepath.Ext(base)) + "." + TurnsFileName
}

// WriteRun writes run's records to the turns file TurnsNameFor(path) beside path (refusing one
// that exists, as a run does) and then its report to path, pointing at them.
func WriteRun(path string, run *Run) error {
	run.Report.TurnsFile = TurnsNameFor(path)
	jl, err := CreateJSONL(filepath.Join(filepath.Dir(path), run.Report.TurnsFile))
	if err != nil {
		return err
	}
	for _, c := range run.Calls {
		if err := jl.WriteCall(c); err != nil {
			jl.Close()
			return err
		}
	}
	for _, t := range run.Turns {
		if err := jl.WriteTurn(t); err != nil {
			jl.Close()
			return err
		}
	}
	if err := jl.Close(); err != nil {
		return err
	}
	run.Path = path
	return run.Report.WriteFile(path)
}

// WriteFile writes the report to path the way Write writes dir/report.json: indented, through a
// temporary file renamed into place.
func (r *Report) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	return nil
}
