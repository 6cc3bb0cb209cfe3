package callers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/speech"
)

func TestScriptValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    Script
		bad  int
	}{
		{"ok", Script{Cues: []Cue{{Digits: "1234"}, {Digits: "5678", BargeIn: time.Second}}}, 0},
		{"no cues", Script{}, 1},
		{"empty digits and a barge-in first", Script{Cues: []Cue{{BargeIn: time.Second}}}, 2},
		{"negatives", Script{Cues: []Cue{{Digits: "1234", Pause: -1}}, Hold: -1}, 2},
	}
	for _, tt := range tests {
		errs := tt.s.Validate()
		if len(errs) != tt.bad {
			t.Errorf("%s: %d errors %v, want %d", tt.name, len(errs), errs, tt.bad)
		}
		for _, err := range errs {
			if !errors.Is(err, ErrScript) {
				t.Errorf("%s: %v is not ErrScript", tt.name, err)
			}
		}
	}
}

// A script's cues land where it says: one over the reply before it, one a pause after a reply.
func TestRunScriptTiming(t *testing.T) {
	t.Parallel()
	p := testPool(t)
	a, b, c := p.Clip(0).Digits, p.Clip(1).Digits, p.Clip(2).Digits
	s := Script{Call: 3, Seed: 9, Hold: 500 * time.Millisecond,
		Timeouts: Timeouts{Answer: 3 * time.Second, Reply: 8 * time.Second},
		Cues:     []Cue{{Digits: a}, {Digits: b, BargeIn: 300 * time.Millisecond}, {Digits: c, Pause: 1200 * time.Millisecond}}}
	d := &fakeDialer{s: script{delay: time.Second, transcript: 100 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := RunScript(ctx, d, p, s, nil)
	if tr.EndedBy != EndedByCaller || tr.Error != "" || len(tr.Said) != 3 || tr.Ready == nil {
		t.Fatalf("trace ended %q (%s) with %d said", tr.EndedBy, tr.Error, len(tr.Said))
	}
	if !d.conns[0].closed {
		t.Error("call not hung up")
	}
	near := func(what string, got, want time.Duration) {
		t.Helper()
		if tol := 30 * time.Millisecond * timingSlack; got < want-tol || got > want+tol {
			t.Errorf("%s %v, want %v", what, got, want)
		}
	}
	reply := func(i int) HeardReply {
		t.Helper()
		r, ok := tr.ReplyBySeq(tr.Said[i].Reply)
		if !ok || r.End == nil {
			t.Fatalf("cue %d: no reply (%+v)", i, tr.Replies)
		}
		return r
	}
	near("barge-in", (tr.Said[1].SpeechStart - reply(0).Start).Duration(), 300*time.Millisecond)
	near("pause", (tr.Said[2].SpeechStart - *reply(1).End).Duration(), 1200*time.Millisecond)
	if hold := (tr.Duration - *reply(2).End).Duration(); hold < 500*time.Millisecond {
		t.Errorf("hung up %v after the last reply, want the 500 ms hold", hold)
	}
	if len(tr.Voiced) == 0 || len(tr.Audio) == 0 || tr.Voiced[0].Start < *tr.Connect {
		t.Errorf("arrivals: voiced %v audio %v", tr.Voiced, tr.Audio)
	}
	turns := tr.Turns()
	for i, turn := range turns {
		if len(turn.ServerTranscripts) != 1 || turn.ServerTranscripts[0] != speech.Words(turn.Phrase) || turn.Marks.Transcript == nil {
			t.Errorf("turn %d %q: transcripts %q late %q", i+1, turn.Phrase, turn.ServerTranscripts, turn.LateTranscripts)
		}
		if turn.Error != "" || turn.Marks.ReplyStart == nil || turn.Call != 3 {
			t.Errorf("turn %d: %+v", i+1, turn)
		}
	}
	if res := tr.Result(); res.Turns != 3 || res.Seed != 9 || !res.Connected {
		t.Errorf("result %+v", res)
	}
}

// A script that cannot be spoken fails before dialling.
func TestRunScriptBadScript(t *testing.T) {
	t.Parallel()
	d := &fakeDialer{}
	tr := RunScript(context.Background(), d, testPool(t), Script{}, nil)
	if tr.EndedBy != EndedByError || tr.Connected || len(d.conns) != 0 {
		t.Errorf("trace %+v", tr)
	}
}

// An agent that never becomes ready ends the script with ErrNotReady after the connect timeout,
// and nothing is said.
func TestRunScriptNotReady(t *testing.T) {
	t.Parallel()
	p := testPool(t)
	s := Script{Call: 1, Seed: 1, Timeouts: Timeouts{Connect: 300 * time.Millisecond}, Cues: []Cue{{Digits: p.Clip(0).Digits}}}
	d := &fakeDialer{s: script{noReady: true}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	tr := RunScript(ctx, d, p, s, nil)
	if tr.EndedBy != EndedByError || !strings.Contains(tr.Error, ErrNotReady.Error()) || tr.Ready != nil || len(tr.Said) != 0 {
		t.Errorf("trace ended %q (%s), ready %v, %d said", tr.EndedBy, tr.Error, tr.Ready, len(tr.Said))
	}
	if took := time.Since(start); took > 300*time.Millisecond*timingSlack+2*time.Second {
		t.Errorf("took %v to give up", took)
	}
}
