package checks

import (
	"slices"
	"testing"

	"github.com/callfleet/callfleet/callers"
)

func TestTurn(t *testing.T) {
	tests := []struct {
		name       string
		mut        func(t *callers.Turn)
		understood bool
		server     Tri
		reply      Tri
		reason     Reason
	}{
		{"understood", nil, true, TriYes, TriYes, ReasonNone},
		{"understood, digits written any way", func(t *callers.Turn) {
			t.ServerTranscripts = []string{"Seven-one three, four five."}
			t.Heard = "seven one three four five"
		}, true, TriYes, TriYes, ReasonNone},
		{"understood with underruns: they count against the step", func(t *callers.Turn) { t.Underruns = 3 },
			true, TriYes, TriYes, ReasonNone},
		{"understood, noise final ignored", func(t *callers.Turn) {
			t.ServerTranscripts = []string{"um", "seven one three four five"}
		}, true, TriYes, TriYes, ReasonNone},
		{"no transcript channel: n/a", func(t *callers.Turn) {
			t.TranscriptChannel, t.ServerTranscripts = false, nil
		}, true, TriNA, TriYes, ReasonNone},
		{"connect_failed", func(t *callers.Turn) { t.Error, t.Heard, t.Marks.ReplyStart = "connect_failed: dial tcp", "", nil },
			false, TriYes, TriNo, ReasonConnectFailed},
		{"hangup beats no answer", func(t *callers.Turn) {
			t.Hangup, t.Heard, t.Marks.ReplyStart = true, "", nil
		}, false, TriYes, TriNo, ReasonHangup},
		{"cancelled", func(t *callers.Turn) { t.Error, t.Heard, t.Marks.ReplyStart = "cancelled", "", nil },
			false, TriYes, TriNo, ReasonCancelled},
		{"other error", func(t *callers.Turn) { t.Error, t.Heard = "websocket: close 1006", "713" },
			false, TriYes, TriNo, ReasonError},
		{"late_transcript beats no_answer", func(t *callers.Turn) {
			t.ServerTranscripts, t.LateTranscripts = nil, []string{"71345"}
			t.Heard, t.Marks.ReplyStart, t.Marks.Transcript = "", nil, nil
		}, false, TriNo, TriNo, ReasonLateTranscript},
		{"late but a right final on time: understood", func(t *callers.Turn) {
			t.LateTranscripts = []string{"71345"}
		}, true, TriYes, TriYes, ReasonNone},
		{"split", func(t *callers.Turn) {
			t.ServerTranscripts, t.Heard = []string{"seven one", "three four five"}, "71"
		}, false, TriNo, TriNo, ReasonSplit},
		{"split even when the halves are right", func(t *callers.Turn) {
			t.ServerTranscripts = []string{"71345", "71345"}
		}, false, TriNo, TriYes, ReasonSplit},
		{"no_answer", func(t *callers.Turn) { t.Heard, t.Marks.ReplyStart = "", nil },
			false, TriYes, TriNo, ReasonNoAnswer},
		{"answer timeout is no_answer", func(t *callers.Turn) { t.Error, t.Heard, t.Marks.ReplyStart = "timeout", "", nil },
			false, TriYes, TriNo, ReasonNoAnswer},
		{"reply timeout", func(t *callers.Turn) { t.Error, t.Heard = "timeout: reply", "713457134" },
			false, TriYes, TriNo, ReasonTimeout},
		{"not_heard beats wrong_reply", func(t *callers.Turn) { t.ServerTranscripts, t.Heard = nil, "" },
			false, TriNo, TriNo, ReasonNotHeard},
		{"wrong_transcript", func(t *callers.Turn) {
			t.ServerTranscripts, t.Heard = []string{"7134"}, "7134"
		}, false, TriNo, TriNo, ReasonWrongTranscript},
		{"wrong_transcript though the reply is right", func(t *callers.Turn) {
			t.ServerTranscripts = []string{"7134"}
		}, false, TriNo, TriYes, ReasonWrongTranscript},
		{"underrun: misheard reply with gaps", func(t *callers.Turn) { t.Heard, t.Underruns = "7345", 2 },
			false, TriYes, TriNo, ReasonUnderrun},
		{"overrun beats underrun: a flood cut the reply", func(t *callers.Turn) {
			t.Error, t.Heard, t.Underruns, t.Dropped = callers.ReasonOverrun, "7", 1, 55000
		}, false, TriYes, TriNo, ReasonOverrun},
		{"overrun beats no_answer: the flood hid the reply's start", func(t *callers.Turn) {
			t.Error, t.Heard, t.Marks.ReplyStart, t.Dropped = callers.ReasonOverrun, "", nil, 55000
		}, false, TriYes, TriNo, ReasonOverrun},
		{"overrun but heard right: understood", func(t *callers.Turn) { t.Error, t.Dropped = callers.ReasonOverrun, 2000 },
			true, TriYes, TriYes, ReasonNone},
		{"wrong_reply", func(t *callers.Turn) { t.Heard = "71346" }, false, TriYes, TriNo, ReasonWrongReply},
		{"wrong_reply with n/a server", func(t *callers.Turn) {
			t.TranscriptChannel, t.ServerTranscripts, t.Heard = false, nil, "71346"
		}, false, TriNA, TriNo, ReasonWrongReply},
		{"no phrase", func(t *callers.Turn) { t.Phrase = "" }, false, TriNo, TriNo, ReasonError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turn := goodTurn(0, 0)
			if tc.mut != nil {
				tc.mut(&turn)
			}
			v := Turn(turn)
			if v.Understood != tc.understood || v.ServerOK != tc.server || v.ReplyOK != tc.reply || v.Reason != tc.reason {
				t.Errorf("got understood=%v server=%v reply=%v reason=%v, want %v %v %v %v",
					v.Understood, v.ServerOK, v.ReplyOK, v.Reason, tc.understood, tc.server, tc.reply, tc.reason)
			}
		})
	}
}

