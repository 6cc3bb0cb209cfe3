package scenarios

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/stt"
)

// Spec is one run: where to call, the plan, how to judge, where to write.
type Spec struct {
	Target     string // shown in the report
	Dialer     callers.Dialer
	Plan       Plan
	Thresholds checks.Thresholds
	Pool       *pool.Pool
	STT        *stt.Model
	Out        string   // results folder (created; must not hold a previous run)
	Scrape     string   // the agent's /metrics; "" for none
	Outputs    []Output // progress lines, the live view, ...
	Metrics    Output   // live figures for Prometheus (--metrics-listen), beside whatever Outputs shows; nil for none
	Shard      *Shard   // this generator's share of a sharded run, and the common start; nil runs the whole plan now
	Extra      map[string]string
	EndStep    <-chan struct{}
}

// Execute runs the plan, writing turns.jsonl as turns finish and report.json at the end. On
// ctx's end it stops ramping, hangs up and still writes the report from what finished.
func Execute(ctx context.Context, spec Spec) (*report.Report, error) {
	if err := os.MkdirAll(spec.Out, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	jl, err := report.CreateJSONL(filepath.Join(spec.Out, report.TurnsFileName))
	if err != nil {
		return nil, fmt.Errorf("turns file: %w", err)
	}
	jo := &jsonlOutput{w: jl}
	outs := append([]Output{jo}, spec.Outputs...)
	if spec.Metrics != nil {
		outs = append(outs, spec.Metrics)
	}
	bus := NewBus(outs...)
	sc := newScraper(ctx, spec.Scrape)
	hooks := bus.Hooks()
	start := hooks.StepStart
	hooks.StepStart = func(s StepSchedule, at time.Time) {
		sc.step(s, at)
		start(s, at)
	}
	ctl := &Controller{Plan: spec.Plan, Hooks: hooks, Cores: runtime.NumCPU(), EndStep: spec.EndStep,
		Call: func(ctx context.Context, plan callers.Plan, sink callers.Sink) callers.CallResult {
			return callers.Run(ctx, spec.Dialer, spec.Pool, plan, sink, spec.STT)
		}}
	if sh := spec.Shard; sh != nil {
		ctl.Steps, ctl.StartAt = sh.Schedule(spec.Plan), sh.StartAt
	}
	begun := time.Now()
	results := ctl.Run(ctx)
	sc.wait()
	bus.Close()
	werr := errors.Join(jo.err, jl.Close())
	r := report.Build(spec.runConfig(), sc.stepData(results), spec.Thresholds)
	if r.Started.IsZero() {
		r.Started = begun
	}
	r.Ended = time.Now()
	r.TurnsFile = report.TurnsFileName
	if err := r.Write(spec.Out); err != nil {
		return r, fmt.Errorf("write report: %w", err)
	}
	if err := report.WriteHTML(spec.Out, r, nil); err != nil {
		return r, fmt.Errorf("write html report: %w", err)
	}
	if werr != nil {
		return r, fmt.Errorf("turns file: %w", werr)
	}
	return r, nil
}

func (spec Spec) runConfig() report.RunConfig {
	p := spec.Plan
	extra := map[string]string{"voice": spec.Pool.Source(), "pool_size": fmt.Sprint(spec.Pool.Len())}
	for k, v := range spec.Extra {
		extra[k] = v
	}
	if sh := spec.Shard; sh != nil { // merge checks the shards are one run by these
		extra[report.ExtraShard] = sh.String()
		if !sh.StartAt.IsZero() {
			extra[report.ExtraStartAt] = sh.StartAt.UTC().Format(time.RFC3339Nano)
		}
	}
	return report.RunConfig{Target: spec.Target, Transport: spec.Dialer.Name(), Steps: p.Steps,
		StepDuration: callers.D(p.Duration), Ramp: callers.D(p.Ramp), Warmup: callers.D(p.Warmup),
		Seed: p.Seed, Thresholds: spec.Thresholds, Extra: extra}
}

// jsonlOutput appends every finished turn and call to turns.jsonl.
type jsonlOutput struct {
	w   *report.JSONL
	err error
}

func (o *jsonlOutput) Handle(e Event) {
	var err error
	switch e.Kind {
	case EventTurn:
		err = o.w.WriteTurn(e.Turn)
	case EventCall:
		err = o.w.WriteCall(e.Call)
	}
	if err != nil && o.err == nil {
		o.err = err
	}
}

// scraper reads the agent's process metrics at each step's measured window.
type scraper struct {
	ctx  context.Context
	url  string
	idle *Sample
	mu   sync.Mutex
	at   map[int][2]*Sample
	wg   sync.WaitGroup
}

func newScraper(ctx context.Context, url string) *scraper {
	sc := &scraper{ctx: ctx, url: url, at: map[int][2]*Sample{}}
	if url != "" {
		if s, err := Scrape(ctx, url); err == nil {
			sc.idle = &s
		}
	}
	return sc
}

func (sc *scraper) step(s StepSchedule, at time.Time) {
	if sc.idle == nil {
		return
	}
	sc.wg.Add(1)
	go func() {
		defer sc.wg.Done()
		var got [2]*Sample
		for i, off := range s.Measure {
			select {
			case <-time.After(time.Until(at.Add(off))):
			case <-sc.ctx.Done():
				return
			}
			if smp, err := Scrape(sc.ctx, sc.url); err == nil {
				got[i] = &smp
			}
		}
		sc.mu.Lock()
		sc.at[s.Index] = got
		sc.mu.Unlock()
	}()
}

func (sc *scraper) wait() { sc.wg.Wait() }

func (sc *scraper) stepData(results []StepResult) []report.StepData {
	out := make([]report.StepData, 0, len(results))
	for _, r := range results {
		d := report.StepData{N: r.Schedule.N, Turns: r.Turns, Calls: r.Calls, GeneratorCPU: r.GeneratorCPU, MachineSteal: r.MachineSteal, Window: r.Window}
		d.Turns = inWindow(r.Turns, r.Window)
		sc.mu.Lock()
		got, ok := sc.at[r.Schedule.Index]
		sc.mu.Unlock()
		if ok && got[0] != nil && got[1] != nil {
			cpu, rss := AgentCost(*sc.idle, *got[0], *got[1], r.Schedule.N)
			d.AgentCPUMilli, d.AgentRSSMiBPerCall = &cpu, &rss
		}
		out = append(out, d)
	}
	return out
}

// inWindow keeps the turns that began speaking inside the measured window; a step cut short
// keeps every turn it has, since its window never came.
func inWindow(turns []callers.Turn, w [2]time.Time) []callers.Turn {
	var out []callers.Turn
	for _, t := range turns {
		if !t.Wall.Before(w[0]) && t.Wall.Before(w[1]) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return turns
	}
	return out
}
