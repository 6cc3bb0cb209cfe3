package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// errWriter keeps the first write error, so renderers check once at the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) line(format string, args ...any) { fmt.Fprintf(e, format+"\n", args...) }

// formatValue writes a quantity's value in its unit.
func formatValue(q Quantity, v float64) string {
	switch q.Kind {
	case KindLatency:
		return checks.FormatMs(callers.Ms(v))
	case KindUnderstood, KindClean:
		return checks.FormatPct(v)
	case KindUnderruns:
		return strconv.FormatFloat(v, 'f', 2, 64) + "/min"
	case KindCapacity:
		return strconv.FormatFloat(v, 'f', 0, 64) + " calls"
	case KindAgentCPU:
		return strconv.FormatFloat(v, 'f', 1, 64) + " m/conv"
	case KindAgentRSS:
		return strconv.FormatFloat(v, 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// formatChange writes cand - base in the quantity's unit, and relative to base (shares move in
// percentage points only).
func formatChange(q Quantity, base, cand float64) string {
	d := cand - base
	var abs string
	switch q.Kind {
	case KindLatency:
		abs = signedMs(d)
	case KindUnderstood, KindClean:
		return fmt.Sprintf("%+.2f pp", 100*d+0) // +0 turns -0 into 0
	case KindCapacity:
		abs = fmt.Sprintf("%+.0f", d+0)
	default:
		abs = fmt.Sprintf("%+.2f", d+0)
	}
	if base == 0 {
		return abs
	}
	return fmt.Sprintf("%s (%+.1f %%)", abs, 100*d/math.Abs(base)+0)
}

// signedMs writes a latency change with its sign, none when it rounds to nothing.
func signedMs(d float64) string {
	s := checks.FormatMs(callers.Ms(math.Abs(d)))
	switch {
	case s == "0 ms":
		return s
	case d < 0:
		return "-" + s
	}
	return "+" + s
}

// formatP writes a p value to four decimals.
func formatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.0001:
		return "<0.0001"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

func formatAlpha(a float64) string { return strconv.FormatFloat(a, 'f', -1, 64) }

// cells are a row's base, candidate and change, "-" where a side has no value.
func (r Row) cells() (base, cand, change string) {
	base, cand, change = "-", "-", "-"
	if r.HasBase {
		base = formatValue(r.Quantity, r.Base)
	}
	if r.HasCand {
		cand = formatValue(r.Quantity, r.Cand)
	}
	if r.HasBase && r.HasCand {
		change = formatChange(r.Quantity, r.Base, r.Cand)
	}
	return base, cand, change
}

// detail says what a check compared: "1.21 s → 1.26 s (limit 1.33 s), p 0.0312".
func (ch Check) detail(r Rule) string {
	q := r.Quantity
	if ch.Status == StatusSkip {
		return ch.Note
	}
	val := func(v float64) string { return formatValue(q, v) }
	if q.Kind == KindLatency {
		// Finer than the tables, so a value just past its limit does not print as equal to it.
		val = func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + " ms" }
	}
	var b strings.Builder
	if r.Limit.Base {
		fmt.Fprintf(&b, "%s → ", val(ch.Base))
	}
	fmt.Fprintf(&b, "%s (limit %s %s)", val(ch.Cand), r.Op, val(ch.Limit))
	if !math.IsNaN(ch.P) {
		fmt.Fprintf(&b, ", Mann-Whitney p %s", formatP(ch.P))
	}
	if ch.Status == StatusNoise {
		b.WriteString(": not significant")
	} else if ch.Note != "" {
		b.WriteString("; " + ch.Note)
	}
	return b.String()
}

// summary is the one-line verdict.
func (c *Comparison) summary() string {
	counts := c.counts()
	if c.Regressed() {
		return "REGRESSION (" + counts + ")"
	}
	return "pass (" + counts + ")"
}

// counts are the rules by status.
func (c *Comparison) counts() string {
	return fmt.Sprintf("%d rules: %d pass, %d noise, %d failed, %d skipped", len(c.Results),
		c.Count(StatusPass), c.Count(StatusNoise), c.Count(StatusFail), c.Count(StatusSkip))
}

func (s Side) describe() string {
	d := fmt.Sprintf("steps %s, capacity %d", ints(s.Steps), s.Capacity)
	if !s.Started.IsZero() {
		d += ", started " + s.Started.UTC().Format(time.DateTime) + " UTC"
	}
	return d
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, " ")
}
