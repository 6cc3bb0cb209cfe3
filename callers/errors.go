package callers

import "errors"

var (
	// ErrConnect means the call never got media flowing (dial failed or timed out).
	ErrConnect = errors.New("callers: connect failed")
	// ErrRefused means the agent turned the call away (at its call limit); transports wrap it.
	ErrRefused = errors.New("agent refused the call")
	// ErrNotReady means the agent did not become ready within the connect timeout.
	ErrNotReady = errors.New("callers: agent not ready")
	// ErrCodec means the pool was not encoded in the form the transport sends.
	ErrCodec = errors.New("callers: pool lacks the transport's codec")
	// ErrSend means sending a frame failed.
	ErrSend = errors.New("callers: send failed")
	// ErrPhrase means the next phrase could not be rendered.
	ErrPhrase = errors.New("callers: phrase unavailable")
)

// Why a turn ended early (Turn.Error): a closed list that checks map to failure reasons.
const (
	ReasonNoAnswer     = "no_answer"         // no reply audio within Timeouts.Answer of speech_end
	ReasonReplyTimeout = "reply_timeout"     // the reply had not ended within Timeouts.Reply
	ReasonHangup       = "hangup"            // the agent hung up before the turn was over
	ReasonConnection   = "connection_lost"   // the transport failed before the turn was over
	ReasonCancelled    = "cancelled"         // the run was stopped before the turn was over
	ReasonTranscribe   = "transcribe_failed" // older records only: a reply the ears could not hear is now Turn.Unjudged
	ReasonOverrun      = "overrun"           // agent audio came too far ahead of real time and was dropped (Turn.Dropped)
)

// Who ended a call (CallResult.EndedBy).
const (
	EndedByCaller    = "caller"
	EndedByAgent     = "agent"
	EndedByError     = "error"
	EndedByCancelled = "cancelled"
)
