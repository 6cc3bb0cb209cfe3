package checks

import (
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/speech"
)

// The checks a turn can apply, as named in reports.
const (
	CheckServerTranscript    = "server_transcript"
	CheckAgentText           = "agent_text"
	CheckCallerTranscription = "caller_transcription"
)

// TurnVerdict is the verdict on one turn.
type TurnVerdict struct {
	Understood bool     `json:"understood"`
	Applied    []string `json:"applied"`   // the checks applied, in the order of the Check constants
	ServerOK   Tri      `json:"server_ok"` // n/a when the target has no transcript channel
	AgentOK    Tri      `json:"agent_ok"`  // n/a when the protocol carries no agent text
	ReplyOK    Tri      `json:"reply_ok"`  // n/a when the caller-side check was not completed (unjudged)
	Reason     Reason   `json:"reason"`    // ReasonNone when understood
	Outcome    Outcome  `json:"outcome"`   // the Reason's class
	// Slip names the check (CheckServerTranscript or CheckCallerTranscription) that slipped by
	// one digit when Reason is ReasonSlip; empty otherwise.
	Slip string `json:"slip,omitempty"`
}

// CallerStall is the longest a caller's own 20 ms loop may run late in a turn and still vouch for
// what it heard: past the playout model's tolerance (one frame, listen.DefaultTolerance) its own
// stall reads as an underrun, so a turn failed on the caller's side alone is then unjudged.
const CallerStall = 20 * time.Millisecond

// CallerOnly reports whether the turn failed (or slipped) on the caller's transcription alone:
// every other witness right or n/a. Those are the failures an untrusted ear may have invented.
func (v TurnVerdict) CallerOnly() bool {
	switch v.Reason {
	case ReasonUnderrun, ReasonWrongReply, ReasonMisheard, ReasonSlip:
		return v.ReplyOK == TriNo && v.ServerOK != TriNo && v.AgentOK != TriNo
	}
	return false
}

// witnesses are a turn's accounts of its phrase, as digits: what the agent heard (its finals),
// what it meant to say (its text) and what a caller heard.
type witnesses struct {
	want     string
	server   bool     // the target exposes transcripts
	finals   []string // the server finals with digits, on time
	hasAgent bool
	agent    string
	judged   bool // the caller-side check was completed
	heard    string
}

func witnessesOf(t callers.Turn) witnesses {
	text := strings.Join(t.AgentText, " ")
	return witnesses{
		want:     speech.Normalize(t.Phrase),
		server:   t.TranscriptChannel,
		finals:   digitFinals(t.ServerTranscripts),
		hasAgent: strings.TrimSpace(text) != "",
		agent:    speech.Normalize(text),
		judged:   !callerUnjudged(t),
		heard:    speech.Normalize(t.Heard),
	}
}

// applied lists the checks these witnesses allow, in the order of the Check constants.
func (w witnesses) applied() []string {
	var out []string
	if w.server {
		out = append(out, CheckServerTranscript)
	}
	if w.hasAgent {
		out = append(out, CheckAgentText)
	}
	if w.judged {
		out = append(out, CheckCallerTranscription)
	}
	return out
}

// callerUnjudged reports whether the generator could not complete the caller-side check.
func callerUnjudged(t callers.Turn) bool {
	return t.Unjudged != "" || (t.Error != "" && ParseErrorReason(t.Error) == ReasonUnjudged)
}

// Turn judges one turn.
func Turn(t callers.Turn) TurnVerdict {
	w := witnessesOf(t)
	v := TurnVerdict{Applied: w.applied(), ServerOK: TriNA, AgentOK: TriNA, ReplyOK: TriNA}
	if w.want == "" { // no phrase: nothing to check against
		v.ServerOK, v.ReplyOK, v.Reason, v.Outcome = TriNo, TriNo, ReasonError, OutcomeFailed
		if w.hasAgent {
			v.AgentOK = TriNo
		}
		return v
	}
	if w.server {
		v.ServerOK = tri(len(w.finals) == 1 && w.finals[0] == w.want)
	}
	if w.hasAgent {
		v.AgentOK = tri(w.agent == w.want)
	}
	if w.judged {
		v.ReplyOK = tri(w.heard == w.want)
	}
	v.Understood = v.ServerOK != TriNo && v.ReplyOK == TriYes
	v.Reason = ReasonNone
	if !v.Understood {
		v.Slip = slipOf(w)
		v.Reason = reasonOf(t, v, w)
		if v.Reason != ReasonSlip {
			v.Slip = "" // a slip outranked (underrun, error, ...) is not reported as one
		}
		if v.CallerOnly() && t.LatenessMax.Duration() > CallerStall {
			v.Reason = ReasonUnjudged // the caller itself stalled: its playout and ears cannot vouch
		}
	}
	v.Outcome = v.Reason.Outcome()
	return v
}

// reasonOf picks a not-understood turn's reason: the first that applies, causes first.
func reasonOf(t callers.Turn, v TurnVerdict, w witnesses) Reason {
	late := w.server && len(t.LateTranscripts) > 0 && !contains(w.finals, w.want)
	return first(
		errorReason(t),
		when(late, ReasonLateTranscript),
		when(w.server && len(w.finals) > 1, ReasonSplit),
		when(t.Marks.ReplyStart == nil, ReasonNoAnswer),
		when(w.server && len(w.finals) == 0, ReasonNotHeard),
		when(v.ServerOK == TriNo && v.Slip != CheckServerTranscript, ReasonWrongTranscript),
		when(v.Slip == CheckServerTranscript, ReasonSlip),
		replyReason(t, v),
		when(!w.judged, ReasonUnjudged),
	)
}

