// Package callers holds one synthetic caller's contract: what it is told to do (a Plan), what it
// records of each turn (a Turn, with every clock mark of DESIGN.md on its own monotonic clock) and
// of the call (a Call). Callers never decide pass or fail: package checks does. The transports
// live in callers/twilio and callers/webrtc; callers/listen holds what both share on the
// receiving side (reply detection, the playout-buffer model, streaming transcription).
package callers

import (
	"context"
	"time"
)

// Schema is the version of the Turn and Call records written to turns.jsonl.
const Schema = 1

// Ms is a duration written as milliseconds in JSON (fractional), the unit of every report.
type Ms float64

// D converts a duration to Ms.
func D(d time.Duration) Ms { return Ms(float64(d) / float64(time.Millisecond)) }

// Duration converts back.
func (m Ms) Duration() time.Duration { return time.Duration(float64(m) * float64(time.Millisecond)) }

// Marks are a turn's clock marks, each an offset from the call's dial on the caller's monotonic
// clock; nil when the mark did not happen.
type Marks struct {
	SpeechStart *Ms `json:"speech_start,omitempty"` // send time of the frame holding the first voiced sample
	SpeechEnd   *Ms `json:"speech_end,omitempty"`   // send time of the frame holding the last voiced sample
	Transcript  *Ms `json:"transcript,omitempty"`   // arrival of the agent's final transcript for this turn
	ReplyStart  *Ms `json:"reply_start,omitempty"`  // first agent audio frame above the speech threshold after speech_end
	ReplyEnd    *Ms `json:"reply_end,omitempty"`    // last voiced agent frame before the reply-silence window
}

// Turn is everything a caller saw of one turn. It is plain data: checks derive the verdict.
type Turn struct {
	Schema    int       `json:"schema"`
	Call      int       `json:"call"`
	CallID    string    `json:"call_id"`
	Step      int       `json:"step"`
	Turn      int       `json:"turn"`
	Transport string    `json:"transport"`
	Phrase    string    `json:"phrase"`
	Voice     string    `json:"voice,omitempty"`
	Pause     *Ms       `json:"pause,omitempty"` // pause-probe: the exact pause between the halves
	Wall      time.Time `json:"wall"`            // wall-clock time the turn began speaking
	Marks     Marks     `json:"marks"`

	// Server side: every final transcript that arrived between this turn's speech start and the
	// next turn's (LateTranscripts: finals for this turn that came after the next one began).
	ServerTranscripts []string `json:"server_transcripts,omitempty"`
	LateTranscripts   []string `json:"late_transcripts,omitempty"`
	TranscriptChannel bool     `json:"transcript_channel"` // the target exposes server transcripts

	// The agent's own text for its reply, where the protocol carries it (RTVI bot-output,
	// bot-tts-text or bot-llm-text; LiveKit's agent transcription): what it meant to say, the third
	// witness between what it heard and what a caller heard.
	AgentText []string `json:"agent_text,omitempty"`

	// Caller side: the transcription of the agent's reply, and the replies counted.
	Heard   string `json:"heard"`
	Replies int    `json:"replies"`
	// The caller's ears: how long the reply waited for a decoder, and how long its decode took.
	DecodeWait Ms `json:"decode_wait,omitempty"`
	DecodeTime Ms `json:"decode_time,omitempty"`
	// Unjudged says why the generator could not complete the caller-side check of this turn (its
	// decode queue was over its bound, a decode timed out, the --stt-url server failed): the
	// generator's shortfall, never the agent's failure. Empty when the check was completed.
	Unjudged string `json:"unjudged,omitempty"`

	// Playout model over the reply.
	AgentAudio Ms  `json:"agent_audio"` // voiced + silent agent audio played during the reply
	Underruns  int `json:"underruns"`
	LongestGap Ms  `json:"longest_gap"`
	// Dropped is agent audio thrown away because it arrived more than the transport's MaxAhead
	// (listen.DefaultMaxAhead) ahead of real time: a flood no far end would play in time.
	Dropped Ms `json:"dropped,omitempty"`

	// Generator health over the turn, from its first frame to the next turn's: send lateness of
	// each 20 ms frame (actual - scheduled), phrase and silence alike, since a stalled caller
	// mis-times the reply as well as the phrase.
	LatenessP99  Ms           `json:"lateness_p99"`
	LatenessMax  Ms           `json:"lateness_max"`
	LatenessHist LatenessHist `json:"lateness_hist,omitempty"` // counts per LatenessEdges bucket

	Error  string `json:"error,omitempty"` // what ended the turn early: timeout, hangup, ...
	Hangup bool   `json:"hangup,omitempty"`
}

// CallResult is what a caller saw of a call as a whole.
type CallResult struct {
	Schema       int       `json:"schema"`
	Call         int       `json:"call"`
	CallID       string    `json:"call_id"`
	Step         int       `json:"step"`
	Transport    string    `json:"transport"`
	Seed         uint64    `json:"seed"`
	Wall         time.Time `json:"wall"`
	Connected    bool      `json:"connected"`
	Connect      *Ms       `json:"connect,omitempty"`       // dial -> media flowing
	SessionStart *Ms       `json:"session_start,omitempty"` // dial -> agent ready
	Turns        int       `json:"turns"`
	EndedBy      string    `json:"ended_by"` // caller (normal), agent (hang-up), error, cancelled
	Error        string    `json:"error,omitempty"`
	Duration     Ms        `json:"duration"`
}

// Plan is what one caller does.
type Plan struct {
	Call         int
	Step         int
	Seed         uint64
	Until        time.Time     // stop starting turns after this; hang up after the last turn
	PauseMin     time.Duration // pause between the reply's end and the next phrase
	PauseMax     time.Duration
	Timeouts     Timeouts
	Split        time.Duration // pause-probe: speak each phrase in halves with this pause; 0 = whole
	MaxTurns     int           // 0 = no bound
	ReplySilence time.Duration // silence that ends a reply (default 800 ms)
}

// Timeouts bound every wait of a call.
type Timeouts struct {
	Connect time.Duration // dial -> media flowing (default 10 s)
	Answer  time.Duration // speech_end -> first reply audio (default 8 s)
	Reply   time.Duration // reply_start -> reply end (default 15 s)
}

// Sink receives records as they finish; it must not block (outputs buffer on their side).
type Sink interface {
	Turn(t Turn)
	Call(c CallResult)
	State(call int, s State)
}

// State is what a caller is doing, for the live view.
type State int

const (
	StateUnknown State = iota
	StateDialing
	StateSpeaking
	StateWaiting
	StateListening
	StatePausing
	StateDone
	StateFailed
)

var stateNames = [...]string{"unknown", "dialing", "speaking", "waiting", "listening", "pausing", "done", "failed"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// Caller places one call following a plan, sending records to the sink, until the plan's end,
// ctx's end or a failure. It returns the call's result (also sent to the sink).
type Caller interface {
	Run(ctx context.Context, plan Plan, sink Sink) CallResult
}
