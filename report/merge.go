package report

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrShardMismatch means shard reports that cannot be joined: no shards, another number of steps,
// other thresholds, or shards of a sharded run that are not one run's complete set.
var ErrShardMismatch = errors.New("report: shards do not match")

// Keys of RunConfig.Extra by which a sharded run's reports say which run they belong to.
const (
	ExtraShard   = "shard"    // a shard's report: "INDEX/COUNT", the 0-based shard of COUNT
	ExtraStartAt = "start_at" // RFC 3339: the start every shard's steps were pinned to
	ExtraShards  = "shards"   // a merged report: how many shards it joins
)

// Merge joins the shards of one sharded run (the same plan, each running a share of every step's
// calls) exactly: step i of the result is Build over every shard's records of step i, so its
// percentiles are those of the union of samples, never an average of percentiles. N of a merged
// step is the sum of the shards' N: each shard's report holds its own share of the step, so the
// sum is the plan's N (checked, for shards that name their shard).
//
// Reports of `callfleet run --shard` (Extra "shard") must be one run's complete set: every index
// of the same count once, with the same seed, steps, step timing and start; they are joined in
// index order and calls keep their numbers, which the plan made distinct.
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
	shards, sharded, err := shardSet(shards)
	if err != nil {
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
	delete(cfg.Extra, ExtraShard)
	cfg.Extra[ExtraShards] = strconv.Itoa(len(shards))
	per := make([][]StepData, len(shards))
	for k, s := range shards {
		per[k] = s.Steps()
	}
	steps := make([]StepData, len(first.Steps))
	merged := &Run{}
	for i := range steps {
		steps[i] = mergeStep(per, i)
		if sharded && i < len(first.Config.Steps) && steps[i].N != first.Config.Steps[i] {
			return nil, fmt.Errorf("%w: step %d: the shards placed %d calls, the plan has %d", ErrShardMismatch,
				i+1, steps[i].N, first.Config.Steps[i])
		}
		cfg.Steps[i] = steps[i].N
		merged.Turns = append(merged.Turns, steps[i].Turns...)
		merged.Calls = append(merged.Calls, steps[i].Calls...)
	}
	r := Build(cfg, steps, first.Config.Thresholds)
	r.Machine = mergeMachines(shards)
	for _, s := range shards {
		r.Started, r.Ended = span(r.Started, r.Ended, [2]time.Time{s.Report.Started, s.Report.Ended})
	}
	for _, s := range shards {
		r.SkippedLines += len(s.Skipped) // records merge could not read are not in the sum
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

// shardSet checks the reports of a sharded run are one run's complete set and returns them in
// index order, and true; the reports as given and false when none names its shard.
func shardSet(shards []*Run) ([]*Run, bool, error) {
	index := make([]int, len(shards))
	count := -1
	for k, s := range shards {
		label, ok := s.Report.Config.Extra[ExtraShard]
		if !ok {
			index[k] = -1
			continue
		}
		i, n, err := parseShard(label)
		if err != nil {
			return nil, false, fmt.Errorf("%w: %s: %v", ErrShardMismatch, s.Path, err)
		}
		if count >= 0 && n != count {
			return nil, false, fmt.Errorf("%w: %s is shard %s, but another is one of %d", ErrShardMismatch, s.Path, label, count)
		}
		index[k], count = i, n
	}
	if count < 0 {
		return shards, false, nil
	}
	byIndex := make([]*Run, count)
	for k, s := range shards {
		switch i := index[k]; {
		case i < 0:
			return nil, false, fmt.Errorf("%w: %s names no shard, but the others are shards of %d", ErrShardMismatch, s.Path, count)
		case byIndex[i] != nil:
			return nil, false, fmt.Errorf("%w: %s and %s are both shard %d/%d", ErrShardMismatch, byIndex[i].Path, s.Path, i, count)
		default:
			byIndex[i] = s
		}
	}
	var missing []string
	for i, s := range byIndex {
		if s == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		return nil, false, fmt.Errorf("%w: missing shard %s (got %d of %d)", ErrShardMismatch, strings.Join(missing, ", "), len(shards), count)
	}
	ref := byIndex[0]
	for _, s := range byIndex[1:] {
		if what := samePlan(ref.Report.Config, s.Report.Config); what != "" {
			return nil, false, fmt.Errorf("%w: %s and %s are not one run: other %s", ErrShardMismatch, ref.Path, s.Path, what)
		}
	}
	return byIndex, true, nil
}

// samePlan names the first setting of the plan a and b differ in, "" when they ran one plan.
func samePlan(a, b RunConfig) string {
	switch {
	case a.Seed != b.Seed:
		return fmt.Sprintf("seed (%d, %d)", a.Seed, b.Seed)
	case !slices.Equal(a.Steps, b.Steps):
		return fmt.Sprintf("steps (%v, %v)", a.Steps, b.Steps)
	case a.StepDuration != b.StepDuration || a.Ramp != b.Ramp || a.Warmup != b.Warmup:
		return "step timing (step duration, ramp, warm-up)"
	case a.Extra[ExtraStartAt] != b.Extra[ExtraStartAt]:
		return fmt.Sprintf("start (%q, %q)", a.Extra[ExtraStartAt], b.Extra[ExtraStartAt])
	}
	return ""
}

// parseShard reads the INDEX/COUNT a shard's report carries.
func parseShard(label string) (index, count int, err error) {
	a, b, ok := strings.Cut(label, "/")
	if ok {
		index, err = strconv.Atoi(a)
		if err == nil {
			count, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || count < 1 || index < 0 || index >= count {
		return 0, 0, fmt.Errorf("shard %q is not INDEX/COUNT with 0 <= INDEX < COUNT", label)
	}
	return index, count, nil
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
	d := StepData{MachineSteal: -1}
	var cpu, rss []float64
	for _, steps := range per {
		s := steps[i]
		d.N += s.N
		d.Turns = append(d.Turns, s.Turns...)
		d.Calls = append(d.Calls, s.Calls...)
		if s.N > 0 { // a shard with no call in the step generated nothing to judge it by
			d.GeneratorCPU = max(d.GeneratorCPU, s.GeneratorCPU)
			d.MachineSteal = max(d.MachineSteal, s.MachineSteal)
		}
		d.Window[0], d.Window[1] = span(d.Window[0], d.Window[1], s.Window)
		d.Cut = d.Cut || s.Cut // one shard cut short leaves the joined step incomplete
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
