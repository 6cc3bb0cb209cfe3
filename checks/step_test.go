package checks

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
)

// slower delays a turn's reply by d ms beyond goodTurn's 1000 ms speech_end_to_reply.
func slower(d float64) func(t *callers.Turn) {
	return func(t *callers.Turn) { *t.Marks.ReplyStart += callers.Ms(d) }
}

func TestStepRules(t *testing.T) {
	base := stepOf(1, 5, nil) // median speech_end_to_reply 1000 ms: the limit is 1300 ms
	tests := []struct {
		name  string
		step  func() StepInput
		th    func(th *Thresholds)
		ok    bool
		bound bool
		want  string // a substring of one reason
	}{
		{"all good", func() StepInput { return stepOf(4, 5, nil) }, nil, true, false, ""},
		{"underruns 2/min fail (the seed's step 4)", func() StepInput {
			s := stepOf(4, 5, nil) // 20 turns x 3 s = 1 min of agent audio
			s.Turns[3].Underruns, s.Turns[11].Underruns = 1, 1
			return s
		}, nil, false, false, "underruns 2.0/min > 1/min of agent audio (2 in 1.0 min)"},
		{"underruns 1/min pass", func() StepInput {
			s := stepOf(4, 5, nil)
			s.Turns[3].Underruns = 1
			return s
		}, nil, true, false, ""},
		{"underruns with no agent audio", func() StepInput {
			return stepOf(1, 1, func(t *callers.Turn) { t.AgentAudio, t.Underruns = 0, 1 })
		}, nil, false, false, "1 underruns with no agent audio"},
		{"one missing answer fails", func() StepInput {
			s := stepOf(4, 5, nil)
			s.Turns[7].Marks.ReplyStart, s.Turns[7].Heard = nil, ""
			return s
		}, func(th *Thresholds) { th.MinUnderstood = 0 }, false, false, "1 of 20 turns got no reply audio"},
		{"a call never answered", func() StepInput {
			s := stepOf(2, 1, nil)
			s.Turns = s.Turns[:1]
			return s
		}, nil, false, false, "1 of 2 calls got no reply audio"},
		{"cancelled turns are not unanswered", func() StepInput {
			s := stepOf(2, 2, nil)
			s.Turns[1].Marks.ReplyStart, s.Turns[1].Error = nil, "cancelled"
			return s
		}, func(th *Thresholds) { th.MinUnderstood = 0.5 }, true, false, ""},
		{"a call did not connect", func() StepInput {
			s := stepOf(2, 1, nil)
			s.Calls[1].Connected = false
			s.Turns = s.Turns[:1]
			return s
		}, nil, false, false, "1 of 2 calls did not connect"},
		{"no calls", func() StepInput { return StepInput{N: 2} }, nil, false, false, "no calls measured"},
		{"p95 at the limit passes", func() StepInput { return stepOf(2, 5, slower(300)) }, nil, true, false, ""},
		{"p95 over the limit fails", func() StepInput { return stepOf(2, 5, slower(1410)) }, nil, false, false,
			"p95 speech_end_to_reply 2.41 s > 1.30 s (first step median 1.00 s + 300 ms)"},
		{"one turn misunderstood fails at 100 %", func() StepInput {
			s := stepOf(4, 5, nil)
			s.Turns[2].Heard = "1"
			return s
		}, nil, false, false, "turns understood 95 % (19 of 20) < 100 %"},
		{"one turn misunderstood passes at 95 %", func() StepInput {
			s := stepOf(4, 5, nil)
			s.Turns[2].Heard = "1"
			return s
		}, func(th *Thresholds) { th.MinUnderstood = 0.95 }, true, false, ""},
		{"generator lateness", func() StepInput {
			return stepOf(2, 5, func(t *callers.Turn) { t.LatenessP99 = 14 })
		}, nil, false, true, "generator_bound: send lateness p99 14 ms > 10 ms; figures not trusted"},
		{"generator CPU", func() StepInput {
			s := stepOf(2, 5, nil)
			s.GeneratorCPU = 0.95
			return s
		}, nil, false, true, "generator_bound: generator CPU 95 % >= 90 %"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			th := DefaultThresholds()
			if tc.th != nil {
				tc.th(&th)
			}
			vs, _ := Steps([]StepInput{base, tc.step()}, th)
			v := vs[1]
			if v.OK != tc.ok || v.GeneratorBound != tc.bound {
				t.Fatalf("got ok=%v bound=%v reasons=%q", v.OK, v.GeneratorBound, v.Reasons)
			}
			if tc.want != "" && !slices.ContainsFunc(v.Reasons, func(r string) bool { return strings.Contains(r, tc.want) }) {
				t.Errorf("reasons %q lack %q", v.Reasons, tc.want)
			}
			if !vs[0].OK {
				t.Errorf("baseline step failed: %q", vs[0].Reasons)
			}
		})
	}
}

