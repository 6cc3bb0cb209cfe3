package agent

import (
	"fmt"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// streamPhase is where a Media Streams connection is. Twilio sends connected, start, then media,
// mark and dtmf until stop (Twilio "Media Streams - WebSocket Messages").
type streamPhase uint8

const (
	phaseUnknown streamPhase = iota
	phaseAwaitStart
	phaseLive
	phaseStopped
)

var phaseNames = [...]string{"unknown", "await_start", "live", "stopped"}

func (p streamPhase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return phaseNames[phaseUnknown]
}

// twilioStream is the message-processing core of one Media Streams connection, without I/O: it
// decodes Twilio's messages in order, takes the first valid start, and turns the caller's media
// into 20 ms frames at 16 kHz for push. It holds at most one frame's samples between messages.
type twilioStream struct {
	phase streamPhase
	start tw.Message // the start taken; its StreamSID is the stream's
	push  func([]int16)

	// Widened rather than plainly upsampled: the wideband transcriber hears telephone fricatives.
	up      *audio.Widener
	mulaw   []byte
	pcm8    []int16
	pending []int16
}

// newTwilioStream starts a stream awaiting its start; set push before media can flow (once step
// has returned EventStart).
func newTwilioStream() *twilioStream {
	return &twilioStream{phase: phaseAwaitStart, up: audio.NewWidener()}
}

// step handles one message and returns its event. An error is bad input the stream goes on after
// (twilioKind says which kind); errAfterStop means the stream is over and nothing was read.
func (ts *twilioStream) step(data []byte) (tw.Event, error) {
	if ts.phase == phaseStopped {
		return tw.EventUnknown, errAfterStop
	}
	m, err := tw.Decode(data)
	if err != nil {
		return tw.EventUnknown, err
	}
	switch m.Event {
	case tw.EventConnected:
	case tw.EventStart:
		if ts.phase != phaseAwaitStart {
			return m.Event, fmt.Errorf("%w: callSid %q", errSecondStart, m.Start.CallSID)
		}
		if !validCallID(m.Start.CallSID) {
			return m.Event, fmt.Errorf("%w: %q", errBadCallSID, m.Start.CallSID)
		}
		ts.start, ts.phase = m, phaseLive
	case tw.EventMedia:
		if ts.phase != phaseLive {
			return m.Event, fmt.Errorf("%w: media", errBeforeStart)
		}
		if err := ts.media(&m); err != nil {
			return m.Event, err
		}
	case tw.EventStop:
		ts.phase = phaseStopped
	case tw.EventMark, tw.EventDTMF:
		if ts.phase != phaseLive {
			return m.Event, fmt.Errorf("%w: %v", errBeforeStart, m.Event)
		}
	default:
		return m.Event, fmt.Errorf("%w: %v", errUnexpected, m.Event)
	}
	return m.Event, nil
}

// media decodes one media message's mu-law and pushes every whole 20 ms frame it completes.
func (ts *twilioStream) media(m *tw.Message) error {
	var err error
	if ts.mulaw, err = m.AppendAudio(ts.mulaw[:0]); err != nil {
		return err
	}
	ts.pcm8 = audio.MulawDecode(ts.pcm8[:0], ts.mulaw)
	ts.pending = append(ts.pending, ts.up.Process(ts.pcm8)...)
	off := 0
	for ; len(ts.pending)-off >= pipeline.FrameSamples; off += pipeline.FrameSamples {
		ts.push(ts.pending[off : off+pipeline.FrameSamples])
	}
	ts.pending = ts.pending[:copy(ts.pending, ts.pending[off:])]
	return nil
}

// streamSID is the stream's id for the agent's own messages, from the start taken.
func (ts *twilioStream) streamSID() string {
	if ts.start.StreamSID != "" {
		return ts.start.StreamSID
	}
	return ts.start.Start.StreamSID
}
