package twilio

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/speech"
)

const injected = 300 * time.Millisecond

// callCase is one call against the fake agent and what its records must show.
type callCase struct {
	name   string
	b      behaviour
	cancel time.Duration // cancel the call's context this long after it starts
	plan   func(*callers.Plan)
	dial   func(*Dialer, *agent)
	check  func(t *testing.T, res callers.CallResult, turns []callers.Turn, obs []observed, a *agent)
}

func TestCalls(t *testing.T) {
	p, _ := fixtures(t)
	cases := []callCase{
		{name: "echo", b: behaviour{Delay: injected, Chunk: 40 * time.Millisecond, Mark: true, Transcripts: true},
			dial: withEvents, check: checkEcho},
		{name: "gap", b: behaviour{Delay: injected, Chunk: 40 * time.Millisecond, GapAt: 600 * time.Millisecond, Gap: 200 * time.Millisecond},
			check: checkGap},
		{name: "whole reply at once", b: behaviour{Delay: injected, Mark: true}, check: checkBurst},
		{name: "20 ms frames", b: behaviour{Delay: injected, Chunk: 20 * time.Millisecond}, check: checkTiming},
		{name: "no answer", b: behaviour{Silent: true}, plan: func(p *callers.Plan) { p.MaxTurns, p.Timeouts.Answer = 1, time.Second },
			check: checkNoAnswer},
		{name: "hang-up", b: behaviour{HangupAfter: 1}, check: checkHangup},
		{name: "wrong reply", b: behaviour{Delay: injected, Chunk: 40 * time.Millisecond, Wrong: true}, check: checkWrong},
		{name: "clear", b: behaviour{Delay: injected, Mark: true, ClearAfter: 500 * time.Millisecond},
			plan: func(p *callers.Plan) { p.MaxTurns = 1 }, check: checkClear},
		{name: "refused", b: behaviour{Refuse: true}, check: checkRefused},
		{name: "refused after start", b: behaviour{RefuseLate: true}, check: checkRefused},
		{name: "cancelled", b: behaviour{Delay: injected, Chunk: 40 * time.Millisecond}, cancel: 1500 * time.Millisecond, check: checkCancelled},
		{name: "late transcript", b: behaviour{Delay: injected, Chunk: 40 * time.Millisecond, Transcripts: true, LateTurn: 1},
			dial: withEvents, check: checkLate},
		{name: "twiml signed, events after 404s", b: behaviour{Delay: injected, Chunk: 40 * time.Millisecond, Transcripts: true, AuthToken: "s3cret", Events404: 3},
			plan: func(p *callers.Plan) { p.MaxTurns = 1 }, dial: withTwiML, check: checkTwiML},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runCase(t, p, tc)
		})
	}
}

func runCase(t *testing.T, p any, tc callCase) {
	pl, model := fixtures(t)
	a := newAgent(t, pl, tc.b)
	// Its own transport, so idle connections can be closed and leaks show.
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	d := &Dialer{URL: a.wsURL(), HTTPClient: hc}
	if tc.dial != nil {
		tc.dial(d, a)
	}
	plan := callers.Plan{Call: 3, Seed: uint64(len(tc.name)), Until: time.Now().Add(time.Minute), MaxTurns: 2,
		PauseMin: 100 * time.Millisecond, PauseMax: 300 * time.Millisecond}
	if tc.plan != nil {
		tc.plan(&plan)
	}
	deadline, cancelDeadline := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancelDeadline()
	ctx, cancel := context.WithCancel(deadline)
	defer cancel()
	if tc.cancel > 0 {
		time.AfterFunc(tc.cancel, cancel)
	}
	s := &sink{}
	res := callers.Run(ctx, d, pl, plan, s, model)
	if deadline.Err() != nil {
		t.Fatalf("call overran its deadline: %+v", res)
	}
	a.close()
	if len(s.calls) != 1 || s.calls[0] != res {
		t.Errorf("sink got %d call results", len(s.calls))
	}
	turns, obs := s.Turns(), a.observed()
	for _, tr := range turns {
		t.Logf("turn %d %s: marks se=%v rs=%v re=%v tr=%v heard=%q replies=%d underruns=%d gap=%v audio=%v late p99=%v max=%v err=%q server=%q late=%q",
			tr.Turn, tr.Phrase, ms(tr.Marks.SpeechEnd), ms(tr.Marks.ReplyStart), ms(tr.Marks.ReplyEnd), ms(tr.Marks.Transcript),
			tr.Heard, tr.Replies, tr.Underruns, tr.LongestGap, tr.AgentAudio, tr.LatenessP99, tr.LatenessMax, tr.Error,
			tr.ServerTranscripts, tr.LateTranscripts)
	}
	tc.check(t, res, turns, obs, a)
}