func TestCapacity(t *testing.T) {
	ok := func(n int) StepInput { return stepOf(n, 3, nil) }
	bad := func(n int) StepInput { // the agent misheard: a failure whatever the caller's ears
		s := stepOf(n, 3, nil)
		s.Turns[0].ServerTranscripts, s.Turns[0].Heard = []string{"1"}, "1"
		return s
	}
	bound := func(n int) StepInput {
		s := stepOf(n, 3, nil)
		s.GeneratorCPU = 1
		return s
	}
	tests := []struct {
		name  string
		steps []StepInput
		n     int
		bound bool
		note  string
	}{
		{"all ok", []StepInput{ok(1), ok(2), ok(4)}, 4, false, "every step was ok: capacity is at least 4"},
		{"largest ok prefix", []StepInput{ok(1), ok(2), bad(4), ok(8)}, 2, false, "step N=4 failed: turns understood"},
		{"in order of N whatever the input order", []StepInput{ok(8), bad(4), ok(1), ok(2)}, 2, false, "step N=4 failed"},
		{"first step fails", []StepInput{bad(1), ok(2)}, 0, false, "step N=1 failed"},
		{"generator bound", []StepInput{ok(1), ok(2), bound(4)}, 2, true, "step N=4 was generator_bound"},
		{"no steps", nil, 0, false, "no steps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, c := Steps(tc.steps, DefaultThresholds())
			if len(vs) != len(tc.steps) {
				t.Fatalf("%d verdicts for %d steps", len(vs), len(tc.steps))
			}
			if c.N != tc.n || c.Bound != tc.bound || !strings.Contains(c.Note, tc.note) {
				t.Errorf("got %+v, want N=%d bound=%v note ~ %q", c, tc.n, tc.bound, tc.note)
			}
		})
	}
}

func TestVerdictsFollowInputOrder(t *testing.T) {
	bad := stepOf(4, 3, nil)
	bad.Turns[0].Heard = ""
	vs, _ := Steps([]StepInput{stepOf(8, 3, nil), bad, stepOf(1, 3, nil)}, DefaultThresholds())
	if !vs[0].OK || vs[1].OK || !vs[2].OK {
		t.Errorf("verdicts out of order: %+v", vs)
	}
}

func TestThresholdsValidate(t *testing.T) {
	if errs := DefaultThresholds().Validate(); len(errs) != 0 {
		t.Fatalf("defaults invalid: %v", errs)
	}
	bad := Thresholds{UnderrunsPerMin: math.NaN(), P95Slack: -1, MinUnderstood: 1.5, MaxGeneratorCPU: 2}
	errs := bad.Validate()
	if len(errs) != 5 {
		t.Fatalf("want 5 errors (every field), got %v", errs)
	}
	for _, err := range errs {
		if !errors.Is(err, ErrThreshold) {
			t.Errorf("%v does not wrap ErrThreshold", err)
		}
	}
}

func TestThresholdsJSON(t *testing.T) {
	th := DefaultThresholds()
	th.P95Slack = 250 * time.Millisecond
	b, err := json.Marshal(th)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"p95_slack":250`) {
		t.Errorf("durations not in ms: %s", b)
	}
	var back Thresholds
	if err := json.Unmarshal(b, &back); err != nil || back != th {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestSummarize(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[100-1-i] = float64(i + 1) // unsorted on purpose
	}
	want := Summary{N: 100, P50: 50.5, P95: 95.05, P99: 99.01, Max: 100}
	if got := Summarize(xs); got != want {
		t.Errorf("got %+v, want %+v (linear interpolation, type 7)", got, want)
	}
	if got := Summarize(nil); got != (Summary{}) {
		t.Errorf("empty: %+v", got)
	}
	if got := Summarize([]float64{7}); got != (Summary{1, 7, 7, 7, 7}) {
		t.Errorf("one sample: %+v", got)
	}
}

func TestMetrics(t *testing.T) {
	turn := goodTurn(0, 0)
	want := map[Metric]callers.Ms{
		MetricSpeechEndToTranscript: 800, MetricTranscriptServer: 3300,
		MetricReplyStart: 200, MetricSpeechEndToReply: 1000,
	}
	for m, w := range want {
		if got, ok := m.OfTurn(turn); !ok || got != w {
			t.Errorf("%v = %v, %v; want %v", m, got, ok, w)
		}
	}
	if _, ok := MetricConnect.OfTurn(turn); ok {
		t.Error("connect is per call")
	}
	turn.Marks.Transcript = nil
	if _, ok := MetricReplyStart.OfTurn(turn); ok {
		t.Error("reply_start without a transcript mark")
	}
	c := goodCall(0)
	if got := Samples(MetricConnect, nil, []callers.CallResult{c, {}}); !slices.Equal(got, []float64{40}) {
		t.Errorf("connect samples %v", got)
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[float64]string{1: "100 %", 0.29: "29 %", 0.99999: "99.99 %", 0.988: "98.8 %"} {
		if got := FormatPct(in); got != want {
			t.Errorf("FormatPct(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[callers.Ms]string{231.4: "231 ms", 2410: "2.41 s", 999.6: "1.00 s", 999.4: "999 ms", -40: "-40 ms"} {
		if got := FormatMs(in); got != want {
			t.Errorf("FormatMs(%v) = %q, want %q", in, got, want)
		}
	}
}