func TestTurnApplied(t *testing.T) {
	turn := goodTurn(0, 0)
	if got := Turn(turn).Applied; !slices.Equal(got, []string{CheckServerTranscript, CheckCallerTranscription}) {
		t.Errorf("with channel: %v", got)
	}
	turn.TranscriptChannel = false
	if got := Turn(turn).Applied; !slices.Equal(got, []string{CheckCallerTranscription}) {
		t.Errorf("without channel: %v", got)
	}
}

func TestCall(t *testing.T) {
	bad := goodTurn(0, 1)
	bad.Heard = "1"
	tests := []struct {
		name   string
		mut    func(c *callers.CallResult)
		turns  []callers.Turn
		clean  bool
		reason Reason
	}{
		{"clean", nil, []callers.Turn{goodTurn(0, 0)}, true, ReasonNone},
		{"not connected", func(c *callers.CallResult) { c.Connected = false }, nil, false, ReasonConnectFailed},
		{"a failed turn", nil, []callers.Turn{goodTurn(0, 0), bad}, false, ReasonWrongReply},
		{"agent hung up beats a failed turn", func(c *callers.CallResult) { c.EndedBy = "agent" },
			[]callers.Turn{bad}, false, ReasonHangup},
		{"cancelled", func(c *callers.CallResult) { c.EndedBy = "cancelled" }, []callers.Turn{goodTurn(0, 0)}, false, ReasonCancelled},
		{"error", func(c *callers.CallResult) { c.EndedBy, c.Error = "error", "ice failed" },
			[]callers.Turn{goodTurn(0, 0)}, false, ReasonError},
		{"error naming a reason", func(c *callers.CallResult) { c.EndedBy, c.Error = "error", "timeout: session start" },
			nil, false, ReasonTimeout},
		{"no turns at all", func(c *callers.CallResult) { c.Turns = 0 }, nil, false, ReasonNoAnswer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := goodCall(0)
			if tc.mut != nil {
				tc.mut(&c)
			}
			v := Call(c, tc.turns)
			if v.Clean != tc.clean || v.Reason != tc.reason {
				t.Errorf("got %+v, want clean=%v reason=%v", v, tc.clean, tc.reason)
			}
		})
	}
}

func TestCross(t *testing.T) {
	var x Cross
	muts := []func(t *callers.Turn){
		nil,
		func(t *callers.Turn) { t.Heard = "1" },
		func(t *callers.Turn) { t.ServerTranscripts = []string{"7"} },
		func(t *callers.Turn) { t.ServerTranscripts, t.Heard = nil, "" },
		func(t *callers.Turn) { t.TranscriptChannel = false },
		func(t *callers.Turn) { t.TranscriptChannel, t.Heard = false, "" },
	}
	for _, m := range muts {
		turn := goodTurn(0, 0)
		if m != nil {
			m(&turn)
		}
		x.Add(Turn(turn))
	}
	want := Cross{HeardRight: 1, HeardWrong: 1, NotHeardRight: 1, NotHeardWrong: 1, NARight: 1, NAWrong: 1}
	if x != want {
		t.Errorf("got %+v, want %+v", x, want)
	}
}

