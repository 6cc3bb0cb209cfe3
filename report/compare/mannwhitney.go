package compare

import (
	"fmt"
	"math"
	"slices"
)

// MannWhitney is the Mann-Whitney U test of two independent samples, by the normal
// approximation with the tie correction and a continuity correction of one half (as R's
// wilcox.test(correct = TRUE, exact = FALSE) and SciPy's mannwhitneyu(method="asymptotic")).
type MannWhitney struct {
	N1, N2 int
	U1     float64 // pairs (x, y) with x > y, ties counted half: R's W, SciPy's statistic
	U2     float64 // n1*n2 - U1
	// P values of the alternatives: x stochastically greater than y, less, either.
	Greater, Less, TwoSided float64
}

// MannWhitneyU tests x against y. With no spread at all (every value the same) every p is 1.
func MannWhitneyU(x, y []float64) (MannWhitney, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return MannWhitney{}, fmt.Errorf("%w: Mann-Whitney needs both samples (have %d and %d)", ErrNoSamples, n1, n2)
	}
	type obs struct {
		v     float64
		fromX bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	n := float64(n1 + n2)
	var r1, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+1+j) / 2 // mid-rank of the tied run i..j-1 (1-based)
		for k := i; k < j; k++ {
			if all[k].fromX {
				r1 += rank
			}
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	t := MannWhitney{N1: n1, N2: n2}
	f1, f2 := float64(n1), float64(n2)
	t.U1 = r1 - f1*(f1+1)/2
	t.U2 = f1*f2 - t.U1
	mu := f1 * f2 / 2
	sigma := math.Sqrt(f1 * f2 / 12 * ((n + 1) - ties/(n*(n-1))))
	if sigma == 0 || math.IsNaN(sigma) {
		t.Greater, t.Less, t.TwoSided = 1, 1, 1
		return t, nil
	}
	t.Greater = upperTail((t.U1 - mu - 0.5) / sigma)
	t.Less = upperTail((mu - t.U1 - 0.5) / sigma)
	t.TwoSided = min(1, 2*upperTail((max(t.U1, t.U2)-mu-0.5)/sigma))
	return t, nil
}

// upperTail is P(Z > z) for a standard normal Z.
func upperTail(z float64) float64 { return math.Erfc(z/math.Sqrt2) / 2 }
