package compare

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/callfleet/callfleet/checks"
)

// Named errors; functions wrap them with context, so test with errors.Is.
var (
	// ErrRule means a rule that does not parse; the error names the rule and what is wrong.
	ErrRule = errors.New("compare: bad rule")
	// ErrGate means a gate file that cannot be read or is not a gate.
	ErrGate = errors.New("compare: bad gate file")
	// ErrAlpha means a significance level outside (0, 1).
	ErrAlpha = errors.New("compare: bad alpha")
	// ErrNoSamples means a statistical test given an empty sample.
	ErrNoSamples = errors.New("compare: no samples")
)

// Kind is what a rule measures.
type Kind int

const (
	KindUnknown    Kind = iota
	KindLatency         // a percentile of a checks.Metric, ms
	KindUnderstood      // share of turns understood, 0..1
	KindClean           // share of calls clean, 0..1
	KindUnderruns       // underruns per minute of agent audio
	KindCapacity        // the run's capacity, calls
	KindAgentCPU        // thousandths of a core per conversation
	KindAgentRSS        // MiB of agent RSS per call
)

// kindNames are the quantity names of the grammar (latency has its own form).
var kindNames = map[string]Kind{
	"understood": KindUnderstood, "clean": KindClean, "underruns": KindUnderruns,
	"capacity": KindCapacity, "agent_cpu": KindAgentCPU, "agent_rss": KindAgentRSS,
}

// Quantity is one figure of a run: a latency percentile or a count-based figure.
type Quantity struct {
	Kind       Kind
	Metric     checks.Metric // KindLatency only
	Percentile float64       // KindLatency only: 0 < p <= 100
}

// String is the quantity as a rule writes it: p95(speech_end_to_reply), understood.
func (q Quantity) String() string {
	if q.Kind == KindLatency {
		return "p" + strconv.FormatFloat(q.Percentile, 'f', -1, 64) + "(" + q.Metric.String() + ")"
	}
	for _, name := range quantityNames() {
		if kindNames[name] == q.Kind {
			return name
		}
	}
	return "unknown"
}

// Share reports whether the quantity is a share (understood, clean), written as a percentage.
func (q Quantity) Share() bool { return q.Kind == KindUnderstood || q.Kind == KindClean }

// Op is a rule's comparison.
type Op int

const (
	OpUnknown Op = iota
	OpLT
	OpLE
	OpGT
	OpGE
)

var opNames = []string{"?", "<", "<=", ">", ">="}

func (o Op) String() string {
	if o < 0 || int(o) >= len(opNames) {
		return "?"
	}
	return opNames[o]
}

// holds reports whether v op limit.
func (o Op) holds(v, limit float64) bool {
	switch o {
	case OpLT:
		return v < limit
	case OpLE:
		return v <= limit
	case OpGT:
		return v > limit
	case OpGE:
		return v >= limit
	}
	return false
}

// upper reports whether the op bounds the value from above (a rise breaks it).
func (o Op) upper() bool { return o == OpLT || o == OpLE }

// Limit is a rule's right-hand side.
type Limit struct {
	Base     bool    // the limit is the base's value moved by Value
	Relative bool    // Base only: Value is a fraction of the base's value (+10% is 0.1)
	Value    float64 // the absolute limit, or the signed move from the base, in the quantity's unit
}

// of is the limit given the base's value.
func (l Limit) of(base float64) float64 {
	switch {
	case !l.Base:
		return l.Value
	case l.Relative:
		return base * (1 + l.Value)
	}
	return base + l.Value
}

// ScopeKind says which steps a rule looks at.
type ScopeKind int

const (
	ScopeOverall ScopeKind = iota // every measured step pooled
	ScopeEach                     // every N both runs have, one by one
	ScopeN                        // the step of N calls
)

// Scope is a rule's steps.
type Scope struct {
	Kind ScopeKind
	N    int // ScopeN only
}

func (s Scope) String() string {
	switch s.Kind {
	case ScopeEach:
		return "each"
	case ScopeN:
		return "n=" + strconv.Itoa(s.N)
	}
	return "overall"
}

// Rule is one parsed gate rule.
type Rule struct {
	Text     string // as written
	Quantity Quantity
	Scope    Scope
	Op       Op
	Limit    Limit
}

// Significant reports whether the rule is gated by the significance test: a latency relative to
// the base.
func (r Rule) Significant() bool { return r.Quantity.Kind == KindLatency && r.Limit.Base }

var (
	ruleOp   = regexp.MustCompile(`<=|>=|<|>`)
	ruleLeft = regexp.MustCompile(`^(?:p([0-9.]+)\(\s*([A-Za-z0-9_]*)\s*\)|([A-Za-z_][A-Za-z0-9_]*))\s*(?:\{\s*([^}]*?)\s*\})?$`)
	ruleLim  = regexp.MustCompile(`^(base)?\s*([+-])?\s*([0-9]*\.?[0-9]+)?\s*(ms|s|%|pp)?$`)
)

// ParseRule parses one rule (see the package documentation for the grammar).
func ParseRule(text string) (Rule, error) {
	r := Rule{Text: strings.TrimSpace(text)}
	bad := func(format string, a ...any) (Rule, error) {
		return Rule{}, fmt.Errorf("%w %q: %s", ErrRule, r.Text, fmt.Sprintf(format, a...))
	}
	loc := ruleOp.FindStringIndex(r.Text)
	if loc == nil {
		return bad("no comparison: want one of <, <=, >, >=")
	}
	left, right := strings.TrimSpace(r.Text[:loc[0]]), strings.TrimSpace(r.Text[loc[1]:])
	r.Op = map[string]Op{"<": OpLT, "<=": OpLE, ">": OpGT, ">=": OpGE}[r.Text[loc[0]:loc[1]]]
	if ruleOp.MatchString(right) {
		return bad("more than one comparison")
	}
	var err error
	if r.Quantity, r.Scope, err = parseLeft(left); err != nil {
		return bad("%v", err)
	}
	if r.Limit, err = parseLimit(right, r.Quantity); err != nil {
		return bad("%v", err)
	}
	return r, nil
}

