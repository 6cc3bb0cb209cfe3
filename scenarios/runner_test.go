package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech/pool"
)

// fakeDialer names a transport; the fake calls never dial.
type fakeDialer struct{}

func (fakeDialer) Name() string                { return "fake" }
func (fakeDialer) Codec() pool.Codec           { return pool.CodecPCM16k }
func (fakeDialer) JitterBuffer() time.Duration { return 0 }
func (fakeDialer) Dial(context.Context, callers.CallInfo) (callers.Conn, error) {
	return nil, errors.New("fake dialer: no calls")
}

// chattyCall says a turn every 10 ms until its plan's Until or ctx's end, then hangs up.
func chattyCall(ctx context.Context, plan callers.Plan, sink callers.Sink) callers.CallResult {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	begun := time.Now()
	n := 0
	for time.Now().Before(plan.Until) {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return hangUp(plan, sink, begun, n, "cancelled")
		}
		n++
		e2r := callers.Ms(900)
		sink.Turn(callers.Turn{Call: plan.Call, Step: plan.Step, Turn: n, Phrase: "71345", Heard: "71345",
			Wall: time.Now(), Marks: callers.Marks{SpeechEnd: new(callers.Ms), ReplyStart: &e2r}, AgentAudio: 1000})
	}
	return hangUp(plan, sink, begun, n, "caller")
}

func hangUp(plan callers.Plan, sink callers.Sink, begun time.Time, turns int, by string) callers.CallResult {
	r := callers.CallResult{Call: plan.Call, Step: plan.Step, Connected: true, Wall: begun, Turns: turns,
		EndedBy: by, Duration: callers.D(time.Since(begun))}
	sink.Call(r)
	return r
}

// failAfter passes n bytes to w, then fails every write with err, as a disk filling up does.
type failAfter struct {
	mu  sync.Mutex
	w   *os.File
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, f.err
	}
	f.n -= len(p)
	return f.w.Write(p)
}

func fakeSpec(t *testing.T, steps []int, d time.Duration) Spec {
	p := DefaultPlan()
	p.Steps, p.Ramp, p.Warmup, p.Duration, p.Seed = steps, 20*time.Millisecond, 10*time.Millisecond, d, 3
	th := checks.DefaultThresholds()
	th.MaxLatenessP99, th.MaxGeneratorCPU = time.Hour, 1 // the race detector's slow CPU is not the test's point
	return Spec{Target: "fake://agent", Dialer: fakeDialer{}, Plan: p, Thresholds: th, Out: t.TempDir(), call: chattyCall}
}

// A write error on turns.jsonl stops the run at once, and the report says what was measured.
func TestExecuteStopsOnWriteError(t *testing.T) {
	tests := []struct {
		name   string
		after  int   // bytes the disk takes
		err    error // then this
		starts bool  // the run line fits: calls are placed
	}{
		{"disk full mid-run", 4000, syscall.ENOSPC, true},
		{"I/O error mid-run", 6000, syscall.EIO, true},
		{"disk full before the run line", 10, syscall.ENOSPC, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := fakeSpec(t, []int{2, 4}, time.Hour) // an hour a step: only the error ends this run
			var f *os.File
			spec.openRecords = func(path string) (*report.JSONL, error) {
				var err error
				if f, err = os.Create(path); err != nil {
					return nil, err
				}
				return report.NewJSONL(&failAfter{w: f, n: tc.after, err: tc.err}), nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			begun := time.Now()
			r, err := Execute(ctx, spec)
			f.Close()
			if took := time.Since(begun); took > 20*time.Second*timingSlack {
				t.Errorf("the run took %v to stop after the write error", took)
			}
			if !errors.Is(err, report.ErrWrite) || !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want report.ErrWrite wrapping %v", err, tc.err)
			}
			if ctx.Err() != nil {
				t.Fatal("the run stopped on the test's timeout, not on the write error")
			}
			if !tc.starts {
				if r != nil {
					t.Errorf("a run that could not write its run line returned a report")
				}
				return
			}
			loaded, lerr := report.Load(filepath.Join(spec.Out, report.FileName))
			if lerr != nil {
				t.Fatal(lerr)
			}
			for _, got := range []*report.Report{r, loaded} {
				if got.Stopped == nil || got.Stopped.Reason != report.StopError || got.Stopped.Error == "" {
					t.Errorf("report stopped %+v, want reason %q with the error", got.Stopped, report.StopError)
				}
				if len(got.Steps) != 1 || got.Steps[0].Turns.Total == 0 {
					t.Errorf("%d steps; want the first, with what it measured (%+v)", len(got.Steps), got.Steps)
				}
			}
			recs, rerr := report.ReadRecords(filepath.Join(spec.Out, report.TurnsFileName))
			if rerr != nil || recs.Run == nil || len(recs.Turns) == 0 || recs.RunEnd != nil || len(recs.Skipped) > 1 {
				t.Errorf("turns file: run line %v, %d turns, end %v, skipped %v, %v", recs.Run != nil, len(recs.Turns), recs.RunEnd, recs.Skipped, rerr)
			}
			if _, err := os.Stat(filepath.Join(spec.Out, report.HTMLFileName)); err != nil {
				t.Errorf("no html report: %v", err)
			}
		})
	}
}

// TestExecuteRebuild: the report rebuilt from turns.jsonl alone is the one the run wrote.
func TestExecuteRebuild(t *testing.T) {
	tests := []struct {
		name    string
		cut     time.Duration // cancel the run after this; 0 lets it finish
		scrape  bool          // an agent's /metrics to take costs from
		stopped string
	}{
		{"finished", 0, false, ""},
		{"scraped", 0, true, ""},
		{"interrupted", 250 * time.Millisecond, false, report.StopInterrupted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := fakeSpec(t, []int{1, 3}, 200*time.Millisecond)
			if tc.scrape {
				spec.Scrape = fakeMetrics(t)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if tc.cut > 0 {
				time.AfterFunc(tc.cut, cancel)
			}
			r, err := Execute(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if tc.scrape && (r.Steps[1].AgentCPUMilli == nil || r.Steps[1].AgentRSSMiBPerCall == nil) {
				t.Errorf("no agent costs from the scrapes: %+v", r.Steps[1])
			}
			if got := stopReason(r.Stopped); got != tc.stopped {
				t.Errorf("stopped %q, want %q", got, tc.stopped)
			}
			recs, err := report.ReadRecords(filepath.Join(spec.Out, report.TurnsFileName))
			if err != nil {
				t.Fatal(err)
			}
			back, err := report.Rebuild(recs)
			if err != nil {
				t.Fatal(err)
			}
			for name, pair := range map[string][2]any{
				"config": {r.Config, back.Config}, "machine": {r.Machine, back.Machine}, "steps": {r.Steps, back.Steps},
				"capacity": {r.Capacity, back.Capacity}, "stopped": {r.Stopped, back.Stopped},
				"started": {r.Started, back.Started}, "ended": {r.Ended, back.Ended},
			} {
				a, _ := json.Marshal(pair[0])
				b, _ := json.Marshal(pair[1])
				if string(a) != string(b) {
					t.Errorf("%s differs:\nrun     %s\nrebuilt %s", name, a, b)
				}
			}
		})
	}
}

// fakeMetrics serves an agent's process metrics, its CPU time and RSS growing at every scrape.
func fakeMetrics(t *testing.T) string {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		fmt.Fprintf(w, "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %d\n"+
			"# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %d\n", k, k<<20)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func stopReason(s *report.Stop) string {
	if s == nil {
		return ""
	}
	return s.Reason
}