// replyReason says what went wrong between the agent's words and the caller's ears.
func replyReason(t callers.Turn, v TurnVerdict) Reason {
	switch {
	case v.AgentOK == TriNo:
		return ReasonWrongReply // the agent's own text says other digits: known without the ears
	case v.ReplyOK != TriNo:
		return ReasonNone
	case t.Underruns > 0:
		return ReasonUnderrun // its playout ran dry: the transport
	case v.Slip == CheckCallerTranscription:
		return ReasonSlip
	case v.AgentOK == TriYes:
		return ReasonMisheard // it meant the phrase: the caller's ears, or its TTS, transport, playout
	}
	return ReasonWrongReply
}

// slipOf names the one STT step (the agent's finals or the caller's transcription) that is one
// digit edit off the phrase while every other witness present says the phrase and at least two
// do; "" when there is no such slip. The agent's text is a witness but never slips: it is not STT.
func slipOf(w witnesses) string {
	type account struct {
		check, digits string
		stt           bool
	}
	var accounts []account
	if w.server {
		if len(w.finals) != 1 {
			return "" // not heard, or split: their own reasons
		}
		accounts = append(accounts, account{CheckServerTranscript, w.finals[0], true})
	}
	if w.hasAgent {
		accounts = append(accounts, account{CheckAgentText, w.agent, false})
	}
	if w.judged {
		accounts = append(accounts, account{CheckCallerTranscription, w.heard, true})
	}
	equal, slipped := 0, ""
	for _, a := range accounts {
		switch {
		case a.digits == w.want:
			equal++
		case a.stt && slipped == "" && oneEdit(a.digits, w.want):
			slipped = a.check
		default:
			return ""
		}
	}
	if equal < 2 {
		return ""
	}
	return slipped
}

// oneEdit reports whether a and b are exactly one insertion, deletion or substitution apart
// (Levenshtein distance 1).
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if a == b || len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:]
	}
	return a[i:] == b[i+1:]
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

// errorAliases are the callers' error words (callers/errors.go) whose reason has another name;
// the others (no_answer, hangup, connection_lost, cancelled, overrun) are reason names.
var errorAliases = map[string]Reason{
	callers.ReasonReplyTimeout: ReasonTimeout,
	callers.ReasonTranscribe:   ReasonUnjudged, // the caller's ears failed, not the agent
}

// ParseErrorReason maps a record's error text to a reason: its first word (before any ':') when
// that is a callers error word or names a reason, else ReasonError.
func ParseErrorReason(s string) Reason {
	word, _, _ := strings.Cut(s, ":")
	word = strings.TrimSpace(word)
	if r, ok := errorAliases[word]; ok {
		return r
	}
	if r, err := ParseReason(word); err == nil && r != ReasonNone {
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
	Reason Reason `json:"reason"` // ReasonNone when clean; Reason.Failed says whether it failed
}

// Call judges a call: clean when it connected, every turn was understood and the caller ended it.
// A connected call with no turn at all is no_answer, unless the run was cancelled first. A
// failure on any turn outranks a cancel, slip or unjudged turn. turns are this call's turns.
func Call(c callers.CallResult, turns []callers.Turn) CallVerdict {
	if !c.Connected {
		return CallVerdict{Reason: ReasonConnectFailed}
	}
	end := endReason(c)
	rs := []Reason{end, when(len(turns) == 0 && c.Turns == 0 && end != ReasonCancelled, ReasonNoAnswer)}
	for _, t := range turns {
		rs = append(rs, Turn(t).Reason)
	}
	r := worst(rs...)
	return CallVerdict{Clean: r == ReasonNone, Reason: r}
}

// endReason maps how the call ended to a reason; "caller" is the normal end.
func endReason(c callers.CallResult) Reason {
	switch c.EndedBy {
	case callers.EndedByCaller:
		return ReasonNone
	case callers.EndedByAgent:
		return ReasonHangup
	case callers.EndedByCancelled:
		return ReasonCancelled
	}
	if c.Error != "" {
		return ParseErrorReason(c.Error)
	}
	return ReasonError
}

// Cross tabulates a step's turns by the two checks, so failures point at a place to look. The
// cells hold judged turns only (slips among them, in the cell of the witness that slipped);
// unjudged and cancelled turns are counted apart.
type Cross struct {
	HeardRight    int `json:"heard_right"`     // transcript right, reply right
	HeardWrong    int `json:"heard_wrong"`     // transcript right, reply wrong and the agent's text wrong or n/a: LLM/logic, TTS, transport
	NotHeardRight int `json:"not_heard_right"` // transcript wrong, reply right: the transcript channel
	NotHeardWrong int `json:"not_heard_wrong"` // transcript wrong, reply wrong: STT or inbound audio
	NARight       int `json:"na_right"`        // no transcript channel, reply right
	NAWrong       int `json:"na_wrong"`        // no transcript channel, reply wrong and the agent's text wrong or n/a
	// Misheard: transcript right or n/a and the agent's text the phrase, but the caller heard
	// other digits: the caller's ears, or the agent's TTS, transport or playout.
	Misheard  int `json:"misheard"`
	Unjudged  int `json:"unjudged"`  // the caller-side check was not completed
	Cancelled int `json:"cancelled"` // the run stopped during the turn
}

// Add counts one turn's verdict.
func (x *Cross) Add(v TurnVerdict) {
	switch v.Outcome {
	case OutcomeCancelled:
		x.Cancelled++
		return
	case OutcomeUnjudged:
		x.Unjudged++
		return
	}
	reply := v.ReplyOK
	if reply == TriNA { // the ears did not judge it: the agent's own text says
		reply = v.AgentOK
	}
	right := reply == TriYes
	misheard := v.AgentOK == TriYes && v.ReplyOK == TriNo
	switch {
	case v.ServerOK != TriNo && misheard:
		x.Misheard++
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
