package report

import (
	"time"

	"github.com/callfleet/callfleet/callers"
)

// The lines of turns.jsonl beside the turn and call records, which let `callfleet report DIR`
// rebuild report.json from the file alone when the run never wrote it (killed, crashed, disk full).
// Readers of files written before these lines existed see only records, and readers skip kinds
// they do not know, so the lines are additive.
const (
	KindRun     = "run"      // first line: what the run was told to do, and where it ran
	KindStep    = "step"     // a step began: its N and measured window
	KindStepEnd = "step_end" // a step ended: the generator's figures
	KindAgent   = "agent"    // a step's agent costs, once its measured window's scrapes are in
	KindRunEnd  = "run_end"  // the run finished (or stopped) and wrote its report
)

// RunLine is the first line of a run's turns file.
type RunLine struct {
	Schema  int       `json:"schema"`
	Config  RunConfig `json:"config"`
	Machine Machine   `json:"machine"`
	Started time.Time `json:"started"`
}

// StepLine says a step began. Step is the 0-based schedule index the step's records carry.
type StepLine struct {
	Schema int          `json:"schema"`
	Step   int          `json:"step"`
	N      int          `json:"n"`
	Start  time.Time    `json:"start"`
	Window [2]time.Time `json:"window"` // the measured window, wall clock
	// Forecast says, before the step, that the callers' ears could not judge N callers here.
	Forecast string `json:"judging_forecast,omitempty"`
}

// StepEndLine says a step ended, with the generator's figures no turn or call record holds.
type StepEndLine struct {
	Schema       int     `json:"schema"`
	Step         int     `json:"step"`
	GeneratorCPU float64 `json:"generator_cpu"`
	MachineSteal float64 `json:"machine_steal"`     // < 0 unknown
	Stopped      bool    `json:"stopped,omitempty"` // ended early (Ctrl-C, the user, an error)
}

// AgentLine is a step's agent costs from the scrapes of the agent's /metrics around its measured
// window; a step whose scrapes failed has none.
type AgentLine struct {
	Schema             int     `json:"schema"`
	Step               int     `json:"step"`
	AgentCPUMilli      float64 `json:"agent_cpu_milli_per_conv"`
	AgentRSSMiBPerCall float64 `json:"agent_rss_mib_per_call"`
}

// RunEndLine is the last line of a run that ended in its own time or was stopped, not killed.
type RunEndLine struct {
	Schema  int       `json:"schema"`
	Ended   time.Time `json:"ended"`
	Stopped *Stop     `json:"stopped,omitempty"`
}

// Stop says why a run ended before its plan did; nil in a report of a run that finished.
type Stop struct {
	Reason string `json:"reason"`          // StopInterrupted, StopError or StopUnfinished
	Error  string `json:"error,omitempty"` // StopError: what failed
}

// Reasons of a Stop.
const (
	StopInterrupted = "interrupted" // Ctrl-C, SIGTERM or the live view's q
	StopError       = "error"       // the run could not go on (its turns file could not be written)
	StopUnfinished  = "unfinished"  // rebuilt from a turns file the run never finished: killed or crashed
)

// WriteRun writes the run line; Execute writes it first, before any record.
func (j *JSONL) WriteRun(l RunLine) error {
	l.Schema = stamp0(l.Schema)
	return j.write(struct {
		Kind string `json:"kind"`
		RunLine
	}{KindRun, l})
}

// WriteStep writes a step's start line.
func (j *JSONL) WriteStep(l StepLine) error {
	l.Schema = stamp0(l.Schema)
	return j.write(struct {
		Kind string `json:"kind"`
		StepLine
	}{KindStep, l})
}

// WriteStepEnd writes a step's end line.
func (j *JSONL) WriteStepEnd(l StepEndLine) error {
	l.Schema = stamp0(l.Schema)
	return j.write(struct {
		Kind string `json:"kind"`
		StepEndLine
	}{KindStepEnd, l})
}

// WriteAgent writes a step's agent costs.
func (j *JSONL) WriteAgent(l AgentLine) error {
	l.Schema = stamp0(l.Schema)
	return j.write(struct {
		Kind string `json:"kind"`
		AgentLine
	}{KindAgent, l})
}

// WriteRunEnd writes the run's last line.
func (j *JSONL) WriteRunEnd(l RunEndLine) error {
	l.Schema = stamp0(l.Schema)
	return j.write(struct {
		Kind string `json:"kind"`
		RunEndLine
	}{KindRunEnd, l})
}

// stamp0 is the record schema for a line that names none.
func stamp0(s int) int {
	if s == 0 {
		return callers.Schema
	}
	return s
}