func TestEnums(t *testing.T) {
	for _, r := range append(Reasons(), ReasonNone) {
		got, err := ParseReason(r.String())
		if err != nil || got != r {
			t.Errorf("reason %v: parsed %v, %v", r, got, err)
		}
	}
	if len(FailureReasons()) != 14 || FailureReasons()[0] != ReasonConnectFailed {
		t.Errorf("failure reasons: %v", FailureReasons())
	}
	for _, r := range []Reason{ReasonCancelled, ReasonSlip, ReasonUnjudged} {
		if r.Failed() || slices.Contains(FailureReasons(), r) || !slices.Contains(Reasons(), r) {
			t.Errorf("%v: failed %v, in FailureReasons %v", r, r.Failed(), slices.Contains(FailureReasons(), r))
		}
	}
	if len(Reasons()) != 17 {
		t.Errorf("reasons: %v", Reasons())
	}
	for _, m := range Metrics() {
		if got, err := ParseMetric(m.String()); err != nil || got != m {
			t.Errorf("metric %v: parsed %v, %v", m, got, err)
		}
	}
	for _, tr := range []Tri{TriYes, TriNo, TriNA} {
		if got, err := ParseTri(tr.String()); err != nil || got != tr {
			t.Errorf("tri %v: parsed %v, %v", tr, got, err)
		}
	}
	for _, s := range []string{"", "unknown", "nope"} {
		if _, err := ParseReason(s); err == nil {
			t.Errorf("ParseReason(%q) succeeded", s)
		}
	}
	if Reason(99).String() != "unknown" || Tri(-1).String() != "unknown" || Metric(99).String() != "unknown" {
		t.Error("out of range values should print unknown")
	}
}

// agentSaid gives a turn the agent's own text, in chunks as a protocol streams it.
func agentSaid(t *callers.Turn, chunks ...string) { t.AgentText = chunks }

