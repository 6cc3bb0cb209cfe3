package callers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/tts"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ttsVoice(name string) (tts.Voice, error) { return tts.Flite(name) }

func basePlan() Plan {
	return Plan{Call: 1, Seed: 42, Until: time.Now().Add(time.Minute), MaxTurns: 2,
		PauseMin: 50 * time.Millisecond, PauseMax: 150 * time.Millisecond,
		Timeouts: Timeouts{Answer: time.Second, Reply: 5 * time.Second}}
}

// run places one call with a deadline and returns what the sink got.
func run(t *testing.T, d Dialer, plan Plan, cancelAfter time.Duration) (CallResult, *recorder) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if cancelAfter > 0 {
		time.AfterFunc(cancelAfter, cancel)
	}
	rec := &recorder{}
	res := New(d, testPool(t), nil).Run(ctx, plan, rec)
	if len(rec.calls) != 1 || rec.calls[0] != res {
		t.Fatalf("sink got %d results", len(rec.calls))
	}
	return res, rec
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		s           script
		plan        func(*Plan)
		cancelAfter time.Duration
		check       func(t *testing.T, res CallResult, rec *recorder)
	}{
		{name: "two turns", s: script{delay: 200 * time.Millisecond, transcript: 100 * time.Millisecond}, check: func(t *testing.T, res CallResult, rec *recorder) {
			wantEnd(t, res, EndedByCaller, 2, rec)
			for i, tr := range rec.turns {
				if tr.Turn != i+1 || tr.Error != "" || tr.Replies != 1 || tr.Transport != "fake" || tr.CallID != "fake-1" || !tr.TranscriptChannel {
					t.Errorf("turn %+v", tr)
				}
				// The reply starts at the phrase's first voiced frame; the threshold may take one more.
				if d := ms(tr.Marks.ReplyStart) - ms(tr.Marks.SpeechEnd); d < 195*time.Millisecond || d > 235*time.Millisecond {
					t.Errorf("turn %d: reply after %v, agent waited 200ms", tr.Turn, d)
				}
				if len(tr.ServerTranscripts) != 1 || tr.ServerTranscripts[0] != speech.Words(tr.Phrase) {
					t.Errorf("turn %d: transcripts %q", tr.Turn, tr.ServerTranscripts)
				}
				if tr.LatenessMax < tr.LatenessP99 || tr.Wall.IsZero() {
					t.Errorf("turn %d: lateness %v/%v wall %v", tr.Turn, tr.LatenessP99, tr.LatenessMax, tr.Wall)
				}
			}
			wantStates(t, rec, StateDialing, StateSpeaking, StateWaiting, StateListening, StatePausing, StateSpeaking, StateWaiting, StateListening, StateDone)
		}},
		{name: "until ends the call after the turn under way", s: script{delay: 100 * time.Millisecond},
			plan:  func(p *Plan) { p.MaxTurns, p.Until = 0, time.Now().Add(500*time.Millisecond) },
			check: func(t *testing.T, res CallResult, rec *recorder) { wantEnd(t, res, EndedByCaller, 1, rec) }},
		{name: "greeting plays out first", s: script{delay: 100 * time.Millisecond, greeting: time.Second},
			plan: func(p *Plan) { p.MaxTurns = 1 },
			check: func(t *testing.T, res CallResult, rec *recorder) {
				wantEnd(t, res, EndedByCaller, 1, rec)
				if s := ms(rec.turns[0].Marks.SpeechStart); s < 1800*time.Millisecond {
					t.Errorf("spoke at %v over a 1 s greeting (+800 ms reply silence)", s)
				}
			}},
		{name: "no answer", s: script{silent: true}, plan: func(p *Plan) { p.MaxTurns = 1 },
			check: func(t *testing.T, res CallResult, rec *recorder) {
				wantEnd(t, res, EndedByCaller, 1, rec)
				if tr := rec.turns[0]; tr.Error != ReasonNoAnswer || tr.Marks.ReplyStart != nil {
					t.Errorf("turn %+v", tr)
				}
			}},
		{name: "cancelled while speaking", s: script{delay: 100 * time.Millisecond}, cancelAfter: 500 * time.Millisecond,
			check: func(t *testing.T, res CallResult, rec *recorder) {
				wantEnd(t, res, EndedByCancelled, 1, rec)
				if tr := rec.turns[0]; tr.Error != ReasonCancelled {
					t.Errorf("turn error %q", tr.Error)
				}
				if d := res.Duration.Duration(); d > 700*time.Millisecond {
					t.Errorf("took %v to stop", d)
				}
			}},
		{name: "not ready", s: script{noReady: true}, plan: func(p *Plan) { p.Timeouts.Connect = 300 * time.Millisecond },
			check: func(t *testing.T, res CallResult, rec *recorder) {
				if res.EndedBy != EndedByError || !strings.Contains(res.Error, ErrNotReady.Error()) || res.SessionStart != nil || len(rec.turns) != 0 {
					t.Errorf("result %+v", res)
				}
			}},
		{name: "dial fails", s: script{dialErr: errors.New("no route")}, plan: func(p *Plan) { p.Timeouts.Connect = 200 * time.Millisecond },
			check: func(t *testing.T, res CallResult, rec *recorder) {
				if res.Connected || res.EndedBy != EndedByError || !strings.Contains(res.Error, "no route") {
					t.Errorf("result %+v", res)
				}
			}},
		{name: "split phrase: a first-half final is this turn's, an old one is late", s: script{delay: 100 * time.Millisecond, transcript: 100 * time.Millisecond, halfFinal: true, lateFirst: true},
			plan: func(p *Plan) { p.Split, p.PauseMax = 400*time.Millisecond, 50*time.Millisecond },
			check: func(t *testing.T, res CallResult, rec *recorder) {
				wantEnd(t, res, EndedByCaller, 2, rec)
				first, second := rec.turns[0], rec.turns[1]
				if first.Pause == nil || first.Pause.Duration() != 400*time.Millisecond {
					t.Errorf("pause %v", first.Pause)
				}
				// Turn 1's full final comes while turn 2's first half is spoken: late.
				if len(first.LateTranscripts) != 1 || len(first.ServerTranscripts) != 1 {
					t.Errorf("turn 1: server %q late %q", first.ServerTranscripts, first.LateTranscripts)
				}
				if len(second.ServerTranscripts) < 1 || len(second.LateTranscripts) != 0 {
					t.Errorf("turn 2: server %q late %q", second.ServerTranscripts, second.LateTranscripts)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := basePlan()
			if tt.plan != nil {
				tt.plan(&plan)
			}
			d := &fakeDialer{s: tt.s}
			res, rec := run(t, d, plan, tt.cancelAfter)
			for _, c := range d.conns {
				if !c.closed {
					t.Errorf("call not hung up")
				}
			}
			tt.check(t, res, rec)
		})
	}
}

