// Package scenarios says what callers do and when: a ramp of steps of N concurrent calls, as plain
// data (Plan) turned into a schedule by a pure function, and the Controller that starts callers
// per step and hands their records on. It never judges: package checks does.
package scenarios

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
)

// Plan is a ramp: for each step, N calls opened over Ramp, measured after Warmup for Duration.
type Plan struct {
	Steps    []int            `yaml:"steps" json:"steps"`
	Duration time.Duration    `yaml:"step_duration" json:"step_duration"`
	Ramp     time.Duration    `yaml:"ramp" json:"ramp"`
	Warmup   time.Duration    `yaml:"warmup" json:"warmup"`
	Seed     uint64           `yaml:"seed" json:"seed"`
	PauseMin time.Duration    `yaml:"pause_min" json:"pause_min"`
	PauseMax time.Duration    `yaml:"pause_max" json:"pause_max"`
	Timeouts callers.Timeouts `yaml:"timeouts" json:"timeouts"`
	Split    time.Duration    `yaml:"split" json:"split,omitempty"`
}

// DefaultPlan is the seeds' ramp shape at a short scale.
func DefaultPlan() Plan {
	return Plan{
		Steps: []int{1, 2, 4, 8}, Duration: 2 * time.Minute, Ramp: 10 * time.Second, Warmup: 8 * time.Second,
		PauseMin: 500 * time.Millisecond, PauseMax: 1500 * time.Millisecond,
		Timeouts: callers.Timeouts{Connect: 10 * time.Second, Answer: 8 * time.Second, Reply: 15 * time.Second},
	}
}

// Validate reports every problem at once.
func (p Plan) Validate() []error {
	var errs []error
	if len(p.Steps) == 0 {
		errs = append(errs, errors.New("steps: at least one step is needed"))
	}
	for i, n := range p.Steps {
		if n <= 0 {
			errs = append(errs, fmt.Errorf("steps[%d] = %d: calls must be positive", i, n))
		}
		if i > 0 && n > 0 && n <= p.Steps[i-1] {
			errs = append(errs, fmt.Errorf("steps[%d] = %d: steps must grow (previous %d)", i, n, p.Steps[i-1]))
		}
	}
	if p.Duration <= 0 {
		errs = append(errs, fmt.Errorf("step duration %v: must be positive", p.Duration))
	}
	if p.Ramp < 0 || p.Warmup < 0 {
		errs = append(errs, fmt.Errorf("ramp %v, warmup %v: must not be negative", p.Ramp, p.Warmup))
	}
	if p.PauseMin < 0 || p.PauseMax < p.PauseMin {
		errs = append(errs, fmt.Errorf("pause %v..%v: want 0 <= min <= max", p.PauseMin, p.PauseMax))
	}
	for name, d := range map[string]time.Duration{"connect": p.Timeouts.Connect, "answer": p.Timeouts.Answer, "reply": p.Timeouts.Reply} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s timeout %v: must be positive", name, d))
		}
	}
	return errs
}

// StepSchedule is when one step's calls start and what window is measured, as offsets from the
// step's start.
type StepSchedule struct {
	Index     int
	N         int             // calls this generator places (a shard's share of the plan's N)
	FirstCall int             // index of the step's first call across the run
	Calls     []int           // the call number of each start, across the run (a shard's are sparse)
	Starts    []time.Duration // one per call, spread evenly over the ramp
	Measure   [2]time.Duration
	End       time.Duration // callers stop starting turns here
	// Forecast, set by the runner as the step starts, says the callers' ears cannot judge N
	// callers on this machine, from the decode cost measured so far; "" when they can.
	Forecast string
}

// Schedule turns a plan into its steps (pure; the tests name the cases).
func Schedule(p Plan) []StepSchedule {
	out := make([]StepSchedule, 0, len(p.Steps))
	first := 0
	for i, n := range p.Steps {
		s := StepSchedule{Index: i, N: n, FirstCall: first}
		for k := 0; k < n; k++ {
			s.Calls = append(s.Calls, first+k)
			s.Starts = append(s.Starts, time.Duration(int64(p.Ramp)*int64(k)/int64(n)))
		}
		s.Measure = [2]time.Duration{p.Ramp + p.Warmup, p.Ramp + p.Warmup + p.Duration}
		s.End = s.Measure[1]
		out = append(out, s)
		first += n
	}
	return out
}

// StepLen is one step's planned running time, without hang-ups.
func (p Plan) StepLen() time.Duration { return p.Ramp + p.Warmup + p.Duration }

// StepAt is when step s begins in a run pinned to start (sharded runs): start + s×StepLen.
func (p Plan) StepAt(start time.Time, s int) time.Time {
	return start.Add(time.Duration(s) * p.StepLen())
}

// Call is the run-wide number of the step's i-th call.
func (s StepSchedule) Call(i int) int {
	if i < len(s.Calls) {
		return s.Calls[i]
	}
	return s.FirstCall + i // a schedule built by hand, without Calls
}

// Total is the plan's running time, without hang-ups.
func (p Plan) Total() time.Duration { return time.Duration(len(p.Steps)) * p.StepLen() }

// ParseSteps reads "1,2,4,8".
func ParseSteps(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("steps %q: %q is not a number", s, f)
		}
		out = append(out, n)
	}
	return out, nil
}
