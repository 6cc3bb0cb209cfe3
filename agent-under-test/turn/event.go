package turn

import (
	"fmt"
	"time"
)

// Kind is what happened on a frame; the zero value None is "nothing".
type Kind uint8

const (
	// None: the frame changed nothing a caller acts on.
	None Kind = iota
	// SpeechStarted: a turn begins (barge-in: stop the reply); At is the first frame of the speech.
	SpeechStarted
	// SpeechStopped: MinSilence of non-speech after LastSpeech; the turn is now held open.
	SpeechStopped
	// SpeechResumed: speech came back inside the hold; same turn, At is its first frame.
	SpeechResumed
	// TurnEnd: the hold ran out (or GateHold is 0); exactly one per turn.
	TurnEnd
)

var kindNames = [...]string{"None", "SpeechStarted", "SpeechStopped", "SpeechResumed", "TurnEnd"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Event is the outcome of one frame. Frame indices count non-empty Pushes from the stream start
// (or the last Reset), from 0; a None event is the zero Event.
type Event struct {
	Kind Kind
	// At is where the event really happened. SpeechStarted, SpeechResumed: the first frame of the
	// speech, i.e. of the onset's voiced run or of its leading fringe, at least K-1 frames before
	// the Push that returns the event. SpeechStopped, TurnEnd: the frame of that Push.
	At int
	// Start is the first speech frame of the turn.
	Start int
	// LastSpeech is the last speech frame of the turn so far: the frame being pushed for
	// SpeechStarted/SpeechResumed, the one MinSilence (+GateHold) back for SpeechStopped (TurnEnd).
	LastSpeech int
}

// Offset is At as a time offset from the stream start (the start of frame At).
func (e Event) Offset() time.Duration { return FrameTime(e.At) }

func (e Event) String() string {
	if e.Kind == None {
		return "None"
	}
	return fmt.Sprintf("%v@%d(start %d, last %d)", e.Kind, e.At, e.Start, e.LastSpeech)
}
