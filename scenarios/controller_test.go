package scenarios

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
)

// fakeCall says one turn per call and ends at the plan's Until.
func fakeCall(started *atomic.Int64) RunCall {
	return func(ctx context.Context, plan callers.Plan, sink callers.Sink) callers.CallResult {
		started.Add(1)
		sink.Turn(callers.Turn{Call: plan.Call, Step: plan.Step, Phrase: "1234", Wall: time.Now()})
		select {
		case <-time.After(time.Until(plan.Until)):
		case <-ctx.Done():
		}
		r := callers.CallResult{Call: plan.Call, Step: plan.Step, Connected: true, EndedBy: "caller"}
		sink.Call(r)
		return r
	}
}

func TestControllerSteps(t *testing.T) {
	p := DefaultPlan()
	p.Steps = []int{1, 3}
	p.Ramp, p.Warmup, p.Duration = 30*time.Millisecond, 10*time.Millisecond, 50*time.Millisecond
	var started atomic.Int64
	var starts, ends atomic.Int64
	c := &Controller{Plan: p, Call: fakeCall(&started), Cores: 2, Hooks: Hooks{
		StepStart: func(StepSchedule, time.Time) { starts.Add(1) },
		StepEnd:   func(StepResult) { ends.Add(1) },
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res := c.Run(ctx)
	if len(res) != 2 || starts.Load() != 2 || ends.Load() != 2 || started.Load() != 4 {
		t.Fatalf("%d results, %d/%d hooks, %d calls", len(res), starts.Load(), ends.Load(), started.Load())
	}
	if got := res[1]; len(got.Calls) != 3 || len(got.Turns) != 3 || got.Calls[0].Call < 1 {
		t.Fatalf("step 2: %d calls %d turns, first call %d", len(got.Calls), len(got.Turns), got.Calls[0].Call)
	}
	if res[0].Window[1].Sub(res[0].Window[0]) != p.Duration {
		t.Fatalf("window %v", res[0].Window)
	}
}

func TestControllerCancel(t *testing.T) {
	p := DefaultPlan()
	p.Steps = []int{2, 4, 8}
	p.Ramp, p.Warmup, p.Duration = 0, 0, time.Hour
	var started atomic.Int64
	c := &Controller{Plan: p, Call: fakeCall(&started)}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	res := c.Run(ctx)
	if time.Since(begin) > 2*time.Second {
		t.Fatalf("cancel took %v", time.Since(begin))
	}
	if len(res) != 1 || !res[0].Stopped || len(res[0].Calls) != 2 {
		t.Fatalf("after cancel: %d steps, stopped %v, %d calls", len(res), res[0].Stopped, len(res[0].Calls))
	}
}
