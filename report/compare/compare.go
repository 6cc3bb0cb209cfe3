package compare

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
)

// Side describes one of the two runs.
type Side struct {
	Path     string
	Steps    []int // N of each step
	Capacity int
	Started  time.Time
}

// Row is one quantity of one scope, in both runs.
type Row struct {
	Quantity         Quantity
	Base, Cand       float64
	HasBase, HasCand bool
	P                float64 // latency: two-sided Mann-Whitney p of the metric's samples; NaN otherwise
}

// Table is one scope side by side: overall, or one N.
type Table struct {
	Scope string // "overall", "N=8"
	Rows  []Row
}

// Status is a rule's outcome; the order is severity, worst last.
type Status int

const (
	StatusSkip  Status = iota + 1 // nothing to compare: no value in a run, no such step
	StatusPass                    // the rule holds
	StatusNoise                   // broken, but the latency change is not significant: passes
	StatusFail                    // broken: a regression
)

var statusNames = []string{"?", "SKIP", "PASS", "NOISE", "FAIL"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return "?"
	}
	return statusNames[s]
}

// Check is a rule in one scope.
type Check struct {
	Scope             string
	Status            Status
	Base, Cand, Limit float64
	P                 float64 // one-sided Mann-Whitney p toward breaking the rule; NaN when not tested
	Note              string  // why a check was skipped, or that a break is noise
}

// Result is a rule's outcome over its scopes: the worst of its checks.
type Result struct {
	Rule   Rule
	Status Status
	Checks []Check
}

// Comparison is the two runs side by side and the gate's verdict.
type Comparison struct {
	Base, Cand Side
	Alpha      float64
	Tables     []Table // overall first, then each N of either run
	Results    []Result
	Warnings   []string
}

// Compare sets cand beside base and evaluates g's rules.
func Compare(base, cand *report.Run, g Gate) *Comparison {
	bd, cd := base.Steps(), cand.Steps()
	c := &Comparison{Base: sideOf(base), Cand: sideOf(cand), Alpha: g.Alpha}
	c.Tables = append(c.Tables, table("overall", overall(base, bd), true, overall(cand, cd), true))
	for _, n := range allNs(base.Report, cand.Report) {
		bv, okb := byN(base, bd, n)
		cv, okc := byN(cand, cd, n)
		c.Tables = append(c.Tables, table(scopeLabel(n), bv, okb, cv, okc))
	}
	for _, r := range g.Rules {
		c.Results = append(c.Results, evaluate(r, base, bd, cand, cd, g.Alpha))
	}
	c.Warnings = warnings(base, cand)
	return c
}

// Regressed reports whether any rule failed.
func (c *Comparison) Regressed() bool { return c.Count(StatusFail) > 0 }

// Count is how many rules ended with status s.
func (c *Comparison) Count(s Status) int {
	n := 0
	for _, r := range c.Results {
		if r.Status == s {
			n++
		}
	}
	return n
}

func sideOf(run *report.Run) Side {
	r := run.Report
	return Side{Path: run.Path, Steps: r.Config.Steps, Capacity: r.Capacity.N, Started: r.Started}
}

// table lists every quantity either side has in this scope.
func table(label string, b view, okb bool, c view, okc bool) Table {
	t := Table{Scope: label}
	add := func(q Quantity, p float64) {
		row := Row{Quantity: q, P: p}
		if okb {
			row.Base, row.HasBase = b.value(q)
		}
		if okc {
			row.Cand, row.HasCand = c.value(q)
		}
		if row.HasBase || row.HasCand {
			t.Rows = append(t.Rows, row)
		}
	}
	for _, m := range checks.Metrics() {
		var xs, ys []float64
		if okb {
			xs = b.samples(m)
		}
		if okc {
			ys = c.samples(m)
		}
		p := math.NaN()
		if mw, err := MannWhitneyU(ys, xs); err == nil {
			p = mw.TwoSided
		}
		for _, pct := range []float64{50, 95, 99} {
			add(Quantity{Kind: KindLatency, Metric: m, Percentile: pct}, p)
		}
	}
	for _, k := range []Kind{KindUnderstood, KindClean, KindUnderruns, KindCapacity, KindAgentCPU, KindAgentRSS} {
		add(Quantity{Kind: k}, math.NaN())
	}
	return t
}

