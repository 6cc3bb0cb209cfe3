package compare

import (
	"errors"
	"math"
	"testing"
)

func TestMannWhitneyKnownValues(t *testing.T) {
	tests := []struct {
		name     string
		x, y     []float64
		u1       float64
		twoSided float64
		tol      float64
	}{
		// SciPy's mannwhitneyu example (Conover): mannwhitneyu(males, females, method="asymptotic")
		// gives statistic 17.0, pvalue 0.11134688653314041.
		{"scipy males/females", []float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}, 17, 0.11134688653314041, 1e-12},
		// R's ?wilcox.test example, airquality Ozone in May against August (NAs dropped), with ties:
		// "W = 127.5, p-value = 0.0001208" (normal approximation, continuity correction).
		{"R airquality ozone, ties",
			[]float64{41, 36, 12, 18, 28, 23, 19, 8, 7, 16, 11, 14, 18, 14, 34, 6, 30, 11, 1, 11, 4, 32, 23, 45, 115, 37},
			[]float64{39, 9, 16, 78, 35, 66, 122, 89, 110, 44, 28, 65, 22, 59, 23, 31, 44, 21, 9, 45, 168, 73, 76, 118, 84, 85},
			127.5, 0.0001208, 5e-8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MannWhitneyU(tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			if got.U1 != tc.u1 || got.U1+got.U2 != float64(len(tc.x)*len(tc.y)) {
				t.Errorf("U1 %v U2 %v, want U1 %v", got.U1, got.U2, tc.u1)
			}
			if math.Abs(got.TwoSided-tc.twoSided) > tc.tol {
				t.Errorf("two-sided p %.10g, want %.10g", got.TwoSided, tc.twoSided)
			}
			// The one-sided p toward the observed side is half the two-sided one.
			if one := min(got.Greater, got.Less); math.Abs(2*one-got.TwoSided) > 1e-12 {
				t.Errorf("one-sided %v is not half of two-sided %v", one, got.TwoSided)
			}
		})
	}
}

func TestMannWhitneyEdges(t *testing.T) {
	if _, err := MannWhitneyU(nil, []float64{1}); !errors.Is(err, ErrNoSamples) {
		t.Errorf("empty sample: %v, want ErrNoSamples", err)
	}
	same, err := MannWhitneyU([]float64{5, 5, 5}, []float64{5, 5})
	if err != nil || same.Greater != 1 || same.Less != 1 || same.TwoSided != 1 {
		t.Errorf("no spread: %+v, %v; want every p 1", same, err)
	}
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}
	ident, _ := MannWhitneyU(x, x)
	if ident.U1 != float64(len(x)*len(x))/2 || ident.Greater < 0.5 || ident.TwoSided != 1 {
		t.Errorf("identical samples: %+v; want U at its mean and nothing significant", ident)
	}
	var lo, hi []float64
	for i := range 30 {
		lo, hi = append(lo, float64(i)), append(hi, float64(i)+20)
	}
	shifted, _ := MannWhitneyU(hi, lo)
	if shifted.Greater > 1e-6 || shifted.Less < 0.99 {
		t.Errorf("shifted by 20: greater p %v, less p %v", shifted.Greater, shifted.Less)
	}
}
