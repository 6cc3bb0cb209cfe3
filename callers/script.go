package callers

import (
	"errors"
	"fmt"
	"time"
)

// A scripted call says a fixed list of phrases at set moments — after the reply before them, or
// over it (barge-in) — then stays on the line in silence (the idle guard), and keeps a Trace of
// everything it saw arrive. Unlike Run it draws nothing at random and judges nothing: the
// scenarios beyond the ramp (barge-in, idle, replay) read the trace.

// TraceSchema is the version of the Trace record.
const TraceSchema = 1

// ErrScript means a script cannot be run as given.
var ErrScript = errors.New("callers: bad script")

// Cue is one phrase of a script and when to say it.
type Cue struct {
	Digits string        `json:"digits"`
	Split  time.Duration `json:"split,omitempty"` // say it in halves with this pause between them (pool.Split)
	// Pause is the silence before the phrase's first voiced sample, counted from the end (last
	// voiced frame played) of the reply to the cue before, or from that cue's speech end when it
	// got no reply; for the first cue, from the agent being ready (after any greeting). A reply is
	// known to have ended only a reply-silence window after it did, so a shorter Pause is spoken
	// as soon as that is known.
	Pause time.Duration `json:"pause,omitempty"`
	// BargeIn, when positive, puts the phrase's first voiced sample this long after the reply to
	// the cue before started playing: the caller talks over the agent. Pause is then unused.
	BargeIn time.Duration `json:"barge_in,omitempty"`
	// Transcribe asks for the caller's own transcription of the reply to this cue.
	Transcribe bool `json:"transcribe,omitempty"`
}

// Script is what one scripted call does: its cues in order, then Hold of silence.
type Script struct {
	Call int
	Step int
	Seed uint64 // recorded, for replays; the script itself draws nothing
	Cues []Cue
	// Hold is how long the caller stays on the line, silent, after the last cue's reply ended (or
	// was given up on); the agent hanging up ends it sooner.
	Hold         time.Duration
	Timeouts     Timeouts
	ReplySilence time.Duration // silence that ends a reply (default 800 ms)
}

// Validate reports every problem at once.
func (s Script) Validate() []error {
	var errs []error
	if len(s.Cues) == 0 {
		errs = append(errs, fmt.Errorf("%w: no cues", ErrScript))
	}
	for i, c := range s.Cues {
		if c.Digits == "" {
			errs = append(errs, fmt.Errorf("%w: cue %d: no digits", ErrScript, i))
		}
		if c.Split < 0 || c.Pause < 0 || c.BargeIn < 0 {
			errs = append(errs, fmt.Errorf("%w: cue %d: negative split, pause or barge-in", ErrScript, i))
		}
		if i == 0 && c.BargeIn > 0 {
			errs = append(errs, fmt.Errorf("%w: cue 0: nothing to barge in on", ErrScript))
		}
	}
	if s.Hold < 0 {
		errs = append(errs, fmt.Errorf("%w: hold %v: negative", ErrScript, s.Hold))
	}
	return errs
}

