package scenarios

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
)

func TestParseShard(t *testing.T) {
	cases := []struct {
		in           string
		index, count int
		err          bool
	}{
		{"0/4", 0, 4, false},
		{"3/4", 3, 4, false},
		{" 1 / 2 ", 1, 2, false},
		{"7/4", 7, 4, false}, // parses; Validate rejects the range
		{"4", 0, 0, true},
		{"a/4", 0, 0, true},
		{"1/b", 0, 0, true},
		{"", 0, 0, true},
		{"1/2/3", 0, 0, true},
	}
	for _, c := range cases {
		i, n, err := ParseShard(c.in)
		if (err != nil) != c.err || i != c.index || n != c.count {
			t.Errorf("ParseShard(%q) = %d, %d, %v", c.in, i, n, err)
		}
	}
}

func TestShardValidate(t *testing.T) {
	p := DefaultPlan()
	p.Ramp, p.Warmup, p.Duration = 10*time.Second, 5*time.Second, 45*time.Second // a step is 1 min
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		shard Shard
		want  []string // one substring per error expected
	}{
		{"ahead", Shard{Index: 1, Count: 4, StartAt: now.Add(time.Minute)}, nil},
		{"just passed", Shard{Index: 0, Count: 2, StartAt: now.Add(-59 * time.Second)}, nil},
		{"single, no start", Shard{Index: 0, Count: 1}, nil},
		{"index = count", Shard{Index: 4, Count: 4, StartAt: now}, []string{"index must be in [0, 4)"}},
		{"negative index", Shard{Index: -1, Count: 4, StartAt: now}, []string{"index must be in"}},
		{"no count", Shard{Index: 0, Count: 0, StartAt: now}, []string{"count must be at least 1"}},
		{"no start", Shard{Index: 0, Count: 2}, []string{"start time"}},
		{"a step late", Shard{Index: 0, Count: 2, StartAt: now.Add(-61 * time.Second)}, []string{"more than a step"}},
		{"both", Shard{Index: 2, Count: 2, StartAt: now.Add(-time.Hour)}, []string{"index", "more than a step"}},
	}
	for _, c := range cases {
		errs := c.shard.Validate(p, now)
		if len(errs) != len(c.want) {
			t.Errorf("%s: %v, want %d errors", c.name, errs, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(errs[i].Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, errs[i], w)
			}
		}
	}
}

func TestShardSchedule(t *testing.T) {
	p := DefaultPlan()
	p.Steps = []int{1, 2, 5}
	p.Ramp = 10 * time.Second
	cases := []struct {
		shard  Shard
		calls  [][]int // per step
		starts [][]time.Duration
	}{
		{Shard{Index: 0, Count: 1}, [][]int{{0}, {1, 2}, {3, 4, 5, 6, 7}},
			[][]time.Duration{{0}, {0, 5 * time.Second}, {0, 2 * time.Second, 4 * time.Second, 6 * time.Second, 8 * time.Second}}},
		{Shard{Index: 0, Count: 2}, [][]int{{0}, {1}, {3, 5, 7}},
			[][]time.Duration{{0}, {0}, {0, 4 * time.Second, 8 * time.Second}}},
		{Shard{Index: 1, Count: 2}, [][]int{nil, {2}, {4, 6}},
			[][]time.Duration{nil, {5 * time.Second}, {2 * time.Second, 6 * time.Second}}},
		{Shard{Index: 2, Count: 3}, [][]int{nil, nil, {5}},
			[][]time.Duration{nil, nil, {4 * time.Second}}},
	}
	whole := Schedule(p)
	for _, c := range cases {
		got := c.shard.Schedule(p)
		if len(got) != len(p.Steps) {
			t.Fatalf("shard %s: %d steps", c.shard, len(got))
		}
		for s, g := range got {
			if !slices.Equal(g.Calls, c.calls[s]) || !slices.Equal(g.Starts, c.starts[s]) || g.N != len(c.calls[s]) {
				t.Errorf("shard %s step %d: calls %v starts %v N %d; want %v %v", c.shard, s, g.Calls, g.Starts, g.N, c.calls[s], c.starts[s])
			}
			if g.Index != s || g.FirstCall != whole[s].FirstCall || g.Measure != whole[s].Measure || g.End != whole[s].End {
				t.Errorf("shard %s step %d: index %d first %d window %v end %v, want the whole plan's", c.shard, s, g.Index, g.FirstCall, g.Measure, g.End)
			}
		}
	}
}

// Every shard count partitions every step's calls: each call once, in exactly one shard.
func TestShardsPartitionThePlan(t *testing.T) {
	p := DefaultPlan()
	p.Steps = []int{1, 3, 8, 13}
	for count := 1; count <= 5; count++ {
		seen := map[int]int{}
		for i := range count {
			for _, s := range (Shard{Index: i, Count: count}).Schedule(p) {
				for _, c := range s.Calls {
					seen[c]++
				}
			}
		}
		if len(seen) != 25 {
			t.Errorf("%d shards place %d distinct calls, want 25", count, len(seen))
		}
		for c, n := range seen {
			if n != 1 || c < 0 || c >= 25 {
				t.Errorf("%d shards: call %d placed %d times", count, c, n)
			}
		}
	}
}

