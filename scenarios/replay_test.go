package scenarios

import (
	"errors"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
)

func TestReplayScript(t *testing.T) {
	p := func(v float64) *callers.Ms { m := ms(v); return &m }
	call := callers.CallResult{Call: 4, Step: 1, Seed: 77, SessionStart: p(300)}
	turns := []callers.Turn{
		{Turn: 1, Phrase: "1234", Marks: callers.Marks{SpeechStart: p(500), SpeechEnd: p(2000), ReplyStart: p(3500), ReplyEnd: p(5000)}},
		{Turn: 2, Phrase: "5678", Pause: p(700), Marks: callers.Marks{SpeechStart: p(6200), SpeechEnd: p(8000), ReplyStart: p(9500), ReplyEnd: p(11000)}},
		{Turn: 3, Phrase: "8135", Marks: callers.Marks{SpeechStart: p(10000), SpeechEnd: p(11500)}}, // over turn 2's reply
		{Turn: 4, Phrase: "2468", Marks: callers.Marks{SpeechStart: p(15000), SpeechEnd: p(16500)}}, // turn 3 got no reply
	}
	s, err := ReplayScript(call, turns, callers.Timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	want := []callers.Cue{
		{Digits: "1234", Pause: 200 * time.Millisecond, Transcribe: true},
		{Digits: "5678", Split: 700 * time.Millisecond, Pause: 1200 * time.Millisecond, Transcribe: true},
		{Digits: "8135", BargeIn: 500 * time.Millisecond, Transcribe: true},
		{Digits: "2468", Pause: 3500 * time.Millisecond, Transcribe: true},
	}
	if s.Call != 4 || s.Seed != 77 || s.Step != 1 || len(s.Cues) != len(want) {
		t.Fatalf("script %+v", s)
	}
	for i, c := range s.Cues {
		if c != want[i] {
			t.Errorf("cue %d: %+v, want %+v", i, c, want[i])
		}
	}
	if errs := s.Validate(); len(errs) > 0 {
		t.Errorf("replay script invalid: %v", errs)
	}
	if _, err := ReplayScript(call, nil, callers.Timeouts{}); !errors.Is(err, ErrReplay) {
		t.Errorf("no turns: %v", err)
	}
	if _, err := ReplayScript(call, []callers.Turn{{Turn: 1}}, callers.Timeouts{}); !errors.Is(err, ErrReplay) {
		t.Errorf("unspoken turn: %v", err)
	}
}

func TestFindCallAndTurns(t *testing.T) {
	calls := []callers.CallResult{{Call: 0, CallID: "CA1"}, {Call: 7, CallID: "pc-7"}, {Call: 7, Step: 1, CallID: "pc-8"}}
	for id, want := range map[string]string{"7": "pc-7", "CA1": "CA1", "pc-8": "pc-8"} {
		if c, err := FindCall(calls, id, -1); err != nil || c.CallID != want {
			t.Errorf("FindCall(%q) = %s, %v; want %s", id, c.CallID, err, want)
		}
	}
	if c, err := FindCall(calls, "7", 1); err != nil || c.CallID != "pc-8" {
		t.Errorf("call 7 of step 1: %+v, %v", c, err)
	}
	if _, err := FindCall(calls, "9", -1); !errors.Is(err, ErrReplay) {
		t.Errorf("missing call: %v", err)
	}
	turns := []callers.Turn{{Call: 7, Turn: 2}, {Call: 0, Turn: 1}, {Call: 7, Turn: 1}, {Call: 7, Step: 1, Turn: 1}}
	got := CallTurns(turns, calls[1])
	if len(got) != 2 || got[0].Turn != 1 || got[1].Turn != 2 {
		t.Errorf("call turns %+v", got)
	}
	rows := ReplayRows(got, got[:1])
	if len(rows) != 2 || rows[1].Again != nil || rows[1].Before == nil || rows[0].Turn != 1 {
		t.Errorf("rows %+v", rows)
	}
}
