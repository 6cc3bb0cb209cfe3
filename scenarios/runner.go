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
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech/pool"
)

// Spec is one run: where to call, the plan, how to judge, where to write.
type Spec struct {
	Target     string // shown in the report
	Dialer     callers.Dialer
	Plan       Plan
	Thresholds checks.Thresholds
	Pool       *pool.Pool
	STT        listen.Ears
	Out        string   // results folder (created; must not hold a previous run)
	Scrape     string   // the agent's /metrics; "" for none
	Outputs    []Output // progress lines, the live view, ...
	Metrics    Output   // live figures for Prometheus (--metrics-listen), beside whatever Outputs shows; nil for none
	Shard      *Shard   // this generator's share of a sharded run, and the common start; nil runs the whole plan now
	Extra      map[string]string
	EndStep    <-chan struct{}

	call        RunCall                                  // tests: a fake call instead of callers.Run
	openRecords func(path string) (*report.JSONL, error) // tests: a failing disk instead of report.CreateJSONL
}

// Execute runs the plan, writing turns.jsonl as turns finish (after a run line, and a line at
// each step's start and end, from which `callfleet report` can rebuild the report of a run that
// died) and report.json at the end. On ctx's end it stops ramping, hangs up and still writes the
// report from what finished. A record it cannot write (a full disk) stops the run at once the same
// way: the report is written from what was measured, marked stopped by the error, and the error
// (wrapping report.ErrWrite) is returned with it.
func Execute(ctx context.Context, spec Spec) (*report.Report, error) {
	if err := os.MkdirAll(spec.Out, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	open := spec.openRecords
	if open == nil {
		open = report.CreateJSONL
	}
	turnsPath := filepath.Join(spec.Out, report.TurnsFileName)
	jl, err := open(turnsPath)
	if err != nil {
		return nil, fmt.Errorf("turns file: %w", err)
	}
	cfg, machine, begun := spec.runConfig(), report.ThisMachine(), time.Now()
	if err := jl.WriteRun(report.RunLine{Config: cfg, Machine: machine, Started: begun}); err != nil {
		jl.Close()
		return nil, fmt.Errorf("turns file %s: %w", turnsPath, err)
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	jo := &jsonlOutput{w: jl, stop: stop}
	outs := append([]Output{jo}, spec.Outputs...)
	if spec.Metrics != nil {
		outs = append(outs, spec.Metrics)
	}
	bus := NewBus(outs...)
	sc := newScraper(ctx, spec.Scrape, jo.agent)
	hooks := bus.Hooks()
	start := hooks.StepStart
	judge := newJudging(spec.STT)
	hooks.StepStart = func(s StepSchedule, at time.Time) {
		s.Forecast = judge.start(s.N, at)
		sc.step(s, at)
		start(s, at)
	}
	end := hooks.StepEnd
	hooks.StepEnd = func(r StepResult) {
		judge.end(r.Schedule.N, time.Now())
		end(r)
	}
	call := spec.call
	if call == nil {
		call = func(ctx context.Context, plan callers.Plan, sink callers.Sink) callers.CallResult {
			return callers.Run(ctx, spec.Dialer, spec.Pool, plan, sink, spec.STT)
		}
	}
	ctl := &Controller{Plan: spec.Plan, Hooks: hooks, Cores: runtime.NumCPU(), EndStep: spec.EndStep, Call: call}
	if sh := spec.Shard; sh != nil {
		ctl.Steps, ctl.StartAt = sh.Schedule(spec.Plan), sh.StartAt
	}
	results := ctl.Run(ctx)
	sc.wait()
	bus.Close()
	r := report.Build(cfg, sc.stepData(results), spec.Thresholds)
	r.Machine = machine
	if r.Started.IsZero() {
		r.Started = begun
	}
	r.Ended = time.Now()
	r.TurnsFile = report.TurnsFileName
	werr := jl.Err() // the first record lost, which stopped the run
	switch {
	case werr != nil:
		r.Stopped = &report.Stop{Reason: report.StopError, Error: werr.Error()}
	case ctx.Err() != nil:
		r.Stopped = &report.Stop{Reason: report.StopInterrupted}
	}
	var errs []error
	if werr != nil {
		errs = append(errs, fmt.Errorf("turns file %s: %w: the run stopped at the first record it could not write", turnsPath, werr))
	} else if err := jl.WriteRunEnd(report.RunEndLine{Ended: r.Ended, Stopped: r.Stopped}); err != nil {
		errs = append(errs, fmt.Errorf("turns file %s: %w", turnsPath, err))
	}
	if err := jl.Close(); err != nil {
		errs = append(errs, fmt.Errorf("turns file: %w", err))
	}
	if err := r.Write(spec.Out); err != nil {
		errs = append(errs, fmt.Errorf("write report: %w", err))
	} else if err := report.WriteHTML(spec.Out, r, nil); err != nil {
		errs = append(errs, fmt.Errorf("write html report: %w", err))
	}
	return r, errors.Join(errs...)
}

func (spec Spec) runConfig() report.RunConfig {
	p := spec.Plan
	extra := map[string]string{}
	if spec.Pool != nil {
		extra["voice"], extra["pool_size"] = spec.Pool.Source(), fmt.Sprint(spec.Pool.Len())
	}
	for k, v := range spec.Extra {
		extra[k] = v
	}
	if sh := spec.Shard; sh != nil { // merge checks the shards are one run by these
		extra[report.ExtraShard] = sh.String()
		if !sh.StartAt.IsZero() {
			extra[report.ExtraStartAt] = sh.StartAt.UTC().Format(time.RFC3339Nano)
		}
	}
	transport := ""
	if spec.Dialer != nil {
		transport = spec.Dialer.Name()
	}
	return report.RunConfig{Target: spec.Target, Transport: transport, Steps: p.Steps,
		StepDuration: callers.D(p.Duration), Ramp: callers.D(p.Ramp), Warmup: callers.D(p.Warmup),
		Seed: p.Seed, Thresholds: spec.Thresholds, Extra: extra}
}

// jsonlOutput appends every finished turn and call to turns.jsonl, with a line at each step's
// start and end; the first write that fails stops the run (when stop is set) and is kept in err.
type jsonlOutput struct {
	w    *report.JSONL
	stop context.CancelCauseFunc // nil: nothing to stop (a probe's Recorder reads err at Close)
	mu   sync.Mutex
	err  error
}

func (o *jsonlOutput) Handle(e Event) {
	var err error
	switch e.Kind {
	case EventTurn:
		err = o.w.WriteTurn(e.Turn)
	case EventCall:
		err = o.w.WriteCall(e.Call)
	case EventStepStart:
		s := e.Step
		err = o.w.WriteStep(report.StepLine{Step: s.Index, N: s.N, Start: e.At,
			Window: [2]time.Time{e.At.Add(s.Measure[0]), e.At.Add(s.Measure[1])}, Forecast: s.Forecast})
	case EventStepEnd:
		if r := e.Result; r != nil {
			err = o.w.WriteStepEnd(report.StepEndLine{Step: r.Schedule.Index, GeneratorCPU: r.GeneratorCPU,
				MachineSteal: r.MachineSteal, Stopped: r.Stopped})
		}
	}
	o.check(err)
}

// agent records a step's agent costs; the scraper calls it from its own goroutine (JSONL is safe
// for concurrent use).
func (o *jsonlOutput) agent(step int, cpu, rss float64) {
	o.check(o.w.WriteAgent(report.AgentLine{Step: step, AgentCPUMilli: cpu, AgentRSSMiBPerCall: rss}))
}

// check stops the run on a failed write: records past it would be lost, so the run is over.
func (o *jsonlOutput) check(err error) {
	if err == nil {
		return
	}
	o.mu.Lock()
	if o.err == nil {
		o.err = err
	}
	o.mu.Unlock()
	if o.stop != nil {
		o.stop(err) // a second call changes nothing: the cause is the first error
	}
}

// scraper reads the agent's process metrics at each step's measured window.
type scraper struct {
	ctx    context.Context
	url    string
	idle   *Sample
	mu     sync.Mutex
	at     map[int][2]*Sample
	wg     sync.WaitGroup
	onCost func(step int, cpuMilli, rssMiB float64) // a step's costs, as soon as its scrapes are in
}

func newScraper(ctx context.Context, url string, onCost func(step int, cpuMilli, rssMiB float64)) *scraper {
	sc := &scraper{ctx: ctx, url: url, at: map[int][2]*Sample{}, onCost: onCost}
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
		if got[0] != nil && got[1] != nil && sc.onCost != nil {
			cpu, rss := AgentCost(*sc.idle, *got[0], *got[1], s.N)
			sc.onCost(s.Index, cpu, rss)
		}
	}()
}

func (sc *scraper) wait() { sc.wg.Wait() }

func (sc *scraper) stepData(results []StepResult) []report.StepData {
	out := make([]report.StepData, 0, len(results))
	for _, r := range results {
		d := report.StepData{N: r.Schedule.N, Turns: r.Turns, Calls: r.Calls, GeneratorCPU: r.GeneratorCPU, MachineSteal: r.MachineSteal, Window: r.Window, Cut: r.Stopped, Forecast: r.Schedule.Forecast}
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