func withEvents(d *Dialer, a *agent) { d.EventsURL = a.srv.URL + "/events/{callSid}" }

func withTwiML(d *Dialer, a *agent) {
	d.URL, d.TwiMLURL, d.AuthToken = "", a.srv.URL+"/twiml", a.b.AuthToken
	withEvents(d, a)
}

// wantTurns checks the call ended normally with n turns, each answered.
func wantTurns(t *testing.T, res callers.CallResult, turns []callers.Turn, n int) {
	t.Helper()
	if res.EndedBy != callers.EndedByCaller || res.Error != "" || !res.Connected || res.Turns != n {
		t.Fatalf("call: %+v", res)
	}
	if len(turns) != n {
		t.Fatalf("%d turns, want %d", len(turns), n)
	}
	for _, tr := range turns {
		if tr.Error != "" || tr.Marks.ReplyStart == nil || tr.Marks.ReplyEnd == nil || tr.Replies != 1 {
			t.Errorf("turn %d not answered cleanly: err %q replies %d", tr.Turn, tr.Error, tr.Replies)
		}
	}
}

// checkTiming: speech_end -> reply_start is what the agent did within ±15 ms, underruns are
// counted as the agent's own send log says a far end heard them, and the caller heard the digits.
func checkTiming(t *testing.T, res callers.CallResult, turns []callers.Turn, obs []observed, _ *agent) {
	wantTurns(t, res, turns, 2)
	for i, tr := range turns {
		truth := replyTruth(obs[i])
		got := ms(tr.Marks.ReplyStart) - ms(tr.Marks.SpeechEnd)
		t.Logf("turn %d: speech_end->reply_start %v; agent's actual delay %v (asked %v): error %v; underruns %d (truth %d, borderline %d)",
			tr.Turn, got, truth.delay, obs[i].firstSent.Sub(obs[i].heardEnd), got-truth.delay, tr.Underruns, truth.underruns, truth.borderline)
		if d := got - truth.delay; d < -15*time.Millisecond || d > 15*time.Millisecond {
			t.Errorf("turn %d: speech_end->reply_start %v, agent's delay %v: off by more than 15 ms", tr.Turn, got, truth.delay)
		}
		checkUnderruns(t, tr, truth)
		if tr.Heard != obs[i].answered {
			t.Errorf("turn %d: heard %q, agent said %q", tr.Turn, tr.Heard, obs[i].answered)
		}
		if d := tr.AgentAudio.Duration() - truth.voiced; d < -frame || d > time.Duration(1+tr.Underruns)*frame {
			t.Errorf("turn %d: agent audio %v, reply voiced for %v", tr.Turn, tr.AgentAudio, truth.voiced)
		}
	}
}

func checkUnderruns(t *testing.T, tr callers.Turn, truth truth) {
	t.Helper()
	if d := tr.Underruns - truth.underruns; d < -truth.borderline || d > truth.borderline {
		t.Errorf("turn %d: %d underruns, the agent's log says %d (%d borderline)", tr.Turn, tr.Underruns, truth.underruns, truth.borderline)
	}
	if d := tr.LongestGap.Duration() - truth.longest; truth.borderline == 0 && (d < -frame || d > frame) {
		t.Errorf("turn %d: longest gap %v, the agent's log says %v", tr.Turn, tr.LongestGap, truth.longest)
	}
}

