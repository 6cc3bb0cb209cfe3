package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/callfleet/callfleet/checks"
)

func TestParseRule(t *testing.T) {
	lat := func(p float64, m checks.Metric) Quantity {
		return Quantity{Kind: KindLatency, Metric: m, Percentile: p}
	}
	e2r := checks.MetricSpeechEndToReply
	tests := []struct {
		text  string
		q     Quantity
		scope Scope
		op    Op
		limit Limit
	}{
		{"p95(speech_end_to_reply) <= +10%", lat(95, e2r), Scope{}, OpLE, Limit{Base: true, Relative: true, Value: 0.1}},
		{"  p99.9( speech_end_to_reply )<-5 %", lat(99.9, e2r), Scope{}, OpLT, Limit{Base: true, Relative: true, Value: -0.05}},
		{"p50(reply_start){n=8} <= base+50ms", lat(50, checks.MetricReplyStart), Scope{Kind: ScopeN, N: 8}, OpLE, Limit{Base: true, Value: 50}},
		{"p95(connect){each} <= 1.5s", lat(95, checks.MetricConnect), Scope{Kind: ScopeEach}, OpLE, Limit{Value: 1500}},
		{"p100(session_start) <= 900", lat(100, checks.MetricSessionStart), Scope{}, OpLE, Limit{Value: 900}},
		{"understood >= 99.9%", Quantity{Kind: KindUnderstood}, Scope{}, OpGE, Limit{Value: 0.999}},
		{"clean{ overall } >= base-0.5pp", Quantity{Kind: KindClean}, Scope{}, OpGE, Limit{Base: true, Value: -0.005}},
		{"capacity >= base", Quantity{Kind: KindCapacity}, Scope{}, OpGE, Limit{Base: true}},
		{"capacity > base-1", Quantity{Kind: KindCapacity}, Scope{}, OpGT, Limit{Base: true, Value: -1}},
		{"underruns{each} <= 1", Quantity{Kind: KindUnderruns}, Scope{Kind: ScopeEach}, OpLE, Limit{Value: 1}},
		{"agent_cpu <= +10%", Quantity{Kind: KindAgentCPU}, Scope{}, OpLE, Limit{Base: true, Relative: true, Value: 0.1}},
		{"agent_rss{n=4} <= base+2", Quantity{Kind: KindAgentRSS}, Scope{Kind: ScopeN, N: 4}, OpLE, Limit{Base: true, Value: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			r, err := ParseRule(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if r.Quantity != tc.q || r.Scope != tc.scope || r.Op != tc.op || r.Limit != tc.limit {
				t.Errorf("got %+v %+v %v %+v, want %+v %+v %v %+v", r.Quantity, r.Scope, r.Op, r.Limit, tc.q, tc.scope, tc.op, tc.limit)
			}
			if r.Text != strings.TrimSpace(tc.text) {
				t.Errorf("text %q", r.Text)
			}
		})
	}
}

func TestParseRuleErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"p95(speech_end_to_reply) +10%", "no comparison"},
		{"p95(speech_end_to_reply) <= 1 <= 2", "more than one comparison"},
		{"p95(speech_to_reply) <= +10%", `unknown latency "speech_to_reply"`},
		{"p0(connect) <= 10", `percentile "0"`},
		{"p101(connect) <= 10", `percentile "101"`},
		{"latency <= 10", `unknown quantity "latency"`},
		{"p95 speech_end_to_reply <= 10", "is not a quantity"},
		{"capacity{each} >= base", "capacity is a figure of the whole run"},
		{"understood{n=0} >= 99%", "scope {n=0}"},
		{"understood{steps} >= 99%", "scope {steps}"},
		{"p95(connect) <= 10%", "needs a sign"},
		{"p95(connect) <= base 10", "write base+10 or base-10"},
		{"p95(connect) <= ", "limit"},
		{"p95(connect) <= +", "a sign or unit needs a number"},
		{"p95(connect) <= fast", `limit "fast"`},
		{"understood >= 99.9", "write a share as a percentage"},
		{"understood >= 1pp", "pp moves the base"},
		{"capacity >= +1pp", "pp (percentage points) is for understood and clean"},
		{"agent_cpu <= 100ms", "agent_cpu is not a latency"},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			_, err := ParseRule(tc.text)
			if !errors.Is(err, ErrRule) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), strings.TrimSpace(tc.text)) {
				t.Errorf("got %v; want ErrRule naming the rule and %q", err, tc.want)
			}
		})
	}
}

func TestParseRulesReportsEveryBadRule(t *testing.T) {
	rules, err := ParseRules([]string{"capacity >= base", "nope < 1", "understood >= 2"})
	if len(rules) != 1 || err == nil || !strings.Contains(err.Error(), `"nope < 1"`) || !strings.Contains(err.Error(), `"understood >= 2"`) {
		t.Errorf("got %d rules, %v", len(rules), err)
	}
}

func TestQuantityStringRoundTrips(t *testing.T) {
	for _, text := range append([]string{"p99.9(speech_end_to_transcript) <= 1"}, DefaultRules...) {
		r, err := ParseRule(text)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseRule(r.Quantity.String() + " " + r.Op.String() + " 1" + map[bool]string{true: "%", false: ""}[r.Quantity.Share()])
		if err != nil || again.Quantity != r.Quantity {
			t.Errorf("%q: %v, %v", text, again.Quantity, err)
		}
	}
}

func TestGate(t *testing.T) {
	g, err := ParseGate([]byte("alpha: 0.01\nrules:\n  - p95(speech_end_to_reply) <= +10%\n  - capacity >= base\n"))
	if err != nil || g.Alpha != 0.01 || len(g.Rules) != 2 {
		t.Fatalf("%+v, %v", g, err)
	}
	if g, err := ParseGate([]byte("rules: [understood >= 99%]")); err != nil || g.Alpha != DefaultAlpha {
		t.Errorf("default alpha: %+v, %v", g, err)
	}
	bad := []struct{ yaml, want string }{
		{"rules: [capacity >= base]\nthreshold: 1\n", "unknown field"},
		{"alpha: 1.5\nrules: [capacity >= base]\n", "bad alpha 1.5"},
		{"alpha: 0.05\n", "no rules"},
		{"rules:\n  - capacity >= base\n  - p95(speech_end_to_reply) <= 10%\n", `"p95(speech_end_to_reply) <= 10%"`},
		{"rules: {a: 1}\n", "compare: bad gate file"},
	}
	for _, tc := range bad {
		if _, err := ParseGate([]byte(tc.yaml)); !(errors.Is(err, ErrGate) || errors.Is(err, ErrRule) || errors.Is(err, ErrAlpha)) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want ErrGate, ErrRule or ErrAlpha and %q", tc.yaml, err, tc.want)
		}
	}
	if len(DefaultGate().Rules) != len(DefaultRules) {
		t.Error("default gate lost a rule")
	}
}
