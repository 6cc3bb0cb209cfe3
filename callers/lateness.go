package callers

import (
	"slices"
	"time"
)

// LatenessEdges are the upper bounds of the send-lateness histogram each turn carries (the last
// bucket holds everything later): a step's p99 over all its sends, and a merge of shards', is read
// from summed counts, exactly at these edges, instead of from per-turn percentiles.
var LatenessEdges = []Ms{0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100}

// LatenessHist counts sends per bucket of LatenessEdges, plus one bucket past the last edge.
type LatenessHist []int64

// latenessStats returns a turn's send lateness p99 (nearest rank), its max and its histogram.
func latenessStats(l []time.Duration) (p99, maxL Ms, h LatenessHist) {
	if len(l) == 0 {
		return 0, 0, nil
	}
	s := slices.Clone(l)
	slices.Sort(s)
	rank := (99*len(s) + 99) / 100 // ceil(0.99 n)
	h = make(LatenessHist, len(LatenessEdges)+1)
	b := 0
	for _, d := range s { // sorted: the bucket only moves up
		for b < len(LatenessEdges) && D(d) > LatenessEdges[b] {
			b++
		}
		h[b]++
	}
	return D(s[rank-1]), D(s[len(s)-1]), h
}

// Add sums o into h (growing h if it is empty) and returns it.
func (h LatenessHist) Add(o LatenessHist) LatenessHist {
	if len(o) == 0 {
		return h
	}
	if len(h) < len(o) {
		h = append(h, make(LatenessHist, len(o)-len(h))...)
	}
	for i, n := range o {
		h[i] += n
	}
	return h
}

// Count is the number of sends counted.
func (h LatenessHist) Count() int64 {
	var n int64
	for _, c := range h {
		n += c
	}
	return n
}

// Quantile is an upper bound of the q quantile (0 < q <= 1): the edge of the bucket it falls in,
// or max when it falls past the last edge. ok is false for an empty histogram.
func (h LatenessHist) Quantile(q float64, max Ms) (v Ms, ok bool) {
	total := h.Count()
	if total == 0 {
		return 0, false
	}
	rank := int64(q*float64(total) + 0.999999) // ceil, as the per-turn p99 is nearest rank
	var seen int64
	for i, c := range h {
		seen += c
		if seen >= rank {
			if i < len(LatenessEdges) {
				return min(LatenessEdges[i], max), true
			}
			return max, true
		}
	}
	return max, true
}