func checkEcho(t *testing.T, res callers.CallResult, turns []callers.Turn, obs []observed, a *agent) {
	checkTiming(t, res, turns, obs, a)
	checkMarks(t, turns, obs, false)
	for _, tr := range turns {
		want := speech.Words(tr.Phrase)
		if !tr.TranscriptChannel || len(tr.ServerTranscripts) != 1 || tr.ServerTranscripts[0] != want || len(tr.LateTranscripts) != 0 {
			t.Errorf("turn %d: server transcripts %q late %q, want [%q]", tr.Turn, tr.ServerTranscripts, tr.LateTranscripts, want)
		}
		if d := ms(tr.Marks.Transcript) - ms(tr.Marks.SpeechEnd); d < 100*time.Millisecond || d > 150*time.Millisecond {
			t.Errorf("turn %d: speech_end->transcript %v, agent sent it after 100 ms", tr.Turn, d)
		}
	}
	if a.stops != 1 {
		t.Errorf("agent saw %d stops", a.stops)
	}
}

// checkMarks: each mark is echoed once the reply before it has played, not when it arrived.
func checkMarks(t *testing.T, turns []callers.Turn, obs []observed, cleared bool) {
	for i, o := range obs {
		if o.markEcho.IsZero() {
			t.Errorf("turn %d: mark never echoed", o.turn)
			continue
		}
		// The far end plays from the first arrival, which lies between the write's start and end.
		earliest, played := o.firstWrite.Add(o.replyDur), o.firstSent.Add(o.replyDur)
		if cleared {
			earliest, played = o.clearSent, o.clearSent
		}
		if d := o.markEcho.Sub(earliest); d < -5*time.Millisecond {
			t.Errorf("turn %d: mark echoed %v before the audio before it could have played out", o.turn, -d)
		}
		if d := o.markEcho.Sub(played); d > 60*time.Millisecond {
			t.Errorf("turn %d: mark echoed %v after the audio before it played out", o.turn, d)
		}
		if i < len(turns) && !cleared {
			t.Logf("turn %d: mark sent %v before echo; echo %v after playout end", o.turn, o.markEcho.Sub(o.markSent), o.markEcho.Sub(played))
		}
	}
}

// checkGap: the injected 200 ms hole is one underrun, its gap the agent's log's within a frame.
func checkGap(t *testing.T, res callers.CallResult, turns []callers.Turn, obs []observed, a *agent) {
	checkTiming(t, res, turns, obs, a)
	for i, tr := range turns {
		truth := replyTruth(obs[i])
		t.Logf("turn %d: %d underruns, longest gap %v (agent's log: %d, %v)", tr.Turn, tr.Underruns, tr.LongestGap, truth.underruns, truth.longest)
		if truth.underruns == 1 && tr.Underruns != 1 {
			t.Errorf("turn %d: %d underruns for one injected gap", tr.Turn, tr.Underruns)
		}
		// The hole is measured against play-out from the first arrival, so a late first send
		// shortens it: the agent's log, not the 200 ms asked for, is what the caller must match.
		if truth.underruns == 1 && truth.longest < 100*time.Millisecond {
			t.Errorf("turn %d: the agent's log shows a %v hole for 200ms injected", tr.Turn, truth.longest)
		}
		if d := tr.LongestGap.Duration() - truth.longest; d < -frame || d > frame {
			t.Errorf("turn %d: longest gap %v, the agent's log says %v (200ms injected)", tr.Turn, tr.LongestGap, truth.longest)
		}
	}
}

func checkBurst(t *testing.T, res callers.CallResult, turns []callers.Turn, obs []observed, a *agent) {
	checkTiming(t, res, turns, obs, a)
	checkMarks(t, turns, obs, false)
}

func checkNoAnswer(t *testing.T, res callers.CallResult, turns []callers.Turn, _ []observed, _ *agent) {
	if res.EndedBy != callers.EndedByCaller || len(turns) != 1 {
		t.Fatalf("call %+v, %d turns", res, len(turns))
	}
	tr := turns[0]
	if tr.Error != callers.ReasonNoAnswer || tr.Marks.ReplyStart != nil || tr.Heard != "" || tr.Replies != 0 {
		t.Errorf("turn: error %q reply_start %v heard %q", tr.Error, tr.Marks.ReplyStart, tr.Heard)
	}
	if d := res.Duration.Duration() - ms(tr.Marks.SpeechEnd); d < time.Second || d > 2*time.Second {
		t.Errorf("call lasted %v after speech_end with a 1 s answer timeout", d)
	}
}

