package checks

import (
	"strings"
	"testing"

	"github.com/callfleet/callfleet/callers"
)

// The step's send lateness comes from every send when turns carry histograms, and from the
// turns' own p99s otherwise; either way over the limit is generator_bound.
func TestGeneratorOf(t *testing.T) {
	hist := func(counts map[int]int64) callers.LatenessHist {
		h := make(callers.LatenessHist, len(callers.LatenessEdges)+1)
		for b, n := range counts {
			h[b] = n
		}
		return h
	}
	// Bucket 6 is (4, 5] ms, 9 is (8, 10], 10 is (10, 15].
	tests := []struct {
		name      string
		turns     []callers.Turn
		wantP99   callers.Ms
		wantBound bool
	}{
		{"histograms, 1 % late", []callers.Turn{
			{LatenessP99: 4.5, LatenessMax: 4.8, LatenessHist: hist(map[int]int64{0: 99, 6: 1})},
			{LatenessP99: 0.4, LatenessMax: 0.5, LatenessHist: hist(map[int]int64{0: 100})},
		}, 0.5, false}, // 1 late send in 200 is inside the 99 %
		{"histograms, 2 % late past 10 ms", []callers.Turn{
			{LatenessP99: 12, LatenessMax: 14, LatenessHist: hist(map[int]int64{0: 96, 10: 4})},
		}, 14, true}, // the (10, 15] bucket's edge, capped at the worst send
		{"histograms judge, not turns' p99s", []callers.Turn{ // each turn's p99 is its 1 late send
			{LatenessP99: 12, LatenessMax: 12, LatenessHist: hist(map[int]int64{0: 99, 10: 1})},
			{LatenessP99: 12, LatenessMax: 12, LatenessHist: hist(map[int]int64{0: 99, 10: 1})},
		}, 0.5, false},
		{"no histograms: turns' p99s", []callers.Turn{
			{LatenessP99: 3, LatenessMax: 4}, {LatenessP99: 11, LatenessMax: 12},
		}, 10.92, true}, // interpolated between the two turns
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := GeneratorOf(tt.turns, 0.3, -1, DefaultThresholds())
			if g.LatenessP99 != tt.wantP99 || g.Bound != tt.wantBound {
				t.Errorf("p99 %v bound %v (%v), want %v and %v", g.LatenessP99, g.Bound, g.Why, tt.wantP99, tt.wantBound)
			}
		})
	}
}

// Steal never changes the verdict; it is recorded, and named on a generator_bound step when the
// host took enough of the machine to explain it.
func TestGeneratorSteal(t *testing.T) {
	late := []callers.Turn{{LatenessP99: 12, LatenessMax: 14}}
	calm := []callers.Turn{{LatenessP99: 1, LatenessMax: 2}}
	tests := []struct {
		name      string
		turns     []callers.Turn
		steal     float64
		wantBound bool
		wantNote  bool
	}{
		{"late, host busy", late, 0.2, true, true},
		{"late, host quiet", late, 0.01, true, false},
		{"calm, host busy", calm, 0.2, false, false},
		{"late, steal unknown", late, -1, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := GeneratorOf(tt.turns, 0.3, tt.steal, DefaultThresholds())
			note := false
			for _, w := range g.Why {
				note = note || strings.Contains(w, "hypervisor")
			}
			if g.Bound != tt.wantBound || note != tt.wantNote {
				t.Errorf("bound %v, steal named %v (%v); want %v, %v", g.Bound, note, g.Why, tt.wantBound, tt.wantNote)
			}
			if (tt.steal < 0) != (g.Steal == nil) || g.StealOrUnknown() != tt.steal {
				t.Errorf("Steal = %v, want %v", g.Steal, tt.steal)
			}
		})
	}
}
