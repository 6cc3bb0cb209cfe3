package checks

import (
	"strings"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/speech"
)

// The checks a turn can apply, as named in reports.
const (
	CheckServerTranscript    = "server_transcript"
	CheckCallerTranscription = "caller_transcription"
)

// TurnVerdict is the verdict on one turn.
type TurnVerdict struct {
	Understood bool     `json:"understood"`
	Applied    []string `json:"applied"`   // the checks applied, CheckServerTranscript first
	ServerOK   Tri      `json:"server_ok"` // n/a when the target has no transcript channel
	ReplyOK    Tri      `json:"reply_ok"`
	Reason     Reason   `json:"reason"` // ReasonNone when understood
}

// Turn judges one turn.
func Turn(t callers.Turn) TurnVerdict {
	want := speech.Normalize(t.Phrase)
	v := TurnVerdict{Applied: []string{CheckCallerTranscription}, ServerOK: TriNA}
	if t.TranscriptChannel {
		v.Applied = []string{CheckServerTranscript, CheckCallerTranscription}
	}
	if want == "" {
		v.ServerOK, v.ReplyOK, v.Reason = TriNo, TriNo, ReasonError // no phrase: nothing to check against
		return v
	}
	finals := digitFinals(t.ServerTranscripts)
	rightOnTime := contains(finals, want)
	if t.TranscriptChannel {
		v.ServerOK = tri(len(finals) == 1 && rightOnTime)
	}
	v.ReplyOK = tri(speech.Normalize(t.Heard) == want)
	v.Understood = v.ServerOK != TriNo && v.ReplyOK == TriYes
	if v.Understood {
		v.Reason = ReasonNone
		return v
	}
	late := t.TranscriptChannel && len(t.LateTranscripts) > 0 && !rightOnTime
	v.Reason = first(
		errorReason(t),
		when(late, ReasonLateTranscript),
		when(t.TranscriptChannel && len(finals) > 1, ReasonSplit),
		when(t.Marks.ReplyStart == nil, ReasonNoAnswer),
		when(t.TranscriptChannel && len(finals) == 0, ReasonNotHeard),
		when(v.ServerOK == TriNo, ReasonWrongTranscript),
		when(v.ReplyOK == TriNo && t.Underruns > 0, ReasonUnderrun),
		when(v.ReplyOK == TriNo, ReasonWrongReply),
	)
	return v
}

// errorReason maps what ended the turn early to a reason.
func errorReason(t callers.Turn) Reason {
	if t.Hangup {
		return ReasonHangup
	}
	if t.Error == "" {
		return ReasonNone
	}
	r := ParseErrorReason(t.Error)
	if r == ReasonTimeout && t.Marks.ReplyStart == nil {
		return ReasonNoAnswer // the answer timeout: nothing was said back
	}
	return r
}

// ParseErrorReason maps a record's error text to a reason: its first word (before any ':') when
// that names a failure reason, else ReasonError.
func ParseErrorReason(s string) Reason {
	word, _, _ := strings.Cut(s, ":")
	if r, err := ParseReason(strings.TrimSpace(word)); err == nil && r.Failed() {
		return r
	}
	return ReasonError
}

// digitFinals normalises finals, dropping those without digits (noise, fillers).
func digitFinals(finals []string) []string {
	var out []string
	for _, f := range finals {
		if d := speech.Normalize(f); d != "" {
			out = append(out, d)
		}
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func tri(ok bool) Tri {
	if ok {
		return TriYes
	}
	return TriNo
}

func when(cond bool, r Reason) Reason {
	if cond {
		return r
	}
	return ReasonNone
}

// CallVerdict is the verdict on one call.
type CallVerdict struct {
	Clean  bool   `json:"clean"`
	Reason Reason `json:"reason"` // ReasonNone when clean
}

// Call judges a call: clean when it connected, every turn was understood and the caller ended it.
// A connected call with no turn at all is no_answer. turns are this call's turns.
func Call(c callers.CallResult, turns []callers.Turn) CallVerdict {
	if !c.Connected {
		return CallVerdict{Reason: ReasonConnectFailed}
	}
	r := endReason(c)
	for _, t := range turns {
		r = first(r, Turn(t).Reason)
	}
	if len(turns) == 0 && c.Turns == 0 {
		r = first(r, ReasonNoAnswer)
	}
	return CallVerdict{Clean: r == ReasonNone, Reason: r}
}

// endReason maps how the call ended to a reason; "caller" is the normal end.
func endReason(c callers.CallResult) Reason {
	switch c.EndedBy {
	case "caller":
		return ReasonNone
	case "agent":
		return ReasonHangup
	case "cancelled":
		return ReasonCancelled
	}
	if c.Error != "" {
		return ParseErrorReason(c.Error)
	}
	return ReasonError
}

// Cross tabulates a step's turns by the two checks, so failures point at a place to look.
type Cross struct {
	HeardRight    int `json:"heard_right"`     // transcript right, reply right
	HeardWrong    int `json:"heard_wrong"`     // transcript right, reply wrong: LLM/logic, TTS, transport
	NotHeardRight int `json:"not_heard_right"` // transcript wrong, reply right: the transcript channel
	NotHeardWrong int `json:"not_heard_wrong"` // transcript wrong, reply wrong: STT or inbound audio
	NARight       int `json:"na_right"`        // no transcript channel, reply right
	NAWrong       int `json:"na_wrong"`        // no transcript channel, reply wrong
}

// Add counts one turn's verdict.
func (x *Cross) Add(v TurnVerdict) {
	right := v.ReplyOK == TriYes
	switch {
	case v.ServerOK == TriYes && right:
		x.HeardRight++
	case v.ServerOK == TriYes:
		x.HeardWrong++
	case v.ServerOK == TriNo && right:
		x.NotHeardRight++
	case v.ServerOK == TriNo:
		x.NotHeardWrong++
	case right:
		x.NARight++
	default:
		x.NAWrong++
	}
}