// The agent's own text is the third witness: it tells misheard (it meant the phrase) from
// wrong_reply (it said other digits), and with two witnesses agreeing a one-digit STT slip is a slip.
func TestTurnWitnesses(t *testing.T) {
	tests := []struct {
		name    string
		mut     func(t *callers.Turn)
		agent   Tri
		reply   Tri
		reason  Reason
		outcome Outcome
		slip    string
	}{
		{"three witnesses agree", func(t *callers.Turn) { agentSaid(t, "You said 71", "345.") },
			TriYes, TriYes, ReasonNone, OutcomeUnderstood, ""},
		{"no agent text: n/a", nil, TriNA, TriYes, ReasonNone, OutcomeUnderstood, ""},
		{"blank agent text: n/a", func(t *callers.Turn) { agentSaid(t, " ", "") }, TriNA, TriYes, ReasonNone, OutcomeUnderstood, ""},
		{"agent text wrong but the caller heard the phrase: understood on the two checks", func(t *callers.Turn) {
			agentSaid(t, "71346")
		}, TriNo, TriYes, ReasonNone, OutcomeUnderstood, ""},
		{"misheard: the agent meant it, the caller heard other digits", func(t *callers.Turn) {
			agentSaid(t, "seven one three four five")
			t.Heard = "7 1 8 8 5"
		}, TriYes, TriNo, ReasonMisheard, OutcomeFailed, ""},
		{"misheard with no server channel", func(t *callers.Turn) {
			t.TranscriptChannel, t.ServerTranscripts = false, nil
			agentSaid(t, "71345")
			t.Heard = "71"
		}, TriYes, TriNo, ReasonMisheard, OutcomeFailed, ""},
		{"wrong_reply: the agent's text says other digits", func(t *callers.Turn) {
			agentSaid(t, "71346")
			t.Heard = "71346"
		}, TriNo, TriNo, ReasonWrongReply, OutcomeFailed, ""},
		{"wrong_reply: the agent's text has no digits", func(t *callers.Turn) {
			agentSaid(t, "Sorry, could you repeat that?")
			t.Heard = ""
		}, TriNo, TriNo, ReasonWrongReply, OutcomeFailed, ""},
		{"wrong_reply beats underrun when the agent's text is wrong", func(t *callers.Turn) {
			agentSaid(t, "99")
			t.Heard, t.Underruns = "9", 2
		}, TriNo, TriNo, ReasonWrongReply, OutcomeFailed, ""},
		{"a caller that stalled past a frame cannot vouch for its underrun: unjudged", func(t *callers.Turn) {
			agentSaid(t, "71345")
			t.Heard, t.Underruns, t.LatenessMax = "7134", 1, 81
		}, TriYes, TriNo, ReasonUnjudged, OutcomeUnjudged, ""},
		{"a caller that stalled still sees the agent's own wrong text", func(t *callers.Turn) {
			agentSaid(t, "99")
			t.Heard, t.LatenessMax = "99", 81
		}, TriNo, TriNo, ReasonWrongReply, OutcomeFailed, ""},
		{"a stall within a frame changes nothing", func(t *callers.Turn) {
			agentSaid(t, "71345")
			t.Heard, t.Underruns, t.LatenessMax = "7134", 1, 12
		}, TriYes, TriNo, ReasonUnderrun, OutcomeFailed, ""},
		{"underrun beats misheard: the playout explains it", func(t *callers.Turn) {
			agentSaid(t, "71345")
			t.Heard, t.Underruns = "7134", 1
		}, TriYes, TriNo, ReasonUnderrun, OutcomeFailed, ""},
		{"wrong_transcript beats wrong_reply: cause first", func(t *callers.Turn) {
			t.ServerTranscripts = []string{"71"}
			agentSaid(t, "71")
			t.Heard = "71"
		}, TriNo, TriNo, ReasonWrongTranscript, OutcomeFailed, ""},
		{"the seed's slip: caller inserted a digit", func(t *callers.Turn) {
			t.Phrase, t.ServerTranscripts, t.Heard = "6806", []string{"six eight zero six"}, "63806"
			agentSaid(t, "6806")
		}, TriYes, TriNo, ReasonSlip, OutcomeSlip, CheckCallerTranscription},
		{"caller slip: a deletion", func(t *callers.Turn) { agentSaid(t, "71345"); t.Heard = "7135" },
			TriYes, TriNo, ReasonSlip, OutcomeSlip, CheckCallerTranscription},
		{"caller slip: a substitution", func(t *callers.Turn) { agentSaid(t, "71345"); t.Heard = "71355" },
			TriYes, TriNo, ReasonSlip, OutcomeSlip, CheckCallerTranscription},
		{"server slip: agent's STT one off, its text and the caller right", func(t *callers.Turn) {
			t.ServerTranscripts = []string{"7 1 3 4 4"}
			agentSaid(t, "71345")
		}, TriYes, TriYes, ReasonSlip, OutcomeSlip, CheckServerTranscript},
		{"two digits off is not a slip", func(t *callers.Turn) { agentSaid(t, "71345"); t.Heard = "71366" },
			TriYes, TriNo, ReasonMisheard, OutcomeFailed, ""},
		{"one off with only one witness agreeing is not a slip", func(t *callers.Turn) { t.Heard = "7135" },
			TriNA, TriNo, ReasonWrongReply, OutcomeFailed, ""},
		{"server one off, no agent text: wrong_transcript", func(t *callers.Turn) {
			t.ServerTranscripts = []string{"71344"}
		}, TriNA, TriYes, ReasonWrongTranscript, OutcomeFailed, ""},
		{"both STT steps one off is not a slip", func(t *callers.Turn) {
			t.ServerTranscripts, t.Heard = []string{"71344"}, "7135"
			agentSaid(t, "71345")
		}, TriYes, TriNo, ReasonWrongTranscript, OutcomeFailed, ""},
		{"the agent's text never slips", func(t *callers.Turn) { agentSaid(t, "71346") },
			TriNo, TriYes, ReasonNone, OutcomeUnderstood, ""},
		{"a split is not a slip", func(t *callers.Turn) {
			t.ServerTranscripts = []string{"7134", "5"}
			agentSaid(t, "71345")
		}, TriYes, TriYes, ReasonSplit, OutcomeFailed, ""},
		{"unjudged: the ears fell behind", func(t *callers.Turn) { t.Unjudged, t.Heard = "decode queue full", "" },
			TriNA, TriNA, ReasonUnjudged, OutcomeUnjudged, ""},
		{"unjudged: transcribe_failed", func(t *callers.Turn) { t.Error, t.Heard = callers.ReasonTranscribe, "" },
			TriNA, TriNA, ReasonUnjudged, OutcomeUnjudged, ""},
		{"unjudged even when the agent's text is right", func(t *callers.Turn) {
			agentSaid(t, "71345")
			t.Unjudged, t.Heard = "decode timeout", ""
		}, TriYes, TriNA, ReasonUnjudged, OutcomeUnjudged, ""},
		{"unjudged but the agent's text wrong: wrong_reply, known without the ears", func(t *callers.Turn) {
			agentSaid(t, "12")
			t.Unjudged = "decode timeout"
		}, TriNo, TriNA, ReasonWrongReply, OutcomeFailed, ""},
		{"unjudged but the server transcript wrong: wrong_transcript", func(t *callers.Turn) {
			t.ServerTranscripts, t.Unjudged = []string{"12"}, "decode timeout"
		}, TriNA, TriNA, ReasonWrongTranscript, OutcomeFailed, ""},
		{"unjudged with no reply audio: no_answer", func(t *callers.Turn) {
			t.Marks.ReplyStart, t.Unjudged = nil, "decode timeout"
		}, TriNA, TriNA, ReasonNoAnswer, OutcomeFailed, ""},
		{"cancelled beats no_answer: the run cut it in flight", func(t *callers.Turn) {
			t.Error, t.Heard, t.Marks.ReplyStart = callers.ReasonCancelled, "", nil
		}, TriNA, TriNo, ReasonCancelled, OutcomeCancelled, ""},
		{"reply_timeout is timeout", func(t *callers.Turn) { t.Error, t.Heard = callers.ReasonReplyTimeout, "7134571345" },
			TriNA, TriNo, ReasonTimeout, OutcomeFailed, ""},
		{"reply_timeout with no reply audio is no_answer", func(t *callers.Turn) {
			t.Error, t.Heard, t.Marks.ReplyStart = callers.ReasonReplyTimeout, "", nil
		}, TriNA, TriNo, ReasonNoAnswer, OutcomeFailed, ""},
		{"connection_lost", func(t *callers.Turn) { t.Error, t.Heard = callers.ReasonConnection+": EOF", "71" },
			TriNA, TriNo, ReasonConnectionLost, OutcomeFailed, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turn := goodTurn(0, 0)
			if tc.mut != nil {
				tc.mut(&turn)
			}
			v := Turn(turn)
			if v.AgentOK != tc.agent || v.ReplyOK != tc.reply || v.Reason != tc.reason || v.Outcome != tc.outcome || v.Slip != tc.slip {
				t.Errorf("got agent=%v reply=%v reason=%v outcome=%v slip=%q, want %v %v %v %v %q",
					v.AgentOK, v.ReplyOK, v.Reason, v.Outcome, v.Slip, tc.agent, tc.reply, tc.reason, tc.outcome, tc.slip)
			}
			if v.Understood != (tc.outcome == OutcomeUnderstood) {
				t.Errorf("understood %v with outcome %v", v.Understood, v.Outcome)
			}
		})
	}
}

