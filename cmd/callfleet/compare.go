package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/report/compare"
)

func init() {
	register("compare", "compare two runs side by side and gate the candidate (exit 1 on a regression)", cmdCompare)
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, "; ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

const compareSynopsis = `BASE/report.json CANDIDATE/report.json [--rule RULE]... [--gate FILE] [--format text|markdown] [--junit FILE]

Sets the candidate beside the base, per step (matched by N) and overall, from the reports and the
per-turn records in the turns file beside each, then checks the rules. Exit 0 when every rule
holds, 1 on a regression, 2 on bad flags, rules or input.

A rule is QUANTITY[{SCOPE}] OP LIMIT, for example:
  p95(speech_end_to_reply) <= +10%        at most 10 % slower than the base (overall)
  p99(reply_start){each} <= base+50ms     at every N both runs have
  understood >= 99.9%                     an absolute share
  clean{n=8} >= base-0.5pp                percentage points below the base, at N=8
  capacity >= base
QUANTITY: pNN(LATENCY), understood, clean, underruns, capacity, agent_cpu, agent_rss.
A latency rule relative to the base fails only when a one-sided Mann-Whitney U test of the
per-turn samples also finds the change significant at --alpha; otherwise it is noise and passes.
Without --rule or --gate the rules are: ` + "`" + `p95(speech_end_to_reply) <= +10%` + "`, `" + `understood >= base-1pp` + "`, `" + `capacity >= base` + "`" + `.

A gate file is YAML:
  alpha: 0.05
  rules:
    - p95(speech_end_to_reply) <= +10%
    - capacity >= base`

func cmdCompare(st *state, args []string) int {
	fs := st.newFlags("compare", compareSynopsis)
	var rules multiFlag
	fs.Var(&rules, "rule", "a rule (repeatable); added to the gate file's")
	gatePath := fs.String("gate", "", "YAML gate file with alpha and rules")
	alpha := fs.Float64("alpha", 0, "significance level of the latency test (default: the gate file's, else 0.05)")
	format := fs.String("format", "text", "text or markdown (for a pull-request comment)")
	junit := fs.String("junit", "", "also write JUnit XML to FILE, one test case per rule")
	out := fs.String("o", "", "write the comparison to FILE instead of standard output")
	if code, ok := parse(fs, interleaved(fs, args)); !ok {
		return code
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return exitUsage
	}
	if *format != "text" && *format != "markdown" && *format != "md" {
		return st.fail(exitUsage, "compare: --format %q: want text or markdown", *format)
	}
	gate, err := compareGate(*gatePath, rules, *alpha)
	if err != nil {
		return st.fail(exitUsage, "%v", err) // says compare: and names every bad rule, a line each
	}
	base, err := report.LoadRun(fs.Arg(0))
	if err != nil {
		return st.fail(exitUsage, "compare: base: %v", err)
	}
	cand, err := report.LoadRun(fs.Arg(1))
	if err != nil {
		return st.fail(exitUsage, "compare: candidate: %v", err)
	}
	for i, run := range []*report.Run{base, cand} {
		if note := report.SkippedNote(run.Skipped); note != "" {
			st.fail(0, "compare: warning: %s: %s", run.Report.TurnsPath(fs.Arg(i)), note)
		}
	}
	c := compare.Compare(base, cand, gate)
	render := c.Text
	if *format != "text" {
		render = c.Markdown
	}
	if err := writeTo(st.stdout, *out, render); err != nil {
		return st.fail(exitFailure, "compare: %v", err)
	}
	if *junit != "" {
		if err := writeTo(nil, *junit, c.JUnit); err != nil {
			return st.fail(exitFailure, "compare: junit: %v", err)
		}
	}
	if c.Regressed() {
		return exitFailure
	}
	return exitOK
}

// compareGate is the gate file's rules plus the flags' (the defaults when there are none), at the
// flag's alpha, else the file's.
func compareGate(path string, rules []string, alpha float64) (compare.Gate, error) {
	g := compare.Gate{Alpha: compare.DefaultAlpha}
	if path != "" {
		var err error
		if g, err = compare.LoadGate(path); err != nil {
			return g, err
		}
	}
	if alpha != 0 {
		g.Alpha = alpha
	}
	if path == "" && len(rules) == 0 {
		rules = compare.DefaultRules
	}
	extra, err := compare.NewGate(g.Alpha, rules) // checks the flag's alpha too
	if err != nil {
		return g, err
	}
	g.Rules = append(g.Rules, extra.Rules...)
	return g, nil
}

// writeTo renders to path, or to w when path is empty; a file is written whole or not at all.
func writeTo(w io.Writer, path string, render func(io.Writer) error) error {
	if path == "" {
		return render(w)
	}
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