// evaluate checks a rule in each of its scopes.
func evaluate(r Rule, base *report.Run, bd []report.StepData, cand *report.Run, cd []report.StepData, alpha float64) Result {
	res := Result{Rule: r}
	switch r.Scope.Kind {
	case ScopeOverall:
		res.Checks = []Check{check(r, "overall", overall(base, bd), overall(cand, cd), alpha)}
	case ScopeN:
		res.Checks = []Check{checkN(r, r.Scope.N, base, bd, cand, cd, alpha)}
	case ScopeEach:
		for _, n := range commonNs(base.Report, cand.Report) {
			res.Checks = append(res.Checks, checkN(r, n, base, bd, cand, cd, alpha))
		}
		if len(res.Checks) == 0 {
			res.Checks = []Check{{Scope: "each", Status: StatusSkip, P: math.NaN(), Note: "the runs have no step size in common"}}
		}
	}
	for _, ch := range res.Checks {
		res.Status = max(res.Status, ch.Status)
	}
	return res
}

func checkN(r Rule, n int, base *report.Run, bd []report.StepData, cand *report.Run, cd []report.StepData, alpha float64) Check {
	bv, okb := byN(base, bd, n)
	cv, okc := byN(cand, cd, n)
	label := scopeLabel(n)
	switch {
	case !okb:
		return Check{Scope: label, Status: StatusSkip, P: math.NaN(), Note: "the base has no step of " + label}
	case !okc:
		return Check{Scope: label, Status: StatusSkip, P: math.NaN(), Note: "the candidate has no step of " + label}
	}
	return check(r, label, bv, cv, alpha)
}

// check applies a rule to one scope of both runs.
func check(r Rule, label string, b, c view, alpha float64) Check {
	ch := Check{Scope: label, P: math.NaN()}
	var okb, okc bool
	ch.Base, okb = b.value(r.Quantity)
	ch.Cand, okc = c.value(r.Quantity)
	switch {
	case !okc:
		ch.Status, ch.Note = StatusSkip, "no "+r.Quantity.String()+" in the candidate"
		return ch
	case r.Limit.Base && !okb:
		ch.Status, ch.Note = StatusSkip, "no "+r.Quantity.String()+" in the base"
		return ch
	}
	ch.Limit = r.Limit.of(ch.Base)
	if r.Op.holds(ch.Cand, ch.Limit) {
		ch.Status = StatusPass
		return ch
	}
	ch.Status = StatusFail
	if !r.Significant() {
		return ch
	}
	mw, err := MannWhitneyU(c.samples(r.Quantity.Metric), b.samples(r.Quantity.Metric))
	if err != nil {
		ch.Note = "not tested: " + err.Error()
		return ch
	}
	ch.P = mw.Less
	if r.Op.upper() {
		ch.P = mw.Greater // the rule breaks upward: is the candidate significantly slower?
	}
	if ch.P >= alpha {
		ch.Status = StatusNoise
		ch.Note = fmt.Sprintf("not significant (Mann-Whitney p %s >= %s)", formatP(ch.P), formatAlpha(alpha))
	}
	return ch
}

// warnings flag what makes the comparison less telling.
func warnings(base, cand *report.Run) []string {
	var out []string
	if !slices.Equal(base.Report.Config.Steps, cand.Report.Config.Steps) {
		out = append(out, fmt.Sprintf("the runs' steps differ (%s vs %s): overall figures pool other loads",
			ints(base.Report.Config.Steps), ints(cand.Report.Config.Steps)))
	}
	for _, side := range []struct {
		name string
		run  *report.Run
	}{{"base", base}, {"candidate", cand}} {
		for _, s := range side.run.Report.Steps {
			if s.Generator.Bound {
				out = append(out, fmt.Sprintf("%s step N=%d was generator_bound: its figures are not trusted", side.name, s.N))
			}
		}
	}
	return out
}