func checkHangup(t *testing.T, res callers.CallResult, turns []callers.Turn, _ []observed, _ *agent) {
	if res.EndedBy != callers.EndedByAgent || res.Error != "" || len(turns) != 1 {
		t.Fatalf("call %+v, %d turns", res, len(turns))
	}
	if tr := turns[0]; !tr.Hangup || tr.Error != callers.ReasonHangup {
		t.Errorf("turn: hangup %v error %q", tr.Hangup, tr.Error)
	}
}

func checkWrong(t *testing.T, res callers.CallResult, turns []callers.Turn, obs []observed, _ *agent) {
	wantTurns(t, res, turns, 2)
	for i, tr := range turns {
		if tr.Heard == tr.Phrase || tr.Heard != obs[i].answered {
			t.Errorf("turn %d: said %q, agent answered %q, caller heard %q", tr.Turn, tr.Phrase, obs[i].answered, tr.Heard)
		}
	}
}

func checkClear(t *testing.T, res callers.CallResult, turns []callers.Turn, obs []observed, _ *agent) {
	wantTurns(t, res, turns, 1)
	cut := obs[0].clearSent.Sub(obs[0].firstSent)
	if a := turns[0].AgentAudio.Duration(); a > cut || a < cut-200*time.Millisecond {
		t.Errorf("agent audio %v played, want at most the %v before the clear", a, cut)
	}
	checkMarks(t, turns, obs, true)
}

func checkRefused(t *testing.T, res callers.CallResult, turns []callers.Turn, _ []observed, _ *agent) {
	if res.EndedBy != callers.EndedByError || res.Connected || !strings.Contains(res.Error, "refused") || !strings.Contains(res.Error, "1013") || len(turns) != 0 {
		t.Errorf("call %+v, %d turns", res, len(turns))
	}
}

func checkLate(t *testing.T, res callers.CallResult, turns []callers.Turn, _ []observed, _ *agent) {
	wantTurns(t, res, turns, 2)
	first, second := turns[0], turns[1]
	if len(first.ServerTranscripts) != 0 || len(first.LateTranscripts) != 1 || first.LateTranscripts[0] != speech.Words(first.Phrase) || first.Marks.Transcript != nil {
		t.Errorf("turn 1: server %q late %q", first.ServerTranscripts, first.LateTranscripts)
	}
	if len(second.ServerTranscripts) != 1 || len(second.LateTranscripts) != 0 {
		t.Errorf("turn 2: server %q late %q", second.ServerTranscripts, second.LateTranscripts)
	}
}

func checkTwiML(t *testing.T, res callers.CallResult, turns []callers.Turn, _ []observed, a *agent) {
	wantTurns(t, res, turns, 1)
	if a.params["via"] != "twiml" || a.params["CallSid"] != res.CallID || !strings.HasPrefix(res.CallID, "CA") {
		t.Errorf("start customParameters %v, call %q", a.params, res.CallID)
	}
	if len(turns[0].ServerTranscripts) != 1 {
		t.Errorf("server transcripts %q", turns[0].ServerTranscripts)
	}
	if res.SessionStart == nil || ms(res.SessionStart) < 3*eventsInterval {
		t.Errorf("session_start %v: ready before the events stream opened", ms(res.SessionStart))
	}
}

func checkCancelled(t *testing.T, res callers.CallResult, turns []callers.Turn, _ []observed, a *agent) {
	if res.EndedBy != callers.EndedByCancelled || len(turns) != 1 || turns[0].Error != callers.ReasonCancelled {
		t.Fatalf("call %+v, turns %+v", res, turns)
	}
	if d := res.Duration.Duration(); d > 1700*time.Millisecond {
		t.Errorf("took %v to hang up after a cancel at 1.5 s", d)
	}
	if a.stops != 1 {
		t.Errorf("agent saw %d stops, want the caller's one", a.stops)
	}
}