// TestPhrasesFollowTheSeed: the same (seed, call) speaks the same phrases, whatever else happens.
func TestPhrasesFollowTheSeed(t *testing.T) {
	t.Parallel()
	var got [][]string
	for _, s := range []script{{delay: 50 * time.Millisecond}, {silent: true}} {
		d := &fakeDialer{s: s}
		plan := basePlan()
		plan.Timeouts.Answer = 200 * time.Millisecond
		run(t, d, plan, 0)
		got = append(got, d.conns[0].phrases)
	}
	if len(got[0]) != 2 || !slices.Equal(got[0], got[1]) {
		t.Errorf("phrases %v vs %v", got[0], got[1])
	}
}

func TestLatenessStats(t *testing.T) {
	l := make([]time.Duration, 200)
	for i := range l {
		l[i] = time.Duration(i) * time.Millisecond
	}
	p99, mx, h := latenessStats(l)
	if p99 != 197 || mx != 199 {
		t.Errorf("p99 %v max %v, want 197 and 199", p99, mx)
	}
	// 0 ms in the 0.5 ms bucket, 1 in the 1 ms one, 2 in 2, 3 in 3, ... 100 in the 100 ms bucket,
	// 99 sends (101..199) past it.
	if h.Count() != 200 || h[0] != 1 || h[1] != 1 || h[len(h)-1] != 99 {
		t.Errorf("histogram %v", h)
	}
	if p99, mx, h := latenessStats(nil); p99 != 0 || mx != 0 || h != nil {
		t.Errorf("empty: %v %v %v", p99, mx, h)
	}
}

func TestLatenessHistQuantile(t *testing.T) {
	var h LatenessHist
	if _, ok := h.Quantile(0.99, 9); ok {
		t.Error("empty histogram gave a quantile")
	}
	one := func(ms ...float64) LatenessHist {
		l := make([]time.Duration, len(ms))
		for i, v := range ms {
			l[i] = time.Duration(v * float64(time.Millisecond))
		}
		_, _, h := latenessStats(l)
		return h
	}
	// 98 sends on time and 2 at 4.2 ms: the p99 is in the (4, 5] bucket, the p50 in the first.
	quick := make([]float64, 98)
	h = h.Add(one(quick...)).Add(one(4.2, 4.2))
	tests := []struct {
		q    float64
		max  Ms
		want Ms
	}{
		{0.5, 4.2, 0.5},
		{0.99, 4.2, 4.2}, // the bucket's edge is 5 ms, but no send was later than the max
		{0.99, 40, 5},
		{0.98, 40, 0.5},
	}
	for _, tt := range tests {
		if got, ok := h.Quantile(tt.q, tt.max); !ok || got != tt.want {
			t.Errorf("Quantile(%v, max %v) = %v, want %v", tt.q, tt.max, got, tt.want)
		}
	}
	if got, _ := one(150, 200).Quantile(0.99, 200); got != 200 {
		t.Errorf("past the last edge: %v, want the max", got)
	}
}

func wantEnd(t *testing.T, res CallResult, endedBy string, turns int, rec *recorder) {
	t.Helper()
	if res.EndedBy != endedBy || res.Turns != turns || len(rec.turns) != turns || !res.Connected || res.Connect == nil {
		t.Fatalf("ended by %q with %d turns (%d recorded), want %q and %d: %+v", res.EndedBy, res.Turns, len(rec.turns), endedBy, turns, res)
	}
	if endedBy == EndedByCaller && res.Error != "" {
		t.Errorf("error %q", res.Error)
	}
}

// wantStates checks that the states went through want in order (waiting for the agent to be
// ready may come in between), ending with its last.
func wantStates(t *testing.T, rec *recorder, want ...State) {
	t.Helper()
	got := slices.DeleteFunc(slices.Clone(rec.states), func(s State) bool { return s == StateWaiting })
	want = slices.DeleteFunc(slices.Clone(want), func(s State) bool { return s == StateWaiting })
	if !slices.Equal(got, want) {
		t.Errorf("states %v, want %v (waiting aside)", rec.states, want)
	}
}

func ms(m *Ms) time.Duration {
	if m == nil {
		return -1
	}
	return m.Duration()
}
