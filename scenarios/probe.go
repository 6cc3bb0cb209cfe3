package scenarios

// The pause-probe: each turn says one phrase in two halves with an exact pause between them, and
// the agent heard one turn or two. Deciding needs nothing but the turn records, so everything
// after the calls is a pure function of them.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech/pool"
)

// Named errors; functions wrap them with context, so test with errors.Is.
var (
	// ErrSweep means an --agent-sweep value that does not parse.
	ErrSweep = errors.New("scenarios: bad agent sweep")
	// ErrScenario means a scenario plan (probe, barge-in, idle) that cannot run.
	ErrScenario = errors.New("scenarios: bad scenario plan")
)

// How a pause-probe turn was decided (report.PauseResult.DecidedBy).
const (
	DecidedByTranscripts = "server_transcripts"
	DecidedByReplies     = "replies"
)

// ProbePlan is a pause-probe: Conversations calls per pause, each saying Turns phrases in halves
// with the pause between them.
type ProbePlan struct {
	Pauses        []time.Duration
	Conversations int
	Turns         int // turns per call (1: a call per turn, so no turn's finals can mix with the next's)
	Parallel      int // calls at once (0: Conversations)
	Seed          uint64
	// Step tells a sweep's settings apart in turns.jsonl; calls are numbered alike in every step,
	// so each setting hears the same phrases (a call's phrases follow from the seed and its index).
	Step     int
	Gap      time.Duration // pause between a reply and the next phrase, with Turns > 1
	Timeouts callers.Timeouts
}

// DefaultProbePlan is the seed's probe: 300 to 900 ms, 4 conversations each.
func DefaultProbePlan() ProbePlan {
	return ProbePlan{
		Pauses:        []time.Duration{300 * time.Millisecond, 500 * time.Millisecond, 700 * time.Millisecond, 900 * time.Millisecond},
		Conversations: 4, Turns: 1, Gap: time.Second,
		Timeouts: callers.Timeouts{Connect: 10 * time.Second, Answer: 8 * time.Second, Reply: 15 * time.Second},
	}
}

// Validate reports every problem at once.
func (p ProbePlan) Validate() []error {
	var errs []error
	if len(p.Pauses) == 0 {
		errs = append(errs, fmt.Errorf("%w: pauses: at least one is needed", ErrScenario))
	}
	seen := map[time.Duration]bool{}
	for _, d := range p.Pauses {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%w: pause %v: must be positive", ErrScenario, d))
		}
		if seen[d] {
			errs = append(errs, fmt.Errorf("%w: pause %v: given twice", ErrScenario, d))
		}
		seen[d] = true
	}
	if p.Conversations <= 0 || p.Turns <= 0 || p.Parallel < 0 || p.Gap < 0 {
		errs = append(errs, fmt.Errorf("%w: conversations %d, turns %d, parallel %d, gap %v: want positive counts",
			ErrScenario, p.Conversations, p.Turns, p.Parallel, p.Gap))
	}
	return append(errs, timeoutErrs(p.Timeouts)...)
}

func timeoutErrs(t callers.Timeouts) []error {
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"connect", t.Connect}, {"answer", t.Answer}, {"reply", t.Reply}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%w: %s timeout %v: must be positive", ErrScenario, d.name, d.v))
		}
	}
	return errs
}

// ProbeCalls is the probe's calls, pause by pause (shortest first), Conversations each, numbered
// from 0 within the plan's step (call i probes pause i / Conversations).
func ProbeCalls(p ProbePlan) []callers.Plan {
	pauses := slices.Sorted(slices.Values(p.Pauses))
	out := make([]callers.Plan, 0, len(pauses)*p.Conversations)
	for _, d := range pauses {
		for range p.Conversations {
			out = append(out, callers.Plan{Call: len(out), Step: p.Step, Seed: p.Seed, Split: d, MaxTurns: p.Turns,
				PauseMin: p.Gap, PauseMax: p.Gap, Timeouts: p.Timeouts})
		}
	}
	return out
}

