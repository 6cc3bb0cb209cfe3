package agent

import (
	"strings"
	"testing"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// Messages of a stream, as Twilio sends them.
var (
	twConnected = string(tw.AppendConnected(nil))
	twStart     = string(tw.AppendStart(nil, 1, tw.Start{StreamSID: "MZ1", CallSID: "CA1", AccountSID: "AC1"}))
	twMedia     = string(tw.AppendMedia(nil, "MZ1", 2, 1, 20, make([]byte, 160), tw.TrackInbound))
	twMark      = string(tw.AppendMarkEcho(nil, "MZ1", 3, "m1"))
	twDTMF      = string(tw.AppendDTMF(nil, "MZ1", 4, "5"))
	twStop      = string(tw.AppendStop(nil, "MZ1", 5, "AC1", "CA1"))
)

func TestTwilioStreamSequences(t *testing.T) {
	badSid := string(tw.AppendStart(nil, 1, tw.Start{StreamSID: "MZ1", CallSID: "CA/../x"}))
	for _, tc := range []struct {
		name   string
		msgs   []string
		phase  streamPhase
		frames int
		bad    []inputKind // in order
	}{
		{"a call", []string{twConnected, twStart, twMedia, twMedia, twMark, twDTMF, twStop}, phaseStopped, 2, nil},
		{"no connected", []string{twStart, twMedia}, phaseLive, 1, nil},
		{"media before start", []string{twMedia, twMark, twStart, twMedia}, phaseLive, 1,
			[]inputKind{kindUnexpectedEvent, kindUnexpectedEvent}},
		{"second start", []string{twStart, twStart}, phaseLive, 0, []inputKind{kindUnexpectedEvent}},
		{"stop before start", []string{twConnected, twStop, twStart}, phaseStopped, 0, nil},
		{"bad callSid", []string{badSid}, phaseAwaitStart, 0, []inputKind{kindBadCallSID}},
		{"garbage", []string{`{not json`, `{"event":"party"}`, `{"event":"media","media":{"payload":"***"}}`,
			`{"event":"start"}`, `{"event":"clear","streamSid":"MZ1"}`, strings.Repeat(" ", tw.MaxMessageSize+1)},
			phaseAwaitStart, 0,
			[]inputKind{kindBadJSON, kindUnknownEvent, kindBadBase64, kindMissingField, kindUnexpectedEvent, kindTooLarge}},
	} {
		ts := newTwilioStream()
		frames := 0
		ts.push = func(f []int16) {
			if len(f) != pipeline.FrameSamples {
				t.Fatalf("%s: frame of %d samples", tc.name, len(f))
			}
			frames++
		}
		var bad []inputKind
		for _, m := range tc.msgs {
			if _, err := ts.step([]byte(m)); err != nil && err != errAfterStop {
				bad = append(bad, twilioKind(err))
			}
		}
		if ts.phase != tc.phase || frames != tc.frames || !equalKinds(bad, tc.bad) {
			t.Errorf("%s: phase %v, %d frames, bad %v; want %v, %d, %v", tc.name, ts.phase, frames, bad, tc.phase, tc.frames, tc.bad)
		}
	}
}

func equalKinds(a, b []inputKind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
