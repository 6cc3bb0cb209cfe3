package scenarios

import (
	"sync"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
)

type slowOutput struct {
	mu   sync.Mutex
	got  []Event
	wait time.Duration
}

func (s *slowOutput) Handle(e Event) {
	time.Sleep(s.wait)
	s.mu.Lock()
	s.got = append(s.got, e)
	s.mu.Unlock()
}

func TestBusNeverBlocksAndDeliversAll(t *testing.T) {
	slow := &slowOutput{wait: 2 * time.Millisecond}
	fast := &slowOutput{}
	b := NewBus(slow, fast)
	start := time.Now()
	for i := 0; i < 200; i++ {
		b.Turn(callers.Turn{Turn: i})
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Fatalf("adding 200 events to a slow output took %v", d)
	}
	b.Close()
	for _, o := range []*slowOutput{slow, fast} {
		if len(o.got) != 200 {
			t.Fatalf("delivered %d of 200", len(o.got))
		}
		for i, e := range o.got {
			if e.Turn.Turn != i {
				t.Fatalf("out of order at %d", i)
			}
		}
	}
	b.Turn(callers.Turn{}) // after Close: dropped, no panic
}
