package scenarios

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/internal/steal"
)

// RunCall places one call; callers.Run in production, a fake in tests.
type RunCall func(ctx context.Context, plan callers.Plan, sink callers.Sink) callers.CallResult

// StepResult is what one step produced: its records and the generator's own CPU use.
type StepResult struct {
	Schedule     StepSchedule
	Start        time.Time
	Window       [2]time.Time // the measured window, wall clock
	Turns        []callers.Turn
	Calls        []callers.CallResult
	GeneratorCPU float64 // fraction of all cores the generator process used during the step
	MachineSteal float64 // fraction of the machine's CPU time the hypervisor took during the step; -1 unknown
	Stopped      bool    // the step was ended early (Ctrl-C, or the user ended it)
}

// Hooks let outputs watch a run; each must return at once (outputs buffer on their side).
type Hooks struct {
	StepStart func(s StepSchedule, at time.Time)
	StepEnd   func(r StepResult)
	Sink      callers.Sink // every record and state change, as it happens
}

// Controller runs a plan's steps one after another, or each at its pinned time (StartAt).
type Controller struct {
	Plan Plan
	// Steps are the steps to run: nil runs Schedule(Plan); a shard runs its Shard.Schedule.
	Steps []StepSchedule
	// StartAt, when set, pins step s to Plan.StepAt(StartAt, s), so shards on several machines
	// load the agent together; a step's last turns and hang-ups then overlap the next step's
	// ramp. Zero starts each step once the one before has hung up.
	StartAt time.Time
	Call    RunCall
	Hooks   Hooks
	Cores   int
	// EndStep, when it receives, ends the current step early (the TUI's "s" key); with StartAt
	// the next step still waits for its pinned time.
	EndStep <-chan struct{}
}

// Run executes every step; on ctx's end it stops ramping, hangs up and returns what finished.
func (c *Controller) Run(ctx context.Context) []StepResult {
	steps := c.Steps
	if steps == nil {
		steps = Schedule(c.Plan)
	}
	if !c.StartAt.IsZero() {
		return c.runPinned(ctx, steps)
	}
	var out []StepResult
	for _, s := range steps {
		if ctx.Err() != nil {
			break
		}
		out = append(out, c.step(ctx, s, time.Now()))
	}
	return out
}

// runPinned starts each step at its pinned time, whether or not the step before has hung up.
func (c *Controller) runPinned(ctx context.Context, steps []StepSchedule) []StepResult {
	out := make([]StepResult, len(steps))
	var wg sync.WaitGroup
	started := 0
	for i, s := range steps {
		at := c.Plan.StepAt(c.StartAt, s.Index)
		if !sleepUntil(ctx, at) {
			break
		}
		started++
		wg.Add(1)
		go func() { defer wg.Done(); out[i] = c.step(ctx, s, at) }()
	}
	wg.Wait()
	return out[:started]
}

// sleepUntil waits for t (at once when it has passed); false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// collector keeps a step's records and forwards them to the run's sink.
type collector struct {
	mu    sync.Mutex
	turns []callers.Turn
	calls []callers.CallResult
	next  callers.Sink
}

func (k *collector) Turn(t callers.Turn) {
	k.mu.Lock()
	k.turns = append(k.turns, t)
	k.mu.Unlock()
	if k.next != nil {
		k.next.Turn(t)
	}
}

func (k *collector) Call(r callers.CallResult) {
	k.mu.Lock()
	k.calls = append(k.calls, r)
	k.mu.Unlock()
	if k.next != nil {
		k.next.Call(r)
	}
}

func (k *collector) State(call int, s callers.State) {
	if k.next != nil {
		k.next.State(call, s)
	}
}

// step runs one step begun at start (now, or its pinned time, which may have just passed).
func (c *Controller) step(parent context.Context, s StepSchedule, start time.Time) StepResult {
	res := StepResult{Schedule: s, Start: start,
		Window: [2]time.Time{start.Add(s.Measure[0]), start.Add(s.Measure[1])}}
	if c.Hooks.StepStart != nil {
		c.Hooks.StepStart(s, start)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	// A call's Until is the step's end; a hard stop comes a little after, so a late reply can land.
	until := start.Add(s.End)
	hard := until.Add(c.Plan.Timeouts.Answer + c.Plan.Timeouts.Reply + 5*time.Second)
	ctx, cancelHard := context.WithDeadline(ctx, hard)
	defer cancelHard()
	k := &collector{next: c.Hooks.Sink}
	cpu0, steal0, began := cpuTime(), steal.Read(), time.Now() // not start: a pinned start may have passed already
	var wg sync.WaitGroup
	for i, off := range s.Starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-time.After(time.Until(start.Add(off))):
			case <-ctx.Done():
				return
			}
			c.Call(ctx, c.callPlan(s, i, until), k)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-c.EndStep:
		res.Stopped = true
		cancel()
		<-done
	case <-parent.Done():
		res.Stopped = true
		<-done // the callers hang up on the same context
	}
	elapsed := time.Since(began)
	// A step with no call of this generator's (a shard's empty share) ends at once: a CPU or
	// steal fraction over a few microseconds would be noise, so it reports none.
	res.MachineSteal = -1
	if len(s.Starts) > 0 {
		if cores := c.Cores; cores > 0 && elapsed > 0 {
			res.GeneratorCPU = (cpuTime() - cpu0).Seconds() / elapsed.Seconds() / float64(cores)
		}
		if f, ok := steal.Fraction(steal0, steal.Read()); ok {
			res.MachineSteal = f
		}
	}
	k.mu.Lock()
	res.Turns, res.Calls = k.turns, k.calls
	k.mu.Unlock()
	if c.Hooks.StepEnd != nil {
		c.Hooks.StepEnd(res)
	}
	return res
}

func (c *Controller) callPlan(s StepSchedule, i int, until time.Time) callers.Plan {
	return callers.Plan{
		Call: s.Call(i), Step: s.Index, Seed: c.Plan.Seed, Until: until,
		PauseMin: c.Plan.PauseMin, PauseMax: c.Plan.PauseMax, Timeouts: c.Plan.Timeouts, Split: c.Plan.Split,
	}
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// String names a step for progress lines.
func (s StepSchedule) String() string { return fmt.Sprintf("step %d (%d calls)", s.Index+1, s.N) }
