package twilio

import (
	"context"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
)

// heapNow is the live heap after a collection.
func heapNow() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestFloodHeapFlat answers a phrase with ten minutes of audio sent at 100x real time: the
// caller drops what runs more than MaxAhead ahead, so its live heap stays within a few MiB of
// where it started, where keeping it all would take 19 MiB of PCM alone. Not parallel: it
// measures the process's heap.
func TestFloodHeapFlat(t *testing.T) {
	p, model := fixtures(t)
	h := newHostile(t)
	h.floodOf = 10 * time.Minute
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	d := &Dialer{URL: h.url("flood"), HTTPClient: hc}
	plan := callers.Plan{Call: 1, Seed: 5, Until: time.Now().Add(time.Minute), MaxTurns: 1,
		Timeouts: callers.Timeouts{Connect: 3 * time.Second, Answer: 3 * time.Second, Reply: 30 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := heapNow()
	peak := watchHeap(ctx)
	s := &sink{}
	res := callers.Run(ctx, d, p, plan, s, model)
	top := peak.stop()
	h.close()
	after := heapNow()
	sent := h.floodSent("flood")
	t.Logf("sent %v of audio; heap %d KiB before, peak +%d KiB, +%d KiB after; %+v", sent, base>>10, (top-base)>>10, (after-base)>>10, res)
	if sent < 5*time.Minute {
		t.Fatalf("the flood sent only %v", sent)
	}
	turns := s.Turns()
	if len(turns) != 1 || turns[0].Error != callers.ReasonOverrun || turns[0].Dropped.Duration() < sent-2*time.Minute {
		t.Fatalf("turns %+v", turns)
	}
	const bound = 6 << 20
	if grew := top - base; grew > bound {
		t.Errorf("heap grew by %.1f MiB under the flood, bound %d MiB (MaxAhead %v)", float64(grew)/(1<<20), bound>>20, listen.DefaultMaxAhead)
	}
	if grew := after - base; grew > 2<<20 {
		t.Errorf("heap %.1f MiB above where it started once the call was over", float64(grew)/(1<<20))
	}
}