// ProbeSpec is one pause-probe against one agent setting.
type ProbeSpec struct {
	Setting *AgentSetting // the bundled agent's setting when swept; nil otherwise
	Dialer  callers.Dialer
	Pool    *pool.Pool
	// STT hears the agent's replies, as in a ramp, so each turn is judged on both checks;
	// nil leaves Heard empty and every turn fails the reply check (wrong_reply).
	STT  listen.Ears
	Plan ProbePlan
	// Hooks see each pause as a step (ProbeStep says which) and every record as it finishes
	// (turns.jsonl, progress, the live view); any may be nil.
	Hooks Hooks
}

// ProbeStep is the step of a probe's pause k in a plan with n pauses: the plan's Step (a sweep's
// setting) times n, plus k, with the pause's calls. A live view reads the setting and the pause
// back from Index.
func ProbeStep(p ProbePlan, k int) StepSchedule {
	n := len(p.Pauses)
	return StepSchedule{Index: p.Step*n + k, N: p.Conversations, FirstCall: k * p.Conversations}
}

// RunProbe places the probe's calls, at most Parallel at once, and sums them up per pause. On
// ctx's end the calls hang up and what finished is summed.
func RunProbe(ctx context.Context, spec ProbeSpec) (report.ProbeSetting, []callers.Turn) {
	plans := ProbeCalls(spec.Plan)
	k := &collector{next: spec.Hooks.Sink}
	parallel := spec.Plan.Parallel
	if parallel <= 0 {
		parallel = spec.Plan.Conversations
	}
	steps := newProbeSteps(spec.Plan, spec.Hooks, k)
	forEach(ctx, len(plans), parallel, func(i int) {
		steps.started(i)
		callers.Run(ctx, spec.Dialer, spec.Pool, plans[i], k, spec.STT)
		steps.ended(i)
	})
	steps.stop()
	k.mu.Lock()
	turns := slices.Clone(k.turns)
	k.mu.Unlock()
	s := SummarizeProbe(spec.Plan.Pauses, turns)
	s.Step, s.Calls = spec.Plan.Step, len(plans)
	if a := spec.Setting; a != nil {
		ms, gh := callers.D(a.MinSilence), callers.D(a.GateHold)
		s.Name, s.MinSilence, s.GateHold = a.Name(), &ms, &gh
	}
	return s, turns
}

// probeSteps reports each pause as a step: started with its first call, ended with its last (or
// at the end, stopped, when ctx ended before all its calls ran). Pauses overlap when Parallel
// exceeds Conversations.
type probeSteps struct {
	plan  ProbePlan
	hooks Hooks
	k     *collector
	mu    sync.Mutex
	start []time.Time
	left  []int
}

func newProbeSteps(p ProbePlan, h Hooks, k *collector) *probeSteps {
	s := &probeSteps{plan: p, hooks: h, k: k, start: make([]time.Time, len(p.Pauses)), left: make([]int, len(p.Pauses))}
	for i := range s.left {
		s.left[i] = p.Conversations
	}
	return s
}

func (s *probeSteps) started(call int) {
	p := call / s.plan.Conversations
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.start[p].IsZero() {
		s.start[p] = time.Now()
		if s.hooks.StepStart != nil {
			s.hooks.StepStart(ProbeStep(s.plan, p), s.start[p])
		}
	}
}

func (s *probeSteps) ended(call int) {
	p := call / s.plan.Conversations
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left[p]--; s.left[p] == 0 {
		s.end(p, false)
	}
}

// stop ends the pauses whose calls did not all run.
func (s *probeSteps) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.left {
		if !s.start[p].IsZero() && s.left[p] > 0 {
			s.left[p] = 0
			s.end(p, true)
		}
	}
}

// end reports pause p's step with its records; s.mu is held.
func (s *probeSteps) end(p int, stopped bool) {
	if s.hooks.StepEnd == nil {
		return
	}
	sched := ProbeStep(s.plan, p)
	first, last := sched.FirstCall, sched.FirstCall+sched.N
	r := StepResult{Schedule: sched, Start: s.start[p], Window: [2]time.Time{s.start[p], time.Now()}, Stopped: stopped}
	s.k.mu.Lock()
	for _, t := range s.k.turns {
		if t.Call >= first && t.Call < last {
			r.Turns = append(r.Turns, t)
		}
	}
	for _, c := range s.k.calls {
		if c.Call >= first && c.Call < last {
			r.Calls = append(r.Calls, c)
		}
	}
	s.k.mu.Unlock()
	s.hooks.StepEnd(r)
}