// Trace is everything a scripted call saw, each time an offset from dial on the caller's
// monotonic clock. It is plain data: package scenarios derives the figures.
type Trace struct {
	Schema            int       `json:"schema"`
	Call              int       `json:"call"`
	CallID            string    `json:"call_id"`
	Step              int       `json:"step"`
	Transport         string    `json:"transport"`
	Seed              uint64    `json:"seed"`
	Wall              time.Time `json:"wall"`
	Connected         bool      `json:"connected"`
	Connect           *Ms       `json:"connect,omitempty"`
	Ready             *Ms       `json:"ready,omitempty"`
	TranscriptChannel bool      `json:"transcript_channel"`

	Said    []Said       `json:"said"`    // one per cue spoken, in order
	Replies []HeardReply `json:"replies"` // replies as the far end played them (playout model)
	// Voiced is the agent's voiced audio by arrival (each 20 ms frame stamped with its arrival,
	// its 2.5 ms blocks above the reply threshold kept), stretches less than a frame apart
	// joined: when the agent really stopped sending.
	Voiced []Span `json:"voiced"`
	// Audio is the agent's audio of any level by arrival, adjacent frames joined; an agent that
	// sends silence between replies (WebRTC) makes this one long span.
	Audio  []Span       `json:"audio"`
	Clears []Ms         `json:"clears,omitempty"` // arrivals of Twilio clear messages
	Events []AgentEvent `json:"events,omitempty"` // every server message, in arrival order
	Hangup *Ms          `json:"hangup,omitempty"` // the agent ended the call
	// EventsDropped counts server messages past the trace's bound (4096), not kept.
	EventsDropped int `json:"events_dropped,omitempty"`
	// Dropped is agent audio thrown away for arriving more than MaxAhead ahead of real time.
	Dropped Ms `json:"dropped,omitempty"`

	EndedBy  string `json:"ended_by"`
	Error    string `json:"error,omitempty"`
	Duration Ms     `json:"duration"`
}

// Said is one cue as spoken.
type Said struct {
	Cue          int          `json:"cue"`
	Digits       string       `json:"digits"`
	Voice        string       `json:"voice,omitempty"`
	Split        *Ms          `json:"split,omitempty"`
	Wall         time.Time    `json:"wall"`
	SpeechStart  Ms           `json:"speech_start"`
	SpeechEnd    Ms           `json:"speech_end"`
	LateEnd      Ms           `json:"late_end"`        // the first words are out: finals after this are not late for the cue before
	Reply        int          `json:"reply,omitempty"` // Seq of the reply to it: the first to start after its speech end
	LatenessP99  Ms           `json:"lateness_p99"`
	LatenessMax  Ms           `json:"lateness_max"`
	LatenessHist LatenessHist `json:"lateness_hist,omitempty"`
}

// HeardReply is one agent reply as the far end played it, and what the caller heard in it.
type HeardReply struct {
	Seq      int    `json:"seq"`
	Start    Ms     `json:"start"`
	End      *Ms    `json:"end,omitempty"` // nil: still playing when the call ended
	Heard    string `json:"heard,omitempty"`
	HeardErr string `json:"heard_error,omitempty"`
	// The caller's ears on this reply, as in Turn: its wait for a decoder, its decode time, why
	// it could not be heard; Cancelled: the call was stopped before it was.
	DecodeWait Ms     `json:"decode_wait,omitempty"`
	DecodeTime Ms     `json:"decode_time,omitempty"`
	Unjudged   string `json:"unjudged,omitempty"`
	Cancelled  bool   `json:"cancelled,omitempty"`
	Underruns  int    `json:"underruns"`
	LongestGap Ms     `json:"longest_gap"`
	AgentAudio Ms     `json:"agent_audio"`
}

// Span is a stretch of time [Start, End).
type Span struct {
	Start Ms `json:"start"`
	End   Ms `json:"end"`
}

// AgentEvent is one server message (RTVI): its type and arrival; transcripts keep their text, and
// so do the agent's own reply texts that count (rtvi.Message.BotText).
type AgentEvent struct {
	At    Ms     `json:"at"`
	Type  string `json:"type"`
	Text  string `json:"text,omitempty"`
	Final bool   `json:"final,omitempty"`
}

// ReplyBySeq returns the reply with a given Seq.
func (t *Trace) ReplyBySeq(seq int) (HeardReply, bool) {
	for _, r := range t.Replies {
		if r.Seq == seq {
			return r, true
		}
	}
	return HeardReply{}, false
}

// EventsOf returns the arrivals of the events of one type at or after from.
func (t *Trace) EventsOf(typ string, from Ms) []Ms {
	var out []Ms
	for _, e := range t.Events {
		if e.Type == typ && e.At >= from {
			out = append(out, e.At)
		}
	}
	return out
}
