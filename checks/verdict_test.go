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

// hasLine reports whether a line of lines contains want.
func hasLine(lines []string, want string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) })
}

// slipAt makes turns i of s a caller slip, the agent's text right.
func slipAt(s *StepInput, is ...int) {
	for _, i := range is {
		agentSaid(&s.Turns[i], "71345")
		s.Turns[i].Heard = "713456"
	}
}

func unjudgedAt(s *StepInput, is ...int) {
	for _, i := range is {
		s.Turns[i].Unjudged, s.Turns[i].Heard = "decode queue full", ""
	}
}

func cancelAt(s *StepInput, is ...int) {
	for _, i := range is {
		s.Turns[i].Error, s.Turns[i].Heard, s.Turns[i].Marks.ReplyStart = callers.ReasonCancelled, "", nil
	}
}

// Slips, unjudged and cancelled turns each have their rule; every case can flip the verdict.
func TestStepOutcomes(t *testing.T) {
	base := stepOf(1, 5, nil)
	tests := []struct {
		name     string
		step     func() StepInput
		th       func(th *Thresholds)
		ok       bool
		bound    bool
		tally    TurnTally
		reason   string // a substring of one reason; "" for none at all
		note     string // a substring of one note
		tolerate bool
	}{
		{"a slip fails by default", func() StepInput {
			s := stepOf(4, 5, nil)
			slipAt(&s, 3)
			return s
		}, nil, false, false, TurnTally{Total: 20, Understood: 19, Slips: 1},
			"STT slips 50.00 per 1,000 turns > 0 tolerated (1 of 20 judged turns)", "", false},
		{"a slip within the tolerance passes, noted and counted ok", func() StepInput {
			s := stepOf(4, 5, nil)
			slipAt(&s, 3)
			return s
		}, func(th *Thresholds) { th.TolerateSlips = 50 }, true, false, TurnTally{Total: 20, Understood: 19, Slips: 1},
			"", "1 STT slips tolerated: 50.00 per 1,000 turns <= 50", true},
		{"slips over the tolerance fail", func() StepInput {
			s := stepOf(4, 5, nil)
			slipAt(&s, 3, 9)
			return s
		}, func(th *Thresholds) { th.TolerateSlips = 50 }, false, false, TurnTally{Total: 20, Understood: 18, Slips: 2},
			"STT slips 100.00 per 1,000 turns > 50 tolerated", "", false},
		{"untolerated slips are not understood", func() StepInput {
			s := stepOf(4, 5, nil)
			slipAt(&s, 3)
			return s
		}, nil, false, false, TurnTally{Total: 20, Understood: 19, Slips: 1}, "turns understood 95 % (19 of 20) < 100 %", "", false},
		{"unjudged turns: generator_bound, not the agent's failure", func() StepInput {
			s := stepOf(4, 5, nil)
			unjudgedAt(&s, 0, 5, 10)
			return s
		}, nil, false, true, TurnTally{Total: 20, Understood: 17, Unjudged: 3},
			"generator_bound: ears fell behind: 3 turns unjudged; figures not trusted", "", false},
		{"the understood rule counts judged turns only", func() StepInput {
			s := stepOf(4, 5, nil)
			unjudgedAt(&s, 0)
			cancelAt(&s, 5)
			s.Turns[7].Heard = "1"
			return s
		}, func(th *Thresholds) { th.MinUnderstood = 0.95 }, false, true, TurnTally{Total: 20, Understood: 17, Failed: 1, Unjudged: 1, Cancelled: 1},
			"turns understood 94.44 % (17 of 18; 1 unjudged and 1 cancelled not counted) < 95 %", "", false},
		{"every turn unjudged: nothing judged", func() StepInput {
			s := stepOf(2, 2, nil)
			unjudgedAt(&s, 0, 1, 2, 3)
			return s
		}, nil, false, true, TurnTally{Total: 4, Unjudged: 4}, "no turns judged (4 unjudged, 0 cancelled)", "", false},
		{"decode backlog over its bound: generator_bound", func() StepInput {
			return stepOf(2, 5, func(t *callers.Turn) { t.DecodeWait, t.DecodeTime = 2500, 300 })
		}, nil, false, true, TurnTally{Total: 10, Understood: 10},
			"generator_bound: ears fell behind: decode wait p95 2.50 s > 2.00 s; figures not trusted", "", false},
		{"decode backlog within its bound", func() StepInput {
			return stepOf(2, 5, func(t *callers.Turn) { t.DecodeWait, t.DecodeTime = 1900, 300 })
		}, nil, true, false, TurnTally{Total: 10, Understood: 10}, "", "", false},
		{"decode bound 0: no bound", func() StepInput {
			return stepOf(2, 5, func(t *callers.Turn) { t.DecodeWait = 9000 })
		}, func(th *Thresholds) { th.MaxDecodeWaitP95 = 0 }, true, false, TurnTally{Total: 10, Understood: 10}, "", "", false},
		{"unjudged and cancelled turns without reply audio are not unanswered", func() StepInput {
			s := stepOf(2, 2, nil)
			unjudgedAt(&s, 0, 1)
			s.Turns[0].Marks.ReplyStart, s.Turns[1].Marks.ReplyStart = nil, nil // call 0: no reply audio at all
			cancelAt(&s, 3)
			return s
		}, func(th *Thresholds) { th.MaxDecodeWaitP95 = 0 }, false, true, TurnTally{Total: 4, Understood: 1, Failed: 2, Cancelled: 1},
			"generator_bound: ears fell behind: 2 turns unjudged", "", false},
		{"a call the run cancelled before its first turn is not unanswered", func() StepInput {
			s := stepOf(2, 1, nil)
			s.Turns = s.Turns[:1]
			s.Calls[1].EndedBy, s.Calls[1].Turns = callers.EndedByCancelled, 0
			return s
		}, nil, true, false, TurnTally{Total: 1, Understood: 1}, "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			th := DefaultThresholds()
			if tc.th != nil {
				tc.th(&th)
			}
			vs, _ := Steps([]StepInput{base, tc.step()}, th)
			v := vs[1]
			if v.OK != tc.ok || v.GeneratorBound != tc.bound || v.Turns != tc.tally || v.SlipsTolerated != tc.tolerate {
				t.Fatalf("got ok=%v bound=%v tally=%+v tolerated=%v reasons=%q", v.OK, v.GeneratorBound, v.Turns, v.SlipsTolerated, v.Reasons)
			}
			if tc.reason != "" && !hasLine(v.Reasons, tc.reason) {
				t.Errorf("reasons %q lack %q", v.Reasons, tc.reason)
			}
			if tc.note != "" && !hasLine(v.Notes, tc.note) {
				t.Errorf("notes %q lack %q", v.Notes, tc.note)
			}
			if hasLine(v.Reasons, "reply audio") {
				t.Errorf("unjudged or cancelled turns counted unanswered: %q", v.Reasons)
			}
		})
	}
}