// ParseRules parses every rule and reports every bad one at once.
func ParseRules(texts []string) ([]Rule, error) {
	var rules []Rule
	var errs []error
	for _, t := range texts {
		r, err := ParseRule(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rules = append(rules, r)
	}
	return rules, errors.Join(errs...)
}

func parseLeft(s string) (Quantity, Scope, error) {
	m := ruleLeft.FindStringSubmatch(s)
	if m == nil {
		return Quantity{}, Scope{}, fmt.Errorf("%q is not a quantity: want pNN(metric), %s", s, strings.Join(quantityNames(), ", "))
	}
	var q Quantity
	if m[3] != "" {
		k, ok := kindNames[m[3]]
		if !ok {
			return q, Scope{}, fmt.Errorf("unknown quantity %q: want pNN(metric), %s", m[3], strings.Join(quantityNames(), ", "))
		}
		q.Kind = k
	} else {
		p, err := strconv.ParseFloat(m[1], 64)
		if err != nil || !(p > 0 && p <= 100) {
			return q, Scope{}, fmt.Errorf("percentile %q: want a number in (0, 100]", m[1])
		}
		metric, err := checks.ParseMetric(m[2])
		if err != nil {
			return q, Scope{}, fmt.Errorf("unknown latency %q: want one of %s", m[2], strings.Join(metricNames(), ", "))
		}
		q = Quantity{Kind: KindLatency, Metric: metric, Percentile: p}
	}
	sc, err := parseScope(m[4])
	if err != nil {
		return q, sc, err
	}
	if q.Kind == KindCapacity && sc.Kind != ScopeOverall {
		return q, sc, fmt.Errorf("capacity is a figure of the whole run: it takes no {%s}", sc)
	}
	return q, sc, nil
}

func parseScope(s string) (Scope, error) {
	switch s = strings.ToLower(strings.ReplaceAll(s, " ", "")); {
	case s == "" || s == "overall":
		return Scope{Kind: ScopeOverall}, nil
	case s == "each":
		return Scope{Kind: ScopeEach}, nil
	case strings.HasPrefix(s, "n="):
		n, err := strconv.Atoi(s[2:])
		if err != nil || n <= 0 {
			return Scope{}, fmt.Errorf("scope {%s}: want n= a positive number of calls", s)
		}
		return Scope{Kind: ScopeN, N: n}, nil
	}
	return Scope{}, fmt.Errorf("scope {%s}: want {overall}, {each} or {n=N}", s)
}

func parseLimit(s string, q Quantity) (Limit, error) {
	m := ruleLim.FindStringSubmatch(s)
	if s == "" || m == nil {
		return Limit{}, fmt.Errorf("limit %q: want base, base+AMOUNT, +AMOUNT or AMOUNT (AMOUNT: a number with ms, s, %% or pp)", s)
	}
	base, sign, num, unit := m[1] != "", m[2], m[3], m[4]
	if num == "" && (sign != "" || unit != "") || (num == "" && !base) {
		return Limit{}, fmt.Errorf("limit %q: a sign or unit needs a number", s)
	}
	if base && num != "" && sign == "" {
		return Limit{}, fmt.Errorf("limit %q: write base+%s or base-%s", s, num, num)
	}
	if num == "" {
		return Limit{Base: true}, nil
	}
	// Scaling in the decimal exponent keeps 99.9% exactly 0.999, not 0.9990000000000001.
	scaled := func(exp string) float64 {
		v, _ := strconv.ParseFloat(num+exp, 64) // num matched [0-9]*.?[0-9]+: always a number
		if sign == "-" {
			v = -v
		}
		return v
	}
	l := Limit{Base: base || sign != ""}
	switch {
	case unit == "%" && l.Base:
		l.Relative, l.Value = true, scaled("e-2")
	case unit == "%" && q.Share():
		l.Value = scaled("e-2")
	case unit == "%":
		return Limit{}, fmt.Errorf("limit %q: a percentage of %s needs a sign (+%s%%) or base (base+%s%%)", s, q, num, num)
	case unit == "pp" && !q.Share():
		return Limit{}, fmt.Errorf("limit %q: pp (percentage points) is for understood and clean", s)
	case unit == "pp" && !l.Base:
		return Limit{}, fmt.Errorf("limit %q: pp moves the base: write +%spp, -%spp or an absolute %s%%", s, num, num, num)
	case unit == "pp":
		l.Value = scaled("e-2")
	case (unit == "ms" || unit == "s") && q.Kind != KindLatency:
		return Limit{}, fmt.Errorf("limit %q: %s is not a latency", s, q)
	case unit == "s":
		l.Value = scaled("e3")
	case unit == "" && q.Share():
		return Limit{}, fmt.Errorf("limit %q: write a share as a percentage (%s%%) or percentage points (+%spp)", s, num, num)
	default:
		l.Value = scaled("") // ms, or the quantity's own unit
	}
	return l, nil
}

func quantityNames() []string {
	return []string{"understood", "clean", "underruns", "capacity", "agent_cpu", "agent_rss"}
}

func metricNames() []string {
	var out []string
	for _, m := range checks.Metrics() {
		out = append(out, m.String())
	}
	return out
}