// forEach runs fn(0..n-1), at most parallel at once, until ctx ends.
func forEach(ctx context.Context, n, parallel int, fn func(i int)) {
	sem := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// TurnsHeard is how many turns the agent made of one probe turn: its final transcripts (empty
// ones too: the agent ended a turn), or without a transcript channel its replies; 0 when
// nothing says.
func TurnsHeard(t callers.Turn) (n int, decidedBy string) {
	if t.TranscriptChannel {
		return len(t.ServerTranscripts) + len(t.LateTranscripts), DecidedByTranscripts
	}
	return t.Replies, DecidedByReplies
}

// SplitVerdict words k splits of K turns as the seed's table does.
func SplitVerdict(k, K int) string {
	switch {
	case K == 0:
		return "-"
	case k == 0:
		return "one turn"
	case k == K:
		return "split"
	}
	return fmt.Sprintf("%d of %d split", k, K)
}

// SummarizeProbe sums a setting's probe turns per pause (each turn's Pause says which).
func SummarizeProbe(pauses []time.Duration, turns []callers.Turn) report.ProbeSetting {
	var s report.ProbeSetting
	var all []float64
	for _, d := range slices.Sorted(slices.Values(pauses)) {
		pr := report.PauseResult{Pause: callers.D(d)}
		var waits []float64
		for _, t := range turns {
			if t.Pause == nil || t.Pause.Duration().Round(time.Millisecond) != d.Round(time.Millisecond) {
				continue
			}
			n, by := TurnsHeard(t)
			pr.DecidedBy = by
			if n == 0 {
				pr.Undecided++
				continue
			}
			pr.Turns++
			if n > 1 {
				pr.Split++
			}
			if v, ok := checks.MetricSpeechEndToTranscript.OfTurn(t); ok {
				waits = append(waits, float64(v))
			}
		}
		pr.Verdict, pr.Wait = SplitVerdict(pr.Split, pr.Turns), checks.Summarize(waits)
		if pr.Split > 0 && s.ShortestSplit == nil {
			p := pr.Pause
			s.ShortestSplit = &p
		}
		all = append(all, waits...)
		s.Pauses = append(s.Pauses, pr)
	}
	s.Wait = checks.Summarize(all)
	return s
}

// AgentSetting is one end-of-turn setting of the bundled agent.
type AgentSetting struct {
	MinSilence time.Duration
	GateHold   time.Duration
}

// Name is the seed's "1100/400" (ms).
func (a AgentSetting) Name() string {
	return fmt.Sprintf("%d/%d", a.MinSilence.Milliseconds(), a.GateHold.Milliseconds())
}

// ParseSweep reads an --agent-sweep value: "min-silence=1300ms,1100ms;gate-hold=1000ms,400ms"
// (every combination, min silence outermost; a key left out keeps base's value), or a list of
// pairs "1300/1000,1100/400" (ms, or durations "1.3s/1s").
func ParseSweep(s string, base AgentSetting) ([]AgentSetting, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%w: empty", ErrSweep)
	}
	if !strings.Contains(s, "=") {
		return parsePairs(s)
	}
	ms, gh := []time.Duration{base.MinSilence}, []time.Duration{base.GateHold}
	for _, part := range strings.Split(s, ";") {
		key, vals, ok := strings.Cut(strings.TrimSpace(part), "=")
		ds, err := parseDurations(vals)
		switch {
		case !ok || err != nil:
			return nil, fmt.Errorf("%w: %q: want key=d1,d2 (%v)", ErrSweep, part, err)
		case key == "min-silence":
			ms = ds
		case key == "gate-hold":
			gh = ds
		default:
			return nil, fmt.Errorf("%w: %q: keys are min-silence and gate-hold", ErrSweep, key)
		}
	}
	var out []AgentSetting
	for _, m := range ms {
		for _, g := range gh {
			out = append(out, AgentSetting{MinSilence: m, GateHold: g})
		}
	}
	return out, nil
}