// A step cut short is incomplete: never FAIL, its in-flight turns cancelled, and capacity comes from
// the completed steps.
func TestStepCut(t *testing.T) {
	// The demo: q pressed two seconds into step 2, both calls hung up by the user mid-turn.
	demo := stepOf(2, 1, nil)
	demo.Cut = true
	cancelAt(&demo, 0, 1)
	for i := range demo.Calls {
		demo.Calls[i].EndedBy = callers.EndedByCancelled
	}
	failing := stepOf(2, 3, nil)
	failing.Cut = true
	failing.Turns[0].ServerTranscripts = []string{"1"}
	tests := []struct {
		name    string
		step    StepInput
		reasons bool
	}{
		{"the demo: cut mid-turn", demo, false},
		{"cut before anything was measured", StepInput{N: 2, Cut: true}, false},
		{"cut after a real failure: said, still not FAIL", failing, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, c := Steps([]StepInput{stepOf(1, 3, nil), tc.step}, DefaultThresholds())
			v := vs[1]
			if v.OK || !v.Incomplete || v.Failed() || v.Word() != "incomplete" || !hasLine(v.Notes, "incomplete: the step was cut short") {
				t.Errorf("got %+v (word %q)", v, v.Word())
			}
			if (len(v.Reasons) > 0) != tc.reasons {
				t.Errorf("reasons %q, want some: %v", v.Reasons, tc.reasons)
			}
			if c.N != 1 || !c.Incomplete || !strings.Contains(c.Note, "capacity is at least 1 (step N=2 was cut short)") {
				t.Errorf("capacity %+v", c)
			}
		})
	}
}

