package checks

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/speech"
)

// MinCalibration is the least agreement of the caller's ears with the calibration basis for the
// caller-side check to be trusted.
const MinCalibration = 0.95

// Calibration says how well the caller's ears heard this agent's voice: how often the caller's
// transcription of a reply agreed with what the agent said it said (its own text where the
// protocol carries it, else its final transcript of the phrase, which an echo agent says back).
type Calibration struct {
	Basis    Basis   `json:"basis"`
	StepN    int     `json:"step_n"`   // the step (its N) the turns came from; 0 when not set by CalibrateSteps
	N        int     `json:"n"`        // turns compared
	Agreed   int     `json:"agreed"`   // of those, the caller heard the basis's digits
	Fraction float64 `json:"fraction"` // Agreed / N; 0 when N is 0
	// Trusted is false when Fraction is below MinCalibration; true when nothing could be compared
	// (no basis, or no turn fit to compare): there is no evidence against the ears.
	Trusted bool `json:"trusted"`
}

// Calibrate compares the caller's transcription with the agent's own text over the turns that
// carry it, or, when none does, with the single server final. A turn is compared only when its
// reply was heard whole: reply audio came, the caller-side check was completed, no error, hang-up,
// underrun or dropped audio cut it, and the basis holds digits.
func Calibrate(turns []callers.Turn) Calibration {
	c := Calibration{Basis: basisOf(turns), Trusted: true}
	for _, t := range turns {
		ref, ok := reference(t, c.Basis)
		if !ok || !heardWhole(t) {
			continue
		}
		c.N++
		if speech.Normalize(t.Heard) == ref {
			c.Agreed++
		}
	}
	if c.N > 0 {
		c.Fraction = float64(c.Agreed) / float64(c.N)
		c.Trusted = float64(c.Agreed) >= MinCalibration*float64(c.N)-1e-9 // exact at 19 of 20
	}
	return c
}

// CalibrateSteps calibrates on the lowest step (by N) that has a turn to compare, or the lowest
// step when none has: the least loaded ears are the ones measured.
func CalibrateSteps(steps []StepInput) Calibration {
	if len(steps) == 0 {
		return Calibration{Basis: BasisNone, Trusted: true}
	}
	sorted := slices.Clone(steps)
	slices.SortStableFunc(sorted, func(a, b StepInput) int { return cmp.Compare(a.N, b.N) })
	for _, s := range sorted {
		if c := Calibrate(s.Turns); c.N > 0 {
			c.StepN = s.N
			return c
		}
	}
	c := Calibrate(sorted[0].Turns)
	c.StepN = sorted[0].N
	return c
}

// basisOf picks the agent's text when any turn carries it, else the server transcript.
func basisOf(turns []callers.Turn) Basis {
	basis := BasisNone
	for _, t := range turns {
		if strings.TrimSpace(strings.Join(t.AgentText, " ")) != "" {
			return BasisAgentText
		}
		if t.TranscriptChannel {
			basis = BasisServerTranscript
		}
	}
	return basis
}

// reference is what the caller should have heard by the basis: false when the turn has none.
func reference(t callers.Turn, b Basis) (string, bool) {
	var ref string
	switch b {
	case BasisAgentText:
		ref = speech.Normalize(strings.Join(t.AgentText, " "))
	case BasisServerTranscript:
		if finals := digitFinals(t.ServerTranscripts); t.TranscriptChannel && len(finals) == 1 {
			ref = finals[0]
		}
	}
	return ref, ref != ""
}

// heardWhole reports whether the caller got the whole reply to hear: what else cut it is not the
// ears' doing.
func heardWhole(t callers.Turn) bool {
	return t.Marks.ReplyStart != nil && !callerUnjudged(t) && t.Error == "" && !t.Hangup &&
		t.Underruns == 0 && t.Dropped == 0
}

// Describe says the agreement in one line: "the caller's ears agreed with the agent's text on
// 62 % of 13 turns at N=1".
func (c Calibration) Describe() string {
	var basis string
	switch c.Basis {
	case BasisAgentText:
		basis = "the agent's text"
	case BasisServerTranscript:
		basis = "the server transcript"
	default:
		return "the caller's ears were not calibrated: the target exposes neither the agent's text nor transcripts"
	}
	if c.N == 0 {
		return "the caller's ears were not calibrated: no reply heard whole to compare with " + basis
	}
	return fmt.Sprintf("the caller's ears agreed with %s on %s of %d turns at N=%d", basis, FormatPct(c.Fraction), c.N, c.StepN)
}
