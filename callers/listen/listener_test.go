package listen

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeEars hear every reply as "42" after delay, reporting the given wait and reason.
type fakeEars struct {
	delay    time.Duration
	wait     time.Duration
	unjudged string
	openErr  error

	mu  sync.Mutex
	fed []int // samples fed, per session finished
}

func (e *fakeEars) Open(ctx context.Context) (Session, error) {
	if e.openErr != nil {
		return nil, e.openErr
	}
	return &fakeSession{e: e, ctx: ctx}, nil
}
func (e *fakeEars) Stats() EarsStats     { return EarsStats{} }
func (e *fakeEars) Limit() time.Duration { return time.Second + e.delay }

type fakeSession struct {
	e   *fakeEars
	ctx context.Context
	n   int
}

func (s *fakeSession) Feed(pcm []int16) { s.n += len(pcm) }
func (s *fakeSession) Close()           {}
func (s *fakeSession) Finish() Hearing {
	s.e.mu.Lock()
	s.e.fed = append(s.e.fed, s.n)
	s.e.mu.Unlock()
	t := time.NewTimer(s.e.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ctx.Done():
		return Hearing{Err: s.ctx.Err()}
	}
	h := Hearing{Digits: "42", Wait: s.e.wait, Time: s.e.delay, Unjudged: s.e.unjudged}
	if h.Unjudged != "" {
		h.Digits, h.Err = "", errors.New("fake ears failed")
	}
	return h
}

// playReply arms l, plays a 1 s reply into it and returns the reply's end event.
func playReply(t *testing.T, l *Listener) Event {
	t.Helper()
	t0 := time.Now()
	l.Arm(t0)
	l.Push(tone(durSamples(time.Second)), t0)
	for i := range 200 {
		for _, ev := range l.Tick(t0.Add(time.Duration(i) * FrameDuration)) {
			if ev.Kind == EventReplyEnded {
				return ev
			}
		}
	}
	t.Fatal("the reply never ended")
	return Event{}
}

// TestListenerEars: a reply is fed to the ears from its pre-roll to its post-roll, decoded off
// the loop, and the ears' timing and reason reach Heard; a slow decode never blocks Tick.
func TestListenerEars(t *testing.T) {
	tests := []struct {
		name string
		ears *fakeEars
		want Heard
	}{
		{"heard", &fakeEars{delay: 300 * time.Millisecond, wait: 70 * time.Millisecond},
			Heard{Seq: 1, Digits: "42", Wait: 70 * time.Millisecond, Time: 300 * time.Millisecond}},
		{"unjudged", &fakeEars{delay: 10 * time.Millisecond, unjudged: UnjudgedQueueFull},
			Heard{Seq: 1, Time: 10 * time.Millisecond, Unjudged: UnjudgedQueueFull}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewListener(context.Background(), Config{}, tt.ears)
			defer l.Close()
			if l.Limit() != tt.ears.Limit() {
				t.Errorf("Limit = %v", l.Limit())
			}
			start := time.Now()
			ev := playReply(t, l)
			if !ev.Transcribing {
				t.Fatal("reply not transcribed")
			}
			if d := time.Since(start); d > tt.ears.delay/2+100*time.Millisecond && tt.ears.delay >= 100*time.Millisecond {
				t.Errorf("Tick waited for the decode: %v", d)
			}
			h := <-l.Heard()
			if (h.Err != nil) != (tt.want.Unjudged != "") {
				t.Errorf("Err = %v", h.Err)
			}
			h.Err = nil
			if h != tt.want {
				t.Errorf("Heard %+v, want %+v", h, tt.want)
			}
			// 1 s voiced, 200 ms of pre-roll (silence before it) is not there to feed, 200 ms post-roll.
			if fed := tt.ears.fed[0]; fed < durSamples(time.Second) || fed > durSamples(1400*time.Millisecond) {
				t.Errorf("fed %v of audio", samplesDur(fed))
			}
		})
	}
}

func TestListenerEarsClosedAndNone(t *testing.T) {
	l := NewListener(context.Background(), Config{}, &fakeEars{openErr: errors.New("closed")})
	defer l.Close()
	if ev := playReply(t, l); ev.Transcribing {
		t.Error("transcribing with ears that refuse")
	}
	if h := <-l.Heard(); h.Unjudged != UnjudgedClosed || h.Err == nil || h.Seq != 1 {
		t.Errorf("Heard %+v", h)
	}
	none := NewListener(context.Background(), Config{}, nil)
	defer none.Close()
	if ev := playReply(t, none); ev.Transcribing || none.Limit() != defaultLimit {
		t.Errorf("no ears: transcribing %v, limit %v", ev.Transcribing, none.Limit())
	}
}

// TestListenerCloseCancelsDecode: Close ends a decode under way without a result.
func TestListenerCloseCancelsDecode(t *testing.T) {
	e := &fakeEars{delay: time.Hour}
	l := NewListener(context.Background(), Config{}, e)
	playReply(t, l)
	done := make(chan struct{})
	go func() { l.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the decode")
	}
}