func TestCapacityCut(t *testing.T) {
	ok := func(n int) StepInput { return stepOf(n, 3, nil) }
	cut := func(n int) StepInput { s := stepOf(n, 3, nil); s.Cut = true; return s }
	bad := func(n int) StepInput { s := stepOf(n, 3, nil); s.Turns[0].ServerTranscripts = []string{"1"}; return s }
	tests := []struct {
		name       string
		steps      []StepInput
		n          int
		incomplete bool
		note       string
	}{
		{"the last step cut", []StepInput{ok(1), ok(2), cut(4)}, 2, true, "every completed step was ok: capacity is at least 2 (step N=4 was cut short)"},
		{"a step skipped, a later one ok", []StepInput{ok(1), cut(2), ok(4)}, 4, false, "every step was ok: capacity is at least 4"},
		{"a step skipped, a later one failed", []StepInput{ok(1), cut(2), bad(4)}, 1, false, "step N=4 failed"},
		{"the only step cut", []StepInput{cut(1)}, 0, true, "capacity is at least 0 (step N=1 was cut short)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := Steps(tc.steps, DefaultThresholds())
			if c.N != tc.n || c.Incomplete != tc.incomplete || !strings.Contains(c.Note, tc.note) {
				t.Errorf("got %+v, want N=%d incomplete=%v note ~ %q", c, tc.n, tc.incomplete, tc.note)
			}
		})
	}
}

func TestStepVerdictWord(t *testing.T) {
	for v, want := range map[*StepVerdict]string{
		{OK: true}: "ok", {}: "FAIL", {Incomplete: true}: "incomplete", {GeneratorBound: true}: "FAIL",
	} {
		if v.Word() != want || v.Failed() != (want == "FAIL") {
			t.Errorf("%+v: word %q failed %v, want %q", *v, v.Word(), v.Failed(), want)
		}
	}
}

// The generator's ears: decode wait and time summarised over the decodes recorded, unjudged turns
// counted unless the run cancelled them.
func TestGeneratorEars(t *testing.T) {
	tests := []struct {
		name     string
		turns    func() []callers.Turn
		unjudged int
		waits    int
		p95      callers.Ms
		bound    bool
	}{
		{"no decodes recorded", func() []callers.Turn { return stepOf(1, 3, nil).Turns }, 0, 0, 0, false},
		{"decodes recorded", func() []callers.Turn {
			s := stepOf(1, 3, func(t *callers.Turn) { t.DecodeWait, t.DecodeTime = 100, 400 })
			s.Turns[2].DecodeWait, s.Turns[2].DecodeTime = 0, 0 // a turn with no decode
			return s.Turns
		}, 0, 2, 100, false},
		{"unjudged counted", func() []callers.Turn { s := stepOf(1, 3, nil); unjudgedAt(&s, 1); return s.Turns }, 1, 0, 0, true},
		{"transcribe_failed counted", func() []callers.Turn {
			s := stepOf(1, 3, nil)
			s.Turns[1].Error = callers.ReasonTranscribe
			return s.Turns
		}, 1, 0, 0, true},
		{"a cancelled turn's abandoned decode is the cut's", func() []callers.Turn {
			s := stepOf(1, 3, nil)
			cancelAt(&s, 2)
			s.Turns[2].Unjudged = "cancelled"
			return s.Turns
		}, 0, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := GeneratorOf(tc.turns(), 0.3, -1, DefaultThresholds())
			if g.Unjudged != tc.unjudged || g.DecodeWait.N != tc.waits || g.DecodeWait.P95 != tc.p95 || g.Bound != tc.bound {
				t.Errorf("got unjudged=%d waits=%d p95=%v bound=%v (%q)", g.Unjudged, g.DecodeWait.N, g.DecodeWait.P95, g.Bound, g.Why)
			}
		})
	}
}