func parsePairs(s string) ([]AgentSetting, error) {
	var out []AgentSetting
	for _, p := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(p), "/")
		ds, err := parseDurations(a + "," + b)
		if !ok || err != nil {
			return nil, fmt.Errorf("%w: %q: want min-silence/gate-hold (%v)", ErrSweep, p, err)
		}
		out = append(out, AgentSetting{MinSilence: ds[0], GateHold: ds[1]})
	}
	return out, nil
}

// parseDurations reads "300ms,500ms" or bare milliseconds "300,500"; it rejects negatives.
func parseDurations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		d, err := time.ParseDuration(f)
		if n, nerr := strconv.Atoi(f); nerr == nil {
			d, err = time.Duration(n)*time.Millisecond, nil
		}
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q is not a duration", f)
		}
		out = append(out, d)
	}
	return out, nil
}

// ParsePauses reads --pauses: "300ms,500ms" or "300,500" (ms), sorted.
func ParsePauses(s string) ([]time.Duration, error) {
	ds, err := parseDurations(s)
	if err != nil {
		return nil, fmt.Errorf("%w: pauses %q: %w", ErrScenario, s, err)
	}
	slices.SortFunc(ds, cmp.Compare)
	return ds, nil
}

// TracesFileName is where scripted calls' traces go, beside turns.jsonl.
const TracesFileName = "traces.jsonl"

// Recorder keeps a scenario run's records on disk as they finish: turns and calls in turns.jsonl
// (through a bus, so a slow disk never slows a caller) and scripted calls' traces in
// traces.jsonl.
type Recorder struct {
	dir    string
	jl     *report.JSONL
	jo     *jsonlOutput
	bus    *Bus
	mu     sync.Mutex
	traces *os.File
	err    error
}

// NewRecorder creates dir (which must not hold a run) and its turns.jsonl; outs see every event.
func NewRecorder(dir string, outs ...Output) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	jl, err := report.CreateJSONL(filepath.Join(dir, report.TurnsFileName))
	if err != nil {
		return nil, fmt.Errorf("turns file: %w", err)
	}
	jo := &jsonlOutput{w: jl}
	return &Recorder{dir: dir, jl: jl, jo: jo, bus: NewBus(append([]Output{jo}, outs...)...)}, nil
}

// Sink takes turn and call records as they finish.
func (r *Recorder) Sink() callers.Sink { return r.bus }

// Hooks take a probe's steps, and its records as Sink does.
func (r *Recorder) Hooks() Hooks { return r.bus.Hooks() }

// Trace files a scripted call: its trace, then its turns and call record.
func (r *Recorder) Trace(t callers.Trace) {
	b, err := json.Marshal(t)
	r.mu.Lock()
	if err == nil && r.traces == nil {
		r.traces, err = os.OpenFile(filepath.Join(r.dir, TracesFileName), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	}
	if err == nil {
		_, err = r.traces.Write(append(b, '\n'))
	}
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("traces file: %w", err)
	}
	r.mu.Unlock()
	for _, turn := range t.Turns() {
		r.bus.Turn(turn)
	}
	r.bus.Call(t.Result())
}

// Close delivers what is queued and closes the files.
func (r *Recorder) Close() error {
	r.bus.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	err := errors.Join(r.err, r.jo.err, r.jl.Close())
	if r.traces != nil {
		err = errors.Join(err, r.traces.Close())
	}
	return err
}

// WriteReport writes dir/report.json for a scenario run: the run's config and machine (no ramp
// steps) and the scenario sections; and dir/report.html, whose tables are those sections.
func WriteReport(dir string, cfg report.RunConfig, sec report.Scenarios, started time.Time) (*report.ScenarioReport, error) {
	r := report.Build(cfg, nil, checks.DefaultThresholds())
	r.Started, r.Ended = started, time.Now()
	r.Capacity.Note = "not a ramp: see the scenario sections"
	sr := &report.ScenarioReport{Report: r, Scenarios: sec}
	if err := sr.Write(dir); err != nil {
		return sr, fmt.Errorf("write report: %w", err)
	}
	// No steps, so no distributions: the page needs none of the turn records.
	if err := report.WriteHTML(dir, r, []callers.Turn{}, sec.Sections()...); err != nil {
		return sr, fmt.Errorf("write html report: %w", err)
	}
	return sr, nil
}
