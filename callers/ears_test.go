package callers

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
)

// slowEars are deliberately slow fake ears: every reply is heard as "42" after delay (or not at
// all, the call's end aside), with the given wait, or refused with unjudged.
type slowEars struct {
	delay    time.Duration
	wait     time.Duration
	unjudged string
	limit    time.Duration
	finished chan struct{} // a Finish began (buffered; full ones are dropped)
}

func (e *slowEars) Open(ctx context.Context) (listen.Session, error) {
	return &slowSession{e: e, ctx: ctx}, nil
}
func (e *slowEars) Stats() listen.EarsStats { return listen.EarsStats{} }
func (e *slowEars) Limit() time.Duration    { return e.limit }

type slowSession struct {
	e   *slowEars
	ctx context.Context
}

func (s *slowSession) Feed([]int16) {}
func (s *slowSession) Close()       {}
func (s *slowSession) Finish() listen.Hearing {
	if s.e.finished != nil {
		select {
		case s.e.finished <- struct{}{}:
		default:
		}
	}
	if s.e.unjudged != "" {
		return listen.Hearing{Wait: s.e.wait, Unjudged: s.e.unjudged, Err: errors.New("refused")}
	}
	t := time.NewTimer(s.e.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return listen.Hearing{Digits: "42", Wait: s.e.wait, Time: s.e.delay}
	case <-s.ctx.Done():
		return listen.Hearing{Err: s.ctx.Err()}
	}
}

// runWith places one call hearing with ears; cancel, if set, is handed the call's cancel.
func runWith(t *testing.T, s script, plan Plan, ears listen.Ears, cancel func(context.CancelFunc)) (CallResult, *recorder) {
	t.Helper()
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	if cancel != nil {
		cancel(stop)
	}
	rec := &recorder{}
	res := Run(ctx, &fakeDialer{s: s}, testPool(t), plan, rec, ears)
	return res, rec
}

// TestRunEars: the caller records each reply's decode wait and time; a reply its ears could not
// hear (a full queue, a decode that never came) leaves the turn unjudged, not failed; a reply
// still being heard when the run is stopped is cancelled.
func TestRunEars(t *testing.T) {
	t.Parallel()
	reply := script{delay: 100 * time.Millisecond}
	tests := []struct {
		name   string
		ears   *slowEars
		cancel bool // stop the run once the first reply is being heard
		check  func(t *testing.T, tr Turn)
	}{
		{"timed", &slowEars{delay: 150 * time.Millisecond, wait: 30 * time.Millisecond, limit: 5 * time.Second}, false, func(t *testing.T, tr Turn) {
			if tr.Heard != "42" || tr.DecodeWait != 30 || tr.DecodeTime != 150 || tr.Unjudged != "" || tr.Error != "" {
				t.Errorf("turn %d: %+v", tr.Turn, tr)
			}
		}},
		{"queue full", &slowEars{unjudged: listen.UnjudgedQueueFull, wait: 0, limit: 5 * time.Second}, false, func(t *testing.T, tr Turn) {
			if tr.Unjudged != listen.UnjudgedQueueFull || tr.Error != "" || tr.Heard != "" {
				t.Errorf("turn %d: unjudged %q error %q", tr.Turn, tr.Unjudged, tr.Error)
			}
		}},
		{"decode never comes", &slowEars{delay: time.Hour, limit: 100 * time.Millisecond}, false, func(t *testing.T, tr Turn) {
			if tr.Unjudged != listen.UnjudgedTimeout || tr.Error != "" || tr.Heard != "" {
				t.Errorf("turn %d: unjudged %q error %q", tr.Turn, tr.Unjudged, tr.Error)
			}
		}},
		{"stopped while heard", &slowEars{delay: time.Hour, limit: time.Hour, finished: make(chan struct{}, 1)}, true, func(t *testing.T, tr Turn) {
			if tr.Error != ReasonCancelled || tr.Unjudged != "" {
				t.Errorf("turn %d: unjudged %q error %q", tr.Turn, tr.Unjudged, tr.Error)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := basePlan()
			var wg sync.WaitGroup
			var cancel func(context.CancelFunc)
			if tt.cancel {
				plan.MaxTurns = 1
				cancel = func(stop context.CancelFunc) {
					wg.Add(1)
					go func() {
						defer wg.Done()
						select {
						case <-tt.ears.finished: // the reply ended and is being heard: stop the run
						case <-time.After(20 * time.Second):
							t.Error("the reply was never heard")
						}
						stop()
					}()
				}
			}
			start := time.Now()
			res, rec := runWith(t, reply, plan, tt.ears, cancel)
			wg.Wait()
			if len(rec.turns) != plan.MaxTurns {
				t.Fatalf("%d turns: %+v", len(rec.turns), res)
			}
			for _, tr := range rec.turns {
				tt.check(t, tr)
			}
			// A decode that never comes holds the call only the ears' limit plus slack per turn.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("call took %v", d)
			}
		})
	}
}
