package scenarios

import (
	"testing"
	"time"
)

func TestSchedule(t *testing.T) {
	p := DefaultPlan()
	p.Steps = []int{1, 2, 4}
	p.Ramp, p.Warmup, p.Duration = 10*time.Second, 8*time.Second, 20*time.Second
	got := Schedule(p)
	if len(got) != 3 {
		t.Fatalf("%d steps", len(got))
	}
	cases := []struct {
		step, first int
		starts      []time.Duration
	}{
		{0, 0, []time.Duration{0}},
		{1, 1, []time.Duration{0, 5 * time.Second}},
		{2, 3, []time.Duration{0, 2500 * time.Millisecond, 5 * time.Second, 7500 * time.Millisecond}},
	}
	for _, c := range cases {
		s := got[c.step]
		if s.FirstCall != c.first || len(s.Starts) != len(c.starts) {
			t.Fatalf("step %d: first %d starts %v", c.step, s.FirstCall, s.Starts)
		}
		for i := range c.starts {
			if s.Starts[i] != c.starts[i] {
				t.Errorf("step %d call %d starts at %v, want %v", c.step, i, s.Starts[i], c.starts[i])
			}
			if s.Calls[i] != c.first+i || s.Call(i) != c.first+i {
				t.Errorf("step %d call %d is numbered %d", c.step, i, s.Calls[i])
			}
		}
		if s.Measure != [2]time.Duration{18 * time.Second, 38 * time.Second} || s.End != 38*time.Second {
			t.Errorf("step %d window %v end %v", c.step, s.Measure, s.End)
		}
	}
	if p.Total() != 3*38*time.Second {
		t.Errorf("total %v", p.Total())
	}
}

func TestValidate(t *testing.T) {
	ok := DefaultPlan()
	if errs := ok.Validate(); len(errs) != 0 {
		t.Fatalf("default plan: %v", errs)
	}
	bad := DefaultPlan()
	bad.Steps = []int{2, 2, -1}
	bad.Duration = 0
	bad.PauseMin, bad.PauseMax = time.Second, 0
	bad.Timeouts.Answer = 0
	if errs := bad.Validate(); len(errs) != 5 {
		t.Fatalf("want 5 problems at once, got %d: %v", len(errs), errs)
	}
}

func TestParseSteps(t *testing.T) {
	for in, want := range map[string]int{"1,2,4,8": 4, " 3 , 5 ": 2, "": 0} {
		got, err := ParseSteps(in)
		if err != nil || len(got) != want {
			t.Errorf("ParseSteps(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSteps("1,x"); err == nil {
		t.Error("ParseSteps(1,x): no error")
	}
}