func TestStepAt(t *testing.T) {
	p := Plan{Ramp: time.Second, Warmup: 2 * time.Second, Duration: 7 * time.Second}
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for s, want := range []time.Time{start, start.Add(10 * time.Second), start.Add(20 * time.Second)} {
		if got := p.StepAt(start, s); !got.Equal(want) {
			t.Errorf("StepAt(%d) = %v, want %v", s, got, want)
		}
	}
	if p.StepLen() != 10*time.Second || p.Total() != 0 {
		t.Errorf("step len %v, total %v of no steps", p.StepLen(), p.Total())
	}
}

// Two shards' controllers in one process: every step begins at its pinned time on both, each call
// of the plan is placed once with its own number, and a step starts on time even while the step
// before is still hanging up.
func TestPinnedControllers(t *testing.T) {
	p := DefaultPlan()
	p.Steps = []int{1, 3}
	p.Ramp, p.Warmup, p.Duration = 40*time.Millisecond, 0, 160*time.Millisecond
	start := time.Now().Add(150 * time.Millisecond)
	linger := 120 * time.Millisecond // each call hangs up this long after its Until
	var mu sync.Mutex
	var placed []callers.Plan
	stepAt := map[[2]int]time.Time{}
	up := map[int]int{} // calls under way, by step
	overlapped := false // step 2 began while a call of step 1 was still up
	call := func(ctx context.Context, plan callers.Plan, sink callers.Sink) callers.CallResult {
		mu.Lock()
		placed = append(placed, plan)
		up[plan.Step]++
		mu.Unlock()
		sink.Turn(callers.Turn{Call: plan.Call, Step: plan.Step, Wall: time.Now()})
		select {
		case <-time.After(time.Until(plan.Until.Add(linger))):
		case <-ctx.Done():
		}
		mu.Lock()
		up[plan.Step]--
		mu.Unlock()
		r := callers.CallResult{Call: plan.Call, Step: plan.Step, Connected: true}
		sink.Call(r)
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	results := make([][]StepResult, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		sh := Shard{Index: i, Count: 2, StartAt: start}
		c := &Controller{Plan: p, Steps: sh.Schedule(p), StartAt: start, Call: call, Hooks: Hooks{
			StepStart: func(s StepSchedule, at time.Time) {
				mu.Lock()
				stepAt[[2]int{i, s.Index}] = at
				overlapped = overlapped || (s.Index == 1 && up[0] > 0)
				mu.Unlock()
			},
		}}
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = c.Run(ctx) }()
	}
	wg.Wait()
	for i := range 2 {
		for s := range 2 {
			if at, want := stepAt[[2]int{i, s}], p.StepAt(start, s); !at.Equal(want) {
				t.Errorf("shard %d step %d began at %v, want %v", i, s, at.Sub(start), want.Sub(start))
			}
		}
		if len(results[i]) != 2 {
			t.Fatalf("shard %d: %d steps", i, len(results[i]))
		}
	}
	if n := len(results[1][0].Calls); n != 0 {
		t.Errorf("shard 1 placed %d calls in the one-call step", n)
	}
	var calls []int
	for _, pl := range placed {
		calls = append(calls, pl.Call)
		if want := p.StepAt(start, pl.Step).Add(p.Ramp + p.Warmup + p.Duration); !pl.Until.Equal(want) {
			t.Errorf("call %d: until %v, want %v", pl.Call, pl.Until.Sub(start), want.Sub(start))
		}
	}
	slices.Sort(calls)
	if !slices.Equal(calls, []int{0, 1, 2, 3}) {
		t.Errorf("calls placed %v, want 0..3 once each", calls)
	}
	if len(results[0][0].Calls) != 1 || len(results[0][1].Calls)+len(results[1][1].Calls) != 3 {
		t.Errorf("step results hold %d and %d+%d calls", len(results[0][0].Calls), len(results[0][1].Calls), len(results[1][1].Calls))
	}
	if !overlapped {
		t.Error("step 2 waited for step 1 to hang up instead of starting at its pinned time")
	}
}

func TestPinnedControllerCancelBeforeStart(t *testing.T) {
	p := DefaultPlan()
	p.Steps = []int{1, 2}
	var placed atomic.Int64
	c := &Controller{Plan: p, StartAt: time.Now().Add(time.Hour), Call: func(context.Context, callers.Plan, callers.Sink) callers.CallResult {
		placed.Add(1)
		return callers.CallResult{}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	begin := time.Now()
	if res := c.Run(ctx); len(res) != 0 || placed.Load() != 0 || time.Since(begin) > 2*time.Second {
		t.Errorf("%d steps, %d calls after %v", len(res), placed.Load(), time.Since(begin))
	}
}