func TestTurnAppliedWitnesses(t *testing.T) {
	turn := goodTurn(0, 0)
	agentSaid(&turn, "71345")
	if got := Turn(turn).Applied; !slices.Equal(got, []string{CheckServerTranscript, CheckAgentText, CheckCallerTranscription}) {
		t.Errorf("three witnesses: %v", got)
	}
	turn.Unjudged = "decode queue full"
	if got := Turn(turn).Applied; !slices.Equal(got, []string{CheckServerTranscript, CheckAgentText}) {
		t.Errorf("unjudged: %v", got)
	}
}

func TestParseErrorReason(t *testing.T) {
	tests := []struct {
		in   string
		want Reason
	}{
		{callers.ReasonNoAnswer, ReasonNoAnswer},
		{callers.ReasonReplyTimeout, ReasonTimeout},
		{callers.ReasonHangup, ReasonHangup},
		{callers.ReasonConnection + ": read: connection reset", ReasonConnectionLost},
		{callers.ReasonCancelled, ReasonCancelled},
		{callers.ReasonTranscribe + ": whisper 503", ReasonUnjudged},
		{callers.ReasonOverrun, ReasonOverrun},
		{"timeout: session start", ReasonTimeout},
		{" connect_failed : dial tcp", ReasonConnectFailed},
		{"none", ReasonError},
		{"unknown", ReasonError},
		{"websocket: close 1006", ReasonError},
		{"", ReasonError},
	}
	for _, tc := range tests {
		if got := ParseErrorReason(tc.in); got != tc.want {
			t.Errorf("ParseErrorReason(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestOneEdit(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"6806", "63806", true}, {"71345", "7135", true}, {"71345", "71355", true}, {"71345", "171345", true},
		{"71345", "713451", true}, {"71345", "71345", false}, {"71345", "71366", false}, {"71345", "713", false},
		{"", "7", true}, {"", "", false}, {"12", "21", false},
	}
	for _, tc := range tests {
		if got := oneEdit(tc.a, tc.b); got != tc.want {
			t.Errorf("oneEdit(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestReasonOutcome(t *testing.T) {
	want := map[Reason]Outcome{
		ReasonNone: OutcomeUnderstood, ReasonSlip: OutcomeSlip, ReasonUnjudged: OutcomeUnjudged,
		ReasonCancelled: OutcomeCancelled, ReasonMisheard: OutcomeFailed, ReasonConnectionLost: OutcomeFailed,
		ReasonWrongReply: OutcomeFailed, ReasonUnknown: OutcomeUnknown, Reason(99): OutcomeUnknown,
	}
	for r, o := range want {
		if got := r.Outcome(); got != o || r.Failed() != (o == OutcomeFailed) {
			t.Errorf("%v: outcome %v failed %v, want %v", r, got, r.Failed(), o)
		}
	}
	for o, judged := range map[Outcome]bool{OutcomeUnderstood: true, OutcomeFailed: true, OutcomeSlip: true,
		OutcomeUnjudged: false, OutcomeCancelled: false} {
		if o.Judged() != judged {
			t.Errorf("%v judged %v", o, o.Judged())
		}
	}
}

// Records and reports store reason names: the names of the reasons that were there before stay.
func TestReasonNamesStable(t *testing.T) {
	want := map[string]Reason{
		"none": ReasonNone, "connect_failed": ReasonConnectFailed, "hangup": ReasonHangup, "cancelled": ReasonCancelled,
		"error": ReasonError, "overrun": ReasonOverrun, "late_transcript": ReasonLateTranscript, "split": ReasonSplit,
		"no_answer": ReasonNoAnswer, "timeout": ReasonTimeout, "not_heard": ReasonNotHeard,
		"wrong_transcript": ReasonWrongTranscript, "underrun": ReasonUnderrun, "wrong_reply": ReasonWrongReply,
		"connection_lost": ReasonConnectionLost, "misheard": ReasonMisheard, "slip": ReasonSlip, "unjudged": ReasonUnjudged,
	}
	for n, r := range want {
		b, _ := r.MarshalText()
		var back Reason
		if string(b) != n || back.UnmarshalText(b) != nil || back != r {
			t.Errorf("%v: marshals %q, reads back %v", r, b, back)
		}
	}
	for _, o := range []Outcome{OutcomeUnderstood, OutcomeFailed, OutcomeSlip, OutcomeUnjudged, OutcomeCancelled} {
		if got, err := ParseOutcome(o.String()); err != nil || got != o {
			t.Errorf("outcome %v: parsed %v, %v", o, got, err)
		}
	}
	for _, b := range []Basis{BasisAgentText, BasisServerTranscript, BasisNone} {
		if got, err := ParseBasis(b.String()); err != nil || got != b {
			t.Errorf("basis %v: parsed %v, %v", b, got, err)
		}
	}
	if _, err := ParseOutcome("unknown"); err == nil {
		t.Error("ParseOutcome(unknown) succeeded")
	}
}

func TestCallOutcomes(t *testing.T) {
	misheard := goodTurn(0, 1)
	agentSaid(&misheard, "71345")
	misheard.Heard = "71"
	cancelled := goodTurn(0, 2)
	cancelled.Error, cancelled.Heard, cancelled.Marks.ReplyStart = callers.ReasonCancelled, "", nil
	unjudged := goodTurn(0, 1)
	unjudged.Unjudged = "decode queue full"
	tests := []struct {
		name   string
		mut    func(c *callers.CallResult)
		turns  []callers.Turn
		reason Reason
	}{
		{"a failed turn beats a cancelled one", func(c *callers.CallResult) { c.EndedBy = callers.EndedByCancelled },
			[]callers.Turn{goodTurn(0, 0), misheard, cancelled}, ReasonMisheard},
		{"cancelled before its first turn: cancelled, not no_answer", func(c *callers.CallResult) {
			c.EndedBy, c.Turns = callers.EndedByCancelled, 0
		}, nil, ReasonCancelled},
		{"a cancelled turn in a call ended normally", nil, []callers.Turn{goodTurn(0, 0), cancelled}, ReasonCancelled},
		{"an unjudged turn: not clean, not failed", nil, []callers.Turn{goodTurn(0, 0), unjudged}, ReasonUnjudged},
		{"connection_lost call error", func(c *callers.CallResult) {
			c.EndedBy, c.Error = callers.EndedByError, callers.ReasonConnection
		}, []callers.Turn{goodTurn(0, 0)}, ReasonConnectionLost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := goodCall(0)
			if tc.mut != nil {
				tc.mut(&c)
			}
			if v := Call(c, tc.turns); v.Clean || v.Reason != tc.reason {
				t.Errorf("got %+v, want reason %v", v, tc.reason)
			}
		})
	}
}

func TestCrossWitnesses(t *testing.T) {
	tests := []struct {
		name string
		mut  func(t *callers.Turn)
		want Cross
	}{
		{"misheard: its own column", func(t *callers.Turn) { agentSaid(t, "71345"); t.Heard = "7" }, Cross{Misheard: 1}},
		{"misheard with no channel", func(t *callers.Turn) {
			t.TranscriptChannel, t.ServerTranscripts = false, nil
			agentSaid(t, "71345")
			t.Heard = "7"
		}, Cross{Misheard: 1}},
		{"the agent said other digits: heard but answered wrong", func(t *callers.Turn) { agentSaid(t, "1"); t.Heard = "1" },
			Cross{HeardWrong: 1}},
		{"caller slip stays in its cell", func(t *callers.Turn) { agentSaid(t, "71345"); t.Heard = "7134" }, Cross{Misheard: 1}},
		{"server slip stays in its cell", func(t *callers.Turn) { agentSaid(t, "71345"); t.ServerTranscripts = []string{"7134"} },
			Cross{NotHeardRight: 1}},
		{"unjudged apart", func(t *callers.Turn) { t.Unjudged = "decode timeout" }, Cross{Unjudged: 1}},
		{"unjudged but the agent's text wrong: answered wrong", func(t *callers.Turn) {
			agentSaid(t, "1")
			t.Unjudged = "decode timeout"
		}, Cross{HeardWrong: 1}},
		{"unjudged, the server wrong, the agent's text right: the agent's text is the reply", func(t *callers.Turn) {
			agentSaid(t, "71345")
			t.ServerTranscripts, t.Unjudged = []string{"1"}, "decode timeout"
		}, Cross{NotHeardRight: 1}},
		{"cancelled apart", func(t *callers.Turn) { t.Error, t.Marks.ReplyStart, t.Heard = "cancelled", nil, "" }, Cross{Cancelled: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turn := goodTurn(0, 0)
			tc.mut(&turn)
			var x Cross
			x.Add(Turn(turn))
			if x != tc.want {
				t.Errorf("got %+v, want %+v", x, tc.want)
			}
		})
	}
}

func TestTally(t *testing.T) {
	muts := []func(t *callers.Turn){
		nil, nil,
		func(t *callers.Turn) { t.Heard = "1" },
		func(t *callers.Turn) { agentSaid(t, "71345"); t.Heard = "7134" },
		func(t *callers.Turn) { t.Unjudged = "decode queue full" },
		func(t *callers.Turn) { t.Error, t.Marks.ReplyStart, t.Heard = "cancelled", nil, "" },
	}
	var turns []callers.Turn
	for i, m := range muts {
		turn := goodTurn(0, i)
		if m != nil {
			m(&turn)
		}
		turns = append(turns, turn)
	}
	got := Tally(turns)
	want := TurnTally{Total: 6, Understood: 2, Failed: 1, Slips: 1, Unjudged: 1, Cancelled: 1}
	if got != want || got.Judged() != 4 {
		t.Errorf("got %+v (judged %d), want %+v (judged 4)", got, got.Judged(), want)
	}
}
