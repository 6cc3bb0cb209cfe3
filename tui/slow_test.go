package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/scenarios"
)

// slowTerminal takes its time over every write, like a terminal over a slow link.
type slowTerminal struct{ delay time.Duration }

func (s slowTerminal) Write(p []byte) (int, error) { time.Sleep(s.delay); return len(p), nil }

// TestSlowTerminalNeverBlocksHandle is the benchmark's claim: a slow terminal must not add send
// lateness, so Handle of 10k events returns at once while the program is busy drawing.
func TestSlowTerminalNeverBlocksHandle(t *testing.T) {
	defer goleak.VerifyNone(t, teatestLeak)
	cfg := scriptConfig()
	cfg.Out, cfg.In = slowTerminal{delay: 200 * time.Millisecond}, strings.NewReader("")
	u := New(cfg)
	ran := make(chan error, 1)
	go func() { ran <- u.Run(context.Background()) }()
	ev := script()
	turn := ev[3]
	start := time.Now()
	u.Handle(ev[0])
	for i := range 10_000 {
		switch i % 3 {
		case 0:
			turn.Turn.Turn = i
			u.Handle(turn)
		default:
			u.Handle(scenarios.Event{Kind: scenarios.EventState, At: t0, CallN: i % 2, State: callers.State(1 + i%5)})
		}
	}
	if took := time.Since(start); took > 250*time.Millisecond {
		t.Errorf("Handle of 10k events took %v with a slow terminal; it must only enqueue", took)
	}
	u.Done()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after Done")
	}
}

// TestQueueKeepsRecords: states collapse to the latest per call, every other event is kept in
// order, and the done batch is the last.
func TestQueueKeepsRecords(t *testing.T) {
	q := newQueue()
	for i := range 1000 {
		q.push(scenarios.Event{Kind: scenarios.EventState, CallN: i % 4, State: callers.State(1 + i%5)})
		q.push(scenarios.Event{Kind: scenarios.EventTurn, Turn: callers.Turn{Turn: i}})
	}
	q.push(scenarios.Event{Kind: scenarios.EventStepEnd})
	q.finish()
	b, ok := q.next(0)
	if !ok || !b.done || len(b.events) != 1001 || len(b.states) != 4 {
		t.Fatalf("batch: ok %v done %v, %d events, %d states", ok, b.done, len(b.events), len(b.states))
	}
	for i, e := range b.events[:1000] {
		if e.Turn.Turn != i {
			t.Fatalf("event %d is turn %d: order lost", i, e.Turn.Turn)
		}
	}
	if b.states[3] != callers.State(1+999%5) {
		t.Errorf("call 3's state %v, want the latest", b.states[3])
	}
	if _, ok := q.next(0); ok {
		t.Error("a batch after the done one")
	}
}
