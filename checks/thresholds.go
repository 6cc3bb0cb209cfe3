package checks

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/callfleet/callfleet/callers"
)

// Thresholds are the step rule's limits; every one is a flag of the run.
type Thresholds struct {
	UnderrunsPerMin float64       // most underruns per minute of agent audio (1)
	P95Slack        time.Duration // p95 speech_end_to_reply may exceed the first step's median by this (300 ms)
	MinUnderstood   float64       // least fraction of judged turns understood (1.0)
	MaxLatenessP99  time.Duration // generator send lateness p99 above this is generator_bound (10 ms)
	MaxGeneratorCPU float64       // generator CPU, as a fraction of its cores, at or above this is generator_bound (0.9)
	// TolerateSlips is the most STT slips a step may have per 1,000 judged turns and still pass
	// (0: every slip counted against the step).
	TolerateSlips float64
	// MaxDecodeWaitP95 bounds the p95 of a reply's wait for a decoder: above it the ears fell
	// behind and the step is generator_bound (2 s; 0: no bound).
	MaxDecodeWaitP95 time.Duration
}

// DefaultThresholds are the seeds' rule: TurnCall's step verdict plus VoiceThere's 100 % understood.
func DefaultThresholds() Thresholds {
	return Thresholds{
		UnderrunsPerMin:  1,
		P95Slack:         300 * time.Millisecond,
		MinUnderstood:    1.0,
		MaxLatenessP99:   10 * time.Millisecond,
		MaxGeneratorCPU:  0.9,
		TolerateSlips:    0,
		MaxDecodeWaitP95: 2 * time.Second,
	}
}

// Validate reports every field out of range at once.
func (th Thresholds) Validate() []error {
	var errs []error
	bad := func(field string, v any, want string) {
		errs = append(errs, fmt.Errorf("%w: %s %v, want %s", ErrThreshold, field, v, want))
	}
	if !finite(th.UnderrunsPerMin) || th.UnderrunsPerMin < 0 {
		bad("underruns_per_min", th.UnderrunsPerMin, ">= 0")
	}
	if th.P95Slack < 0 {
		bad("p95_slack", th.P95Slack, ">= 0")
	}
	if !finite(th.MinUnderstood) || th.MinUnderstood < 0 || th.MinUnderstood > 1 {
		bad("min_understood", th.MinUnderstood, "in [0, 1]")
	}
	if th.MaxLatenessP99 <= 0 {
		bad("max_lateness_p99", th.MaxLatenessP99, "> 0")
	}
	if !finite(th.MaxGeneratorCPU) || th.MaxGeneratorCPU <= 0 || th.MaxGeneratorCPU > 1 {
		bad("max_generator_cpu", th.MaxGeneratorCPU, "in (0, 1]")
	}
	if !finite(th.TolerateSlips) || th.TolerateSlips < 0 || th.TolerateSlips > 1000 {
		bad("tolerate_slips", th.TolerateSlips, "in [0, 1000] per 1,000 turns")
	}
	if th.MaxDecodeWaitP95 < 0 {
		bad("max_decode_wait_p95", th.MaxDecodeWaitP95, ">= 0 (0: no bound)")
	}
	return errs
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// thresholdsJSON writes durations in milliseconds, the unit of every report.
type thresholdsJSON struct {
	UnderrunsPerMin float64    `json:"underruns_per_min"`
	P95Slack        callers.Ms `json:"p95_slack"`
	MinUnderstood   float64    `json:"min_understood"`
	MaxLatenessP99  callers.Ms `json:"max_lateness_p99"`
	MaxGeneratorCPU float64    `json:"max_generator_cpu"`
	TolerateSlips   float64    `json:"tolerate_slips"`
	MaxDecodeWait   callers.Ms `json:"max_decode_wait_p95"`
}

func (th Thresholds) toJSON() thresholdsJSON {
	return thresholdsJSON{
		UnderrunsPerMin: th.UnderrunsPerMin,
		P95Slack:        callers.D(th.P95Slack),
		MinUnderstood:   th.MinUnderstood,
		MaxLatenessP99:  callers.D(th.MaxLatenessP99),
		MaxGeneratorCPU: th.MaxGeneratorCPU,
		TolerateSlips:   th.TolerateSlips,
		MaxDecodeWait:   callers.D(th.MaxDecodeWaitP95),
	}
}

// MarshalJSON writes durations as milliseconds.
func (th Thresholds) MarshalJSON() ([]byte, error) { return json.Marshal(th.toJSON()) }

// UnmarshalJSON reads what MarshalJSON writes; a field absent (a report older than it) takes its
// default.
func (th *Thresholds) UnmarshalJSON(b []byte) error {
	j := DefaultThresholds().toJSON()
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("checks: thresholds: %w", err)
	}
	*th = Thresholds{
		UnderrunsPerMin:  j.UnderrunsPerMin,
		P95Slack:         j.P95Slack.Duration(),
		MinUnderstood:    j.MinUnderstood,
		MaxLatenessP99:   j.MaxLatenessP99.Duration(),
		MaxGeneratorCPU:  j.MaxGeneratorCPU,
		TolerateSlips:    j.TolerateSlips,
		MaxDecodeWaitP95: j.MaxDecodeWait.Duration(),
	}
	return nil
}
