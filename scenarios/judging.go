package scenarios

import (
	"fmt"
	"math"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
)

// judgeHeadroom is the share of the ears' decoders a forecast counts on: replies end in bursts, and
// a decoder kept busy all the time has a queue that only grows.
const judgeHeadroom = 0.7

// judging forecasts, before each step, whether the callers' ears can judge its N callers, from
// the decode time per caller per second they measured over the steps before.
type judging struct {
	ears  listen.Ears
	prev  listen.EarsStats
	since time.Time

	perCaller float64 // decode seconds per caller per second of the last measured step; 0 unknown
	slots     int
	turnCost  time.Duration // mean decode time per reply
}

func newJudging(ears listen.Ears) *judging {
	if ears == nil {
		return nil
	}
	return &judging{ears: ears}
}

// start marks a step's beginning and returns the forecast for its n callers ("" when they can be
// judged, or nothing was measured yet).
func (j *judging) start(n int, at time.Time) string {
	if j == nil {
		return ""
	}
	j.prev, j.since = j.ears.Stats(), at
	can := j.capacity()
	if can <= 0 || n <= can {
		return ""
	}
	return fmt.Sprintf("this machine's ears can judge about %d callers (%d decoders, %.0f ms of decoding per reply, "+
		"%.1f%% of a decoder per caller measured): expect unjudged turns and a generator_bound step at N=%d; "+
		"use --stt-url or shard the run", can, j.slots, float64(j.turnCost)/float64(time.Millisecond), 100*j.perCaller, n)
}

// end measures the step that began at start, over n callers.
func (j *judging) end(n int, at time.Time) {
	if j == nil {
		return
	}
	d := j.ears.Stats().Sub(j.prev)
	secs := at.Sub(j.since).Seconds()
	if d.Started == 0 || n <= 0 || secs <= 0 {
		return
	}
	j.perCaller = d.DecodeTime.Seconds() / (float64(n) * secs)
	j.slots = d.Slots
	j.turnCost = d.MeanTime()
}

// capacity is the callers the ears can keep up with, 0 when unknown.
func (j *judging) capacity() int {
	if j.perCaller <= 0 || j.slots <= 0 {
		return 0
	}
	return int(math.Floor(float64(j.slots)*judgeHeadroom/j.perCaller + 1e-9)) // 27.999... is 28
}
