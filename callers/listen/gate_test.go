package listen

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var errBoom = errors.New("boom")

func failed(error) (string, bool) { return UnjudgedFailed, false }

// TestGateBounds: at most slots decodes at once; past maxQueue waiting a reply is refused at
// once; a reply waiting maxWait is given up on; each outcome is counted.
func TestGateBounds(t *testing.T) {
	tests := []struct {
		name            string
		slots, queue    int
		wait            time.Duration
		replies         int
		work            time.Duration
		wantFull        int // replies refused at once
		wantWaitTimeout int
	}{
		{"all fit", 2, 8, time.Second, 6, 20 * time.Millisecond, 0, 0},
		{"queue full", 1, 2, 5 * time.Second, 6, 300 * time.Millisecond, 3, 0},
		{"wait timeout", 1, 8, 100 * time.Millisecond, 3, 600 * time.Millisecond, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate(tt.slots, tt.queue, tt.wait)
			var busy, peak atomic.Int64
			work := func() (string, error) {
				n := busy.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(tt.work)
				busy.Add(-1)
				return "123", nil
			}
			results := make(chan Hearing, tt.replies)
			var wg sync.WaitGroup
			// The first replies take the slots, the next ones queue, the rest are refused.
			for i := range tt.replies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results <- g.hear(context.Background(), time.Second, work, failed)
				}()
				waitFor(t, func() bool {
					s := g.stats()
					return s.Busy+s.Waiting+int(s.QueueFull+s.Heard+s.WaitTimeouts) == i+1
				})
			}
			wg.Wait()
			close(results)
			full, timeouts, heard := 0, 0, 0
			for h := range results {
				switch h.Unjudged {
				case UnjudgedQueueFull:
					full++
					if !errors.Is(h.Err, ErrQueueFull) || h.Wait > 50*time.Millisecond {
						t.Errorf("refused reply: %v after %v", h.Err, h.Wait)
					}
				case UnjudgedTimeout:
					timeouts++
					if !errors.Is(h.Err, ErrWaitTimeout) || h.Wait < tt.wait {
						t.Errorf("given-up reply: %v after %v", h.Err, h.Wait)
					}
				case "":
					heard++
					if h.Digits != "123" || h.Time < tt.work/2 {
						t.Errorf("heard %q in %v", h.Digits, h.Time)
					}
				}
			}
			if full != tt.wantFull || timeouts != tt.wantWaitTimeout || heard != tt.replies-full-timeouts {
				t.Errorf("full %d, wait timeouts %d, heard %d; want %d, %d", full, timeouts, heard, tt.wantFull, tt.wantWaitTimeout)
			}
			if p := peak.Load(); p > int64(tt.slots) {
				t.Errorf("%d decodes at once, slots %d", p, tt.slots)
			}
			s := g.stats()
			if s.Slots != tt.slots || s.Requests != uint64(tt.replies) || s.QueueFull != uint64(full) ||
				s.WaitTimeouts != uint64(timeouts) || s.Heard != uint64(heard) || s.Started != uint64(heard) ||
				s.Waiting != 0 || s.Busy != 0 || s.Unjudged() != uint64(full+timeouts) {
				t.Errorf("stats %+v", s)
			}
			if s.Audio != time.Duration(heard)*time.Second || s.DecodeTime < time.Duration(heard)*tt.work/2 {
				t.Errorf("audio %v, decode time %v for %d heard", s.Audio, s.DecodeTime, heard)
			}
		})
	}
}

// TestGateOutcomes: a failed decode is unjudged with the classifier's reason; a timeout is
// counted apart; a decode cut by the call's end, or a call that ended while waiting, is neither.
func TestGateOutcomes(t *testing.T) {
	timeoutWhy := func(error) (string, bool) { return "stt server: timeout", true }
	tests := []struct {
		name     string
		work     func() (string, error)
		why      classify
		cancel   bool
		unjudged string
		count    func(EarsStats) uint64
	}{
		{"heard", func() (string, error) { return "42", nil }, failed, false, "", func(s EarsStats) uint64 { return s.Heard }},
		{"failed", func() (string, error) { return "", errBoom }, failed, false, UnjudgedFailed, func(s EarsStats) uint64 { return s.Failures }},
		{"timeout", func() (string, error) { return "", errBoom }, timeoutWhy, false, "stt server: timeout", func(s EarsStats) uint64 { return s.Timeouts }},
		{"cancelled", func() (string, error) { return "", context.Canceled }, failed, true, "", func(s EarsStats) uint64 { return s.Cancelled }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate(1, 0, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			work := tt.work
			if tt.cancel {
				work = func() (string, error) { cancel(); return tt.work() }
			}
			h := g.hear(ctx, 0, work, tt.why)
			if h.Unjudged != tt.unjudged || (tt.unjudged != "" && h.Err == nil) {
				t.Errorf("Hearing %+v; want unjudged %q", h, tt.unjudged)
			}
			if s := g.stats(); tt.count(s) != 1 || s.Requests != 1 {
				t.Errorf("stats %+v", s)
			}
		})
	}
	t.Run("call ends while waiting", func(t *testing.T) {
		g := newGate(1, 0, 0)
		block := make(chan struct{})
		go g.hear(context.Background(), 0, func() (string, error) { <-block; return "", nil }, failed)
		waitFor(t, func() bool { return g.stats().Busy == 1 })
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		h := g.hear(ctx, 0, func() (string, error) { t.Error("decoded"); return "", nil }, failed)
		close(block)
		if h.Unjudged != "" || !errors.Is(h.Err, context.DeadlineExceeded) || g.stats().Cancelled != 1 {
			t.Errorf("Hearing %+v, stats %+v", h, g.stats())
		}
	})
}

func TestEarsStatsMath(t *testing.T) {
	a := EarsStats{Slots: 2, Requests: 10, Heard: 7, Failures: 1, Timeouts: 1, QueueFull: 1, Started: 8,
		DecodeWait: 800 * time.Millisecond, DecodeTime: 400 * time.Millisecond, Audio: 20 * time.Second, Waiting: 3}
	b := EarsStats{Requests: 4, Heard: 4, Started: 4, DecodeWait: 400 * time.Millisecond, DecodeTime: 200 * time.Millisecond, Audio: 10 * time.Second}
	d := a.Sub(b)
	if d.Requests != 6 || d.Heard != 3 || d.Started != 4 || d.DecodeWait != 400*time.Millisecond || d.Waiting != 3 || d.Slots != 2 {
		t.Errorf("Sub = %+v", d)
	}
	if a.Unjudged() != 3 || a.MeanWait() != 100*time.Millisecond || a.MeanTime() != 50*time.Millisecond || a.Cost() != 0.02 {
		t.Errorf("unjudged %d, mean wait %v, mean time %v, cost %v", a.Unjudged(), a.MeanWait(), a.MeanTime(), a.Cost())
	}
	var zero EarsStats
	if zero.MeanWait() != 0 || zero.Cost() != 0 {
		t.Error("zero stats")
	}
}

// waitFor polls cond for up to 5 s; say, if given, describes the state it gave up in.
func waitFor(t *testing.T, cond func() bool, say ...func() string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			msg := ""
			for _, f := range say {
				msg += f()
			}
			t.Fatal("condition not met within 5 s ", msg)
		}
		time.Sleep(time.Millisecond)
	}
}
