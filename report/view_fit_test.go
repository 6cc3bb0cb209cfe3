package report

import (
	"math"
	"testing"
)

func TestFitPerCall(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name             string
		steps            []Step
		slope, intercept float64
		ok               bool
	}{
		// 20 m fixed + 15 m a call: CPU/N reads 20, 17.5, 16.25.
		{"exact line", []Step{{N: 4, AgentCPUMilli: f(20)}, {N: 8, AgentCPUMilli: f(17.5)}, {N: 16, AgentCPUMilli: f(16.25)}}, 15, 20, true},
		{"steps without a figure are left out", []Step{{N: 1}, {N: 2, AgentCPUMilli: f(35)}, {N: 4, AgentCPUMilli: f(25)}}, 15, 40, true},
		{"one step size", []Step{{N: 4, AgentCPUMilli: f(20)}, {N: 4, AgentCPUMilli: f(22)}}, 0, 0, false},
		{"one step", []Step{{N: 4, AgentCPUMilli: f(20)}}, 0, 0, false},
		{"a zero step is no point", []Step{{N: 0, AgentCPUMilli: f(9)}, {N: 2, AgentCPUMilli: f(10)}}, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			slope, icpt, ok := fitPerCall(tc.steps, func(s Step) *float64 { return s.AgentCPUMilli })
			if ok != tc.ok || math.Abs(slope-tc.slope) > 1e-9 || math.Abs(icpt-tc.intercept) > 1e-9 {
				t.Errorf("fit = %.3f per call + %.3f (ok %v), want %.3f + %.3f (ok %v)", slope, icpt, ok, tc.slope, tc.intercept, tc.ok)
			}
		})
	}
}
