package report

import (
	"slices"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// Schema names this report format; a change that breaks readers bumps it.
const Schema = "callfleet.report/v2"

// Report is the record of one run: plain data, written as report.json.
type Report struct {
	Schema        string          `json:"schema"`
	Config        RunConfig       `json:"config"`
	Machine       Machine         `json:"machine"`
	Started       time.Time       `json:"started,omitzero"`
	Ended         time.Time       `json:"ended,omitzero"`
	ChecksApplied []string        `json:"checks_applied"` // turn checks applied to at least one turn
	Steps         []Step          `json:"steps"`
	Capacity      checks.Capacity `json:"capacity"`
	TurnsFile     string          `json:"turns_file"` // the per-turn records, relative to report.json
	// Calibration says how well the caller's ears heard this agent at the lowest step; nil in a
	// report written before it was measured.
	Calibration *checks.Calibration `json:"calibration,omitempty"`
	// Stopped says why the run ended before its plan did (its figures are what was recorded up to
	// then); nil when it finished.
	Stopped *Stop `json:"stopped,omitempty"`
	// SkippedLines counts the lines of the turns file(s) a rebuilt or merged report could not read
	// and left out.
	SkippedLines int `json:"skipped_lines,omitempty"`
}

// RunConfig is what the run was told to do.
type RunConfig struct {
	Target       string            `json:"target"`
	Transport    string            `json:"transport"`
	Steps        []int             `json:"steps"` // N of each step
	StepDuration callers.Ms        `json:"step_duration"`
	Ramp         callers.Ms        `json:"ramp"`
	Warmup       callers.Ms        `json:"warmup"`
	Seed         uint64            `json:"seed"`
	Thresholds   checks.Thresholds `json:"thresholds"`
	Extra        map[string]string `json:"extra,omitempty"` // anything else worth keeping: scenario, shard, build
}

// Step is one step's aggregates and verdict.
type Step struct {
	Index        int                       `json:"index"` // 1-based, in run order
	N            int                       `json:"n"`
	Start        time.Time                 `json:"start,omitzero"` // the measured window
	End          time.Time                 `json:"end,omitzero"`
	Calls        int                       `json:"calls"`
	Connected    int                       `json:"connected"`
	Answered     int                       `json:"answered"` // calls with reply audio in at least one turn
	Clean        int                       `json:"clean"`
	Turns        TurnCounts                `json:"turns"`
	Failures     map[string]int            `json:"failures,omitempty"`      // turns not understood by reason: slip, unjudged and cancelled among them
	CallFailures map[string]int            `json:"call_failures,omitempty"` // unclean calls by reason
	Cross        checks.Cross              `json:"cross"`
	Latency      map[string]checks.Summary `json:"latency"` // by checks.Metric name, ms
	Playout      checks.Playout            `json:"playout"`
	// UnderrunsPerMin is per minute of agent audio; nil when there was none.
	UnderrunsPerMin    *float64           `json:"underruns_per_min,omitempty"`
	AgentCPUMilli      *float64           `json:"agent_cpu_milli_per_conv,omitempty"` // thousandths of a core per conversation
	AgentRSSMiBPerCall *float64           `json:"agent_rss_mib_per_call,omitempty"`
	Generator          checks.Generator   `json:"generator"`
	Verdict            checks.StepVerdict `json:"verdict"`
	// JudgingForecast is the runner's word, as the step began, that the callers' ears could not
	// judge its N callers on this machine (from the decode cost of the steps before).
	JudgingForecast string `json:"judging_forecast,omitempty"`
}

// TurnCounts counts a step's turns by outcome, as its verdict does: slips, unjudged and cancelled
// turns are not failures.
type TurnCounts = checks.TurnTally

// StepData is what the controller hands over for one step: the records it counts (those inside
// the measured window), agent resources scraped from /metrics when it has them, and the
// generator's CPU as a fraction of its cores.
type StepData struct {
	N                  int
	Turns              []callers.Turn
	Calls              []callers.CallResult
	AgentCPUMilli      *float64
	AgentRSSMiBPerCall *float64
	GeneratorCPU       float64
	MachineSteal       float64 // share of the machine's CPU the hypervisor took; < 0 unknown
	Window             [2]time.Time
	// Cut says the step ended before its measured window did (stopped by the user or the
	// generator, or the run killed during it): incomplete, never failed.
	Cut bool
	// Forecast is the runner's word, before the step, that the callers' ears could not judge it.
	Forecast string
}

// Build aggregates the steps, judges them with th and finds the capacity. It fills Machine from
// the host it runs on (ThisMachine); Started and Ended span the steps' windows.
func Build(cfg RunConfig, steps []StepData, th checks.Thresholds) *Report {
	inputs := make([]checks.StepInput, len(steps))
	steps = slices.Clone(steps)
	for i, d := range steps {
		steps[i].Turns = checks.UnjudgedWhenBound(d.Turns, d.GeneratorCPU, th) // a saturated caller measures itself
		d = steps[i]
		inputs[i] = checks.StepInput{N: d.N, Turns: d.Turns, Calls: d.Calls, GeneratorCPU: d.GeneratorCPU,
			MachineSteal: d.MachineSteal, Cut: d.Cut}
	}
	cal := checks.CalibrateSteps(inputs)
	verdicts, capacity := checks.StepsCalibrated(inputs, th, cal)
	cfg.Thresholds = th
	r := &Report{
		Schema:        Schema,
		Config:        cfg,
		Machine:       ThisMachine(),
		ChecksApplied: []string{},
		Steps:         make([]Step, len(steps)),
		Capacity:      capacity,
		TurnsFile:     TurnsFileName,
		Calibration:   &cal,
	}
	applied := map[string]bool{}
	for i, d := range steps {
		r.Steps[i] = buildStep(i+1, d, verdicts[i], th, applied)
		r.Started, r.Ended = span(r.Started, r.Ended, d.Window)
	}
	for _, c := range []string{checks.CheckServerTranscript, checks.CheckAgentText, checks.CheckCallerTranscription} {
		if applied[c] {
			r.ChecksApplied = append(r.ChecksApplied, c)
		}
	}
	return r
}

// buildStep aggregates one step; applied collects the checks its turns used.
func buildStep(index int, d StepData, v checks.StepVerdict, th checks.Thresholds, applied map[string]bool) Step {
	s := Step{
		Index: index, N: d.N, Start: d.Window[0], End: d.Window[1],
		Calls:              len(d.Calls),
		Latency:            map[string]checks.Summary{},
		Playout:            checks.PlayoutOf(d.Turns),
		AgentCPUMilli:      d.AgentCPUMilli,
		AgentRSSMiBPerCall: d.AgentRSSMiBPerCall,
		Generator:          checks.GeneratorOf(d.Turns, d.GeneratorCPU, d.MachineSteal, th),
		JudgingForecast:    d.Forecast,
		Verdict:            v,
	}
	if rate, ok := s.Playout.PerMin(); ok {
		s.UnderrunsPerMin = &rate
	}
	byCall := tallyTurns(&s, d.Turns, applied)
	tallyCalls(&s, d.Calls, byCall)
	for _, m := range checks.Metrics() {
		s.Latency[m.String()] = checks.Summarize(checks.Samples(m, d.Turns, d.Calls))
	}
	return s
}

// tallyTurns counts turn verdicts into s and groups the turns by call.
func tallyTurns(s *Step, turns []callers.Turn, applied map[string]bool) map[int][]callers.Turn {
	byCall := map[int][]callers.Turn{}
	for _, t := range turns {
		byCall[t.Call] = append(byCall[t.Call], t)
		v := checks.Turn(t)
		for _, a := range v.Applied {
			applied[a] = true
		}
		s.Cross.Add(v)
		s.Turns.Add(v)
		if v.Outcome != checks.OutcomeUnderstood {
			s.Failures = inc(s.Failures, v.Reason.String())
		}
	}
	return byCall
}

// tallyCalls counts connected, answered and clean calls into s.
func tallyCalls(s *Step, calls []callers.CallResult, byCall map[int][]callers.Turn) {
	for _, c := range calls {
		turns := byCall[c.Call]
		if c.Connected {
			s.Connected++
		}
		if answered(turns) {
			s.Answered++
		}
		v := checks.Call(c, turns)
		if v.Clean {
			s.Clean++
		} else {
			s.CallFailures = inc(s.CallFailures, v.Reason.String())
		}
	}
}

func answered(turns []callers.Turn) bool {
	for _, t := range turns {
		if t.Marks.ReplyStart != nil {
			return true
		}
	}
	return false
}

func inc(m map[string]int, k string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k]++
	return m
}

// span widens [start, end] to cover w, ignoring zero times.
func span(start, end time.Time, w [2]time.Time) (time.Time, time.Time) {
	if !w[0].IsZero() && (start.IsZero() || w[0].Before(start)) {
		start = w[0]
	}
	if !w[1].IsZero() && w[1].After(end) {
		end = w[1]
	}
	return start, end
}
