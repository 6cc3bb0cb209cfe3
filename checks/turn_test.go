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
	want := Cross{1, 1, 1, 1, 1, 1}
	if x != want {
		t.Errorf("got %+v, want %+v", x, want)
	}
}

func TestEnums(t *testing.T) {
	for _, r := range append(FailureReasons(), ReasonNone) {
		got, err := ParseReason(r.String())
		if err != nil || got != r {
			t.Errorf("reason %v: parsed %v, %v", r, got, err)
		}
	}
	if len(FailureReasons()) != 13 || FailureReasons()[0] != ReasonConnectFailed {
		t.Errorf("failure reasons: %v", FailureReasons())
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