// calTurns builds n turns of one step whose agent text is the phrase; the caller mishears the
// first wrong of them.
func calTurns(n, wrong int, mut func(t *callers.Turn)) []callers.Turn {
	s := stepOf(1, n, func(t *callers.Turn) { agentSaid(t, "71345") })
	for i := range wrong {
		s.Turns[i].Heard = "1"
	}
	if mut != nil {
		for i := range s.Turns {
			mut(&s.Turns[i])
		}
	}
	return s.Turns
}

func TestCalibrate(t *testing.T) {
	tests := []struct {
		name    string
		turns   []callers.Turn
		want    Calibration
		compare bool // compare Fraction too
	}{
		{"agent text, all agree", calTurns(20, 0, nil), Calibration{Basis: BasisAgentText, N: 20, Agreed: 20, Fraction: 1, Trusted: true}, true},
		{"19 of 20: exactly 95 %, trusted", calTurns(20, 1, nil), Calibration{Basis: BasisAgentText, N: 20, Agreed: 19, Fraction: 0.95, Trusted: true}, true},
		{"18 of 20: not trusted", calTurns(20, 2, nil), Calibration{Basis: BasisAgentText, N: 20, Agreed: 18, Fraction: 0.9}, true},
		{"agrees with what the agent said, not the phrase", calTurns(4, 0, func(t *callers.Turn) {
			agentSaid(t, "99")
			t.Heard = "nine nine"
		}), Calibration{Basis: BasisAgentText, N: 4, Agreed: 4, Fraction: 1, Trusted: true}, true},
		{"server transcript when no agent text", stepOf(1, 4, func(t *callers.Turn) {
			t.ServerTranscripts, t.Heard = []string{"7134"}, "7134"
		}).Turns, Calibration{Basis: BasisServerTranscript, N: 4, Agreed: 4, Fraction: 1, Trusted: true}, true},
		{"no basis", stepOf(1, 2, func(t *callers.Turn) { t.TranscriptChannel, t.ServerTranscripts = false, nil }).Turns,
			Calibration{Basis: BasisNone, Trusted: true}, true},
		{"replies not heard whole are not compared", calTurns(5, 5, func(t *callers.Turn) {
			switch t.Turn {
			case 0:
				t.Unjudged = "decode timeout"
			case 1:
				t.Underruns = 1
			case 2:
				t.Error = callers.ReasonConnection
			case 3:
				t.Marks.ReplyStart = nil
			case 4:
				t.Hangup = true
			}
		}), Calibration{Basis: BasisAgentText, Trusted: true}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Calibrate(tc.turns)
			if !tc.compare {
				got.Fraction = tc.want.Fraction
			}
			if math.Abs(got.Fraction-tc.want.Fraction) < 1e-12 {
				got.Fraction = tc.want.Fraction
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCalibrateSteps(t *testing.T) {
	low := StepInput{N: 1, Turns: calTurns(10, 4, nil)}
	high := StepInput{N: 8, Turns: calTurns(10, 0, nil)}
	if c := CalibrateSteps([]StepInput{high, low}); c.StepN != 1 || c.Agreed != 6 || c.Trusted {
		t.Errorf("lowest step: %+v", c)
	}
	empty := StepInput{N: 1, Turns: calTurns(3, 0, func(t *callers.Turn) { t.Unjudged = "x" })}
	if c := CalibrateSteps([]StepInput{high, empty}); c.StepN != 8 || c.N != 10 {
		t.Errorf("the lowest step with a turn to compare: %+v", c)
	}
	if c := CalibrateSteps(nil); !c.Trusted || c.Basis != BasisNone {
		t.Errorf("no steps: %+v", c)
	}
	c := CalibrateSteps([]StepInput{low})
	if d := c.Describe(); d != "the caller's ears agreed with the agent's text on 60 % of 10 turns at N=1" {
		t.Errorf("Describe: %q", d)
	}
}

// With the ears not trusted, the step says so, and failures resting on the caller's transcription
// alone do not fail it; the agent's own failures still do.
func TestStepsUntrusted(t *testing.T) {
	low := StepInput{N: 1, Turns: calTurns(10, 4, nil), Calls: []callers.CallResult{goodCall(0)}} // 60 %: not trusted
	misheard := func() StepInput {
		s := stepOf(2, 5, func(t *callers.Turn) { agentSaid(t, "71345") })
		s.Turns[1].Heard, s.Turns[6].Heard = "1", "713456"
		return s
	}
	tests := []struct {
		name    string
		step    func() StepInput
		trusted bool
		ok      bool
		reason  string
	}{
		{"misheard and caller slips pass when the ears are not trusted", misheard, false, true, ""},
		{"the same fail when they are", misheard, true, false, "turns understood 80 % (8 of 10) < 100 %"},
		{"the agent's text wrong still fails", func() StepInput {
			s := stepOf(2, 5, nil)
			agentSaid(&s.Turns[1], "12")
			s.Turns[1].Heard = "12"
			return s
		}, false, false, "turns understood 90 % (9 of 10) < 100 %"},
		{"the server transcript wrong still fails", func() StepInput {
			s := stepOf(2, 5, nil)
			s.Turns[1].ServerTranscripts = []string{"12"}
			return s
		}, false, false, "turns understood 90 %"},
		{"a server slip still counts against the slip rule", func() StepInput {
			s := stepOf(2, 5, func(t *callers.Turn) { agentSaid(t, "71345") })
			s.Turns[1].ServerTranscripts = []string{"7134"}
			return s
		}, false, false, "STT slips 100.00 per 1,000 turns > 0 tolerated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cal := CalibrateSteps([]StepInput{low})
			if tc.trusted {
				cal = Calibration{Basis: BasisAgentText, Trusted: true}
			}
			vs, _ := StepsCalibrated([]StepInput{low, tc.step()}, DefaultThresholds(), cal)
			v := vs[1]
			if v.OK != tc.ok || v.CallerUntrusted == tc.trusted {
				t.Fatalf("got ok=%v untrusted=%v reasons=%q notes=%q", v.OK, v.CallerUntrusted, v.Reasons, v.Notes)
			}
			if tc.reason != "" && !hasLine(v.Reasons, tc.reason) {
				t.Errorf("reasons %q lack %q", v.Reasons, tc.reason)
			}
			untrustedNote := hasLine(v.Notes, "caller-side check not trusted (the caller's ears agreed with the agent's text on 60 % of 10 turns at N=1, below 95 %)") &&
				hasLine(v.Notes, "--stt-url")
			if untrustedNote == tc.trusted {
				t.Errorf("notes %q: untrusted note %v, want %v", v.Notes, untrustedNote, !tc.trusted)
			}
		})
	}
	// Steps calibrates on its own lowest step.
	vs, _ := Steps([]StepInput{low, misheard()}, DefaultThresholds())
	if !vs[1].CallerUntrusted || !vs[1].OK {
		t.Errorf("Steps did not calibrate: %+v", vs[1])
	}
}

func TestThresholdsNew(t *testing.T) {
	tests := []struct {
		name string
		mut  func(th *Thresholds)
		bad  string
	}{
		{"tolerate slips negative", func(th *Thresholds) { th.TolerateSlips = -1 }, "tolerate_slips"},
		{"tolerate slips NaN", func(th *Thresholds) { th.TolerateSlips = math.NaN() }, "tolerate_slips"},
		{"tolerate slips over 1,000", func(th *Thresholds) { th.TolerateSlips = 1001 }, "tolerate_slips"},
		{"decode wait negative", func(th *Thresholds) { th.MaxDecodeWaitP95 = -time.Second }, "max_decode_wait_p95"},
		{"tolerate 2.5 per 1,000", func(th *Thresholds) { th.TolerateSlips = 2.5 }, ""},
		{"decode wait 0: no bound", func(th *Thresholds) { th.MaxDecodeWaitP95 = 0 }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			th := DefaultThresholds()
			tc.mut(&th)
			errs := th.Validate()
			if tc.bad == "" {
				if len(errs) != 0 {
					t.Errorf("unexpected %v", errs)
				}
				return
			}
			if len(errs) != 1 || !errors.Is(errs[0], ErrThreshold) || !strings.Contains(errs[0].Error(), tc.bad) {
				t.Errorf("got %v, want one %s error", errs, tc.bad)
			}
		})
	}
}

// Reports written before the new thresholds read back with their defaults.
func TestThresholdsJSONOld(t *testing.T) {
	old := `{"underruns_per_min":1,"p95_slack":300,"min_understood":1,"max_lateness_p99":10,"max_generator_cpu":0.9}`
	var th Thresholds
	if err := json.Unmarshal([]byte(old), &th); err != nil || th != DefaultThresholds() {
		t.Errorf("got %+v, %v; want the defaults", th, err)
	}
	th.TolerateSlips, th.MaxDecodeWaitP95 = 2, 1500*time.Millisecond
	b, _ := json.Marshal(th)
	if !strings.Contains(string(b), `"tolerate_slips":2`) || !strings.Contains(string(b), `"max_decode_wait_p95":1500`) {
		t.Errorf("new fields: %s", b)
	}
}

// TestUnjudgedWhenBound: a step whose generator ran out of CPU or sent late does not blame the
// agent for what its callers alone saw; steps within bounds, and the agent's own failures, stay.
func TestUnjudgedWhenBound(t *testing.T) {
	th := DefaultThresholds()
	underrun := goodTurn(0, 1)
	underrun.Heard, underrun.Underruns = "7134", 1
	wrongServer := goodTurn(0, 2)
	wrongServer.ServerTranscripts = []string{"9999"}
	turns := []callers.Turn{goodTurn(0, 0), underrun, wrongServer}
	for _, tc := range []struct {
		name string
		cpu  float64
		want []Reason
	}{
		{"within bounds", 0.5, []Reason{ReasonNone, ReasonUnderrun, ReasonWrongTranscript}},
		{"CPU saturated", 0.95, []Reason{ReasonNone, ReasonUnjudged, ReasonWrongTranscript}},
	} {
		got := UnjudgedWhenBound(turns, tc.cpu, th)
		for i, tr := range got {
			if r := Turn(tr).Reason; r != tc.want[i] {
				t.Errorf("%s: turn %d reason %v, want %v", tc.name, i, r, tc.want[i])
			}
		}
	}
	if turns[1].Unjudged != "" {
		t.Error("the input was changed")
	}
}

// TestUnderrunsNotJudgedWhenSaturated: a generator short of CPU counts its own late reads as
// gaps, so the underrun rule becomes a note; with CPU to spare it still fails the step.
func TestUnderrunsNotJudgedWhenSaturated(t *testing.T) {
	th := DefaultThresholds()
	turns := []callers.Turn{goodTurn(0, 0), goodTurn(0, 1)}
	turns[0].Underruns, turns[1].Underruns = 3, 3
	for _, tc := range []struct {
		cpu  float64
		fail bool
	}{{0.5, true}, {0.95, false}} {
		v, _ := Steps([]StepInput{{N: 1, Turns: turns, Calls: []callers.CallResult{goodCall(0)}, GeneratorCPU: tc.cpu, MachineSteal: -1}}, th)
		reasons, notes := strings.Join(v[0].Reasons, "\n"), strings.Join(v[0].Notes, "\n")
		if got := strings.Contains(reasons, "underruns"); got != tc.fail {
			t.Errorf("CPU %.2f: underruns among the reasons %v, want %v: %q", tc.cpu, got, tc.fail, reasons)
		}
		if !tc.fail && !strings.Contains(notes, "not judged") {
			t.Errorf("CPU %.2f: notes %q lack the underrun note", tc.cpu, notes)
		}
	}
}
