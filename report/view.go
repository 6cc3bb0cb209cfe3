package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// table is a rendered table, shared by the text and Markdown renderers.
type table struct {
	head []string
	rows [][]string
}

// summaryTable is the seeds' per-step table.
func summaryTable(r *Report) table {
	t := table{head: []string{"N", "calls clean", "turns understood", "turns ok / failed / slips", "speech_end→transcript p50/p95",
		"reply_start p50/p95", "speech_end→reply p50/p95", "underruns/min", "longest gap",
		"agent CPU m/conv", "RSS/call", "verdict"}}
	for _, s := range r.Steps {
		t.rows = append(t.rows, []string{
			strconv.Itoa(s.N),
			fmt.Sprintf("%d/%d", s.Clean, s.Calls),
			understood(s.Turns),
			turnsFigure(s.Turns),
			pair(s.Latency[checks.MetricSpeechEndToTranscript.String()]),
			pair(s.Latency[checks.MetricReplyStart.String()]),
			pair(s.Latency[checks.MetricSpeechEndToReply.String()]),
			optional(s.UnderrunsPerMin, "%.1f"),
			checks.FormatMs(s.Playout.LongestGap),
			optional(s.AgentCPUMilli, "%.0f"),
			optional(s.AgentRSSMiBPerCall, "%.0f MiB"),
			verdict(s),
		})
	}
	return t
}

// crossTable places each step's turns by the two checks.
func crossTable(r *Report) table {
	na := false
	for _, s := range r.Steps {
		na = na || s.Cross.NARight+s.Cross.NAWrong > 0
	}
	t := table{head: []string{"N", "heard, answered right", "heard, answered wrong", "not heard, answered right", "not heard"}}
	if na {
		t.head = append(t.head, "no transcript, answered right", "no transcript, answered wrong")
	}
	t.head = append(t.head, "misheard", "unjudged", "cancelled")
	for _, s := range r.Steps {
		x := s.Cross
		row := []string{strconv.Itoa(s.N), itoa(x.HeardRight), itoa(x.HeardWrong), itoa(x.NotHeardRight), itoa(x.NotHeardWrong)}
		if na {
			row = append(row, itoa(x.NARight), itoa(x.NAWrong))
		}
		t.rows = append(t.rows, append(row, itoa(x.Misheard), itoa(x.Unjudged), itoa(x.Cancelled)))
	}
	return t
}

// generatorTable is the load generator's own health per step: how late its 20 ms sends were (each
// turn's p99, summarised over the step's turns), how busy its cores were, and how its ears (the
// caller-side transcription) kept up.
func generatorTable(r *Report) table {
	t := table{head: []string{"N", "send lateness p50/p99", "worst", "generator CPU", "machine steal",
		"decode wait p95", "decode time p95", "unjudged turns", "health"}}
	for _, s := range r.Steps {
		g := s.Generator
		health := "ok"
		if g.Bound {
			health = "generator_bound"
		}
		t.rows = append(t.rows, []string{strconv.Itoa(s.N),
			lateMs(g.LatenessP50) + "/" + lateMs(g.LatenessP99),
			lateMs(g.LatenessMax), checks.FormatPct(g.CPU) + " of its cores", stealText(g.Steal),
			p95Text(g.DecodeWait), p95Text(g.DecodeTime), itoa(g.Unjudged), health})
	}
	return t
}

// p95Text is a summary's p95, "-" without samples (no reply was decoded).
func p95Text(s checks.Summary) string {
	if s.N == 0 {
		return "-"
	}
	return checks.FormatMs(s.P95)
}

// stealText shows the hypervisor's share of the machine, "-" where the platform does not say.
func stealText(s *float64) string {
	if s == nil {
		return "-"
	}
	return checks.FormatPct(*s)
}

// lateMs keeps a tenth of a millisecond under 10 ms: send lateness lives there, and its histogram
// edges (callers.LatenessEdges) are half milliseconds.
func lateMs(v callers.Ms) string {
	if v < 10 {
		return strconv.FormatFloat(float64(v), 'f', 1, 64) + " ms"
	}
	return checks.FormatMs(v)
}

// crossLegend says where each failing cell points.
const crossLegend = "heard, answered wrong: the LLM/logic, or TTS/transport/underruns (the caller misheard); " +
	"not heard: STT or inbound audio; not heard, answered right: the transcript channel; " +
	"misheard: the agent's own text was the phrase but the caller heard other digits (the caller's ears, " +
	"or the agent's TTS, transport or playout); unjudged: the generator's ears could not judge the reply " +
	"(not the agent's failure); cancelled: the run stopped during the turn"

// header is the run's description, one line each.
func header(r *Report) []string {
	c, m := r.Config, r.Machine
	lines := []string{
		fmt.Sprintf("target %s over %s, seed %d", orDash(c.Target), orDash(c.Transport), c.Seed),
		fmt.Sprintf("steps %s, %s measured each after a %s ramp and %s warm-up",
			ints(c.Steps), dur(c.StepDuration), dur(c.Ramp), dur(c.Warmup)),
		fmt.Sprintf("machine %s, %s/%s, %d cores, %s%s", orDash(m.Hostname), m.OS, m.Arch, m.Cores, m.GoVersion, prefixed(", ", m.CPUModel)),
	}
	if !r.Started.IsZero() {
		lines = append(lines, fmt.Sprintf("from %s to %s", stamp(r.Started), stamp(r.Ended)))
	}
	return append(lines, checksLine(r))
}

func checksLine(r *Report) string {
	s := "checks applied: " + strings.Join(r.ChecksApplied, ", ")
	if !contains(r.ChecksApplied, checks.CheckServerTranscript) {
		s += " (server_transcript n/a: the target exposes no transcripts)"
	}
	return s
}

// failureLines lists each step's turns not understood and unclean calls by reason, in priority
// order: slips, unjudged and cancelled turns are tallied beside the failures.
func failureLines(r *Report) []string {
	var lines []string
	for _, s := range r.Steps {
		if len(s.Failures)+len(s.CallFailures) == 0 {
			continue
		}
		lines = append(lines, fmt.Sprintf("N=%d: turns %s; calls %s", s.N, byReason(s.Failures), byReason(s.CallFailures)))
	}
	return lines
}

func byReason(m map[string]int) string {
	var parts []string
	for _, reason := range checks.Reasons() {
		if n := m[reason.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", reason, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// verdictLines gives every step's verdict and turn figure, then its reasons and notes.
func verdictLines(r *Report) []string {
	var lines []string
	for _, s := range r.Steps {
		v := s.Verdict
		lines = append(lines, fmt.Sprintf("N=%d: %s; %s", s.N, v.Word(), turnsLine(v)))
		for _, why := range v.Reasons {
			lines = append(lines, fmt.Sprintf("N=%d: %s", s.N, why))
		}
		for _, note := range v.Notes {
			lines = append(lines, fmt.Sprintf("N=%d: note: %s", s.N, note))
		}
	}
	return lines
}

// turnsLine is the seed's "Turns ok / failed / tolerated STT slips" figure, then the turns not
// judged.
func turnsLine(v checks.StepVerdict) string {
	x := v.Turns
	return fmt.Sprintf("turns ok / failed / tolerated STT slips: %s; unjudged %d, cancelled %d",
		slipsFigure(x, v.SlipsTolerated), x.Unjudged, x.Cancelled)
}

// slipsFigure is "ok / failed / slips", flagged when the slips counted against the step.
func slipsFigure(x checks.TurnTally, tolerated bool) string {
	s := fmt.Sprintf("%d / %d / %d", x.Understood, x.Failed, x.Slips)
	if x.Slips > 0 && !tolerated {
		s += " (not tolerated)"
	}
	return s
}

// turnsFigure is the summary table's cell: "ok / failed / slips", "-" without turns.
func turnsFigure(x checks.TurnTally) string {
	if x.Total == 0 {
		return "-"
	}
	return fmt.Sprintf("%d / %d / %d", x.Understood, x.Failed, x.Slips)
}

// runTurnsLine sums the figure over the run's steps; "" without turns.
func runTurnsLine(r *Report) string {
	var x checks.TurnTally
	for _, s := range r.Steps {
		x = sumTally(x, s.Turns)
	}
	if x.Total == 0 {
		return ""
	}
	return fmt.Sprintf("turns ok / failed / STT slips over the run: %d / %d / %d; unjudged %d, cancelled %d",
		x.Understood, x.Failed, x.Slips, x.Unjudged, x.Cancelled)
}

func sumTally(a, b checks.TurnTally) checks.TurnTally {
	return checks.TurnTally{Total: a.Total + b.Total, Understood: a.Understood + b.Understood, Failed: a.Failed + b.Failed,
		Slips: a.Slips + b.Slips, Unjudged: a.Unjudged + b.Unjudged, Cancelled: a.Cancelled + b.Cancelled}
}

func capacityLine(r *Report) string {
	c := r.Capacity
	if c.Incomplete {
		return fmt.Sprintf("capacity: at least %d calls; %s", c.N, c.Note)
	}
	return fmt.Sprintf("capacity: %d calls (largest step with every step up to it ok); %s", c.N, c.Note)
}

// capacityText is the capacity in a few words, for titles.
func capacityText(c checks.Capacity) string {
	if c.Incomplete {
		return fmt.Sprintf("at least %d calls", c.N)
	}
	return fmt.Sprintf("%d calls", c.N)
}

// calibrationLines head the summary: how well the caller's ears heard this agent, and a warning
// naming --stt-url when they did not hear it reliably. None for a report older than calibration,
// or for a scenario's (no steps: its ears are judged in its own tables).
func calibrationLines(r *Report) []string {
	c := r.Calibration
	if c == nil || len(r.Steps) == 0 {
		return nil
	}
	if c.Trusted {
		return []string{"calibration: " + c.Describe()}
	}
	said := strings.TrimPrefix(c.Describe(), "the caller's ears ")
	return []string{fmt.Sprintf("WARNING: the caller's ears did not hear this agent's voice reliably (%s, below %s): "+
		"failures resting on the caller's transcription alone are not counted; try --stt-url with a stronger transcriber",
		said, checks.FormatPct(checks.MinCalibration))}
}

// warnings flags a run cut short, records left out and the steps whose figures are not trusted.
func warnings(r *Report) []string {
	var lines []string
	if l := stopLine(r.Stopped); l != "" {
		lines = append(lines, l)
	}
	if r.SkippedLines > 0 {
		lines = append(lines, fmt.Sprintf("warning: %d unreadable line(s) of the turns file were skipped: their records are not counted", r.SkippedLines))
	}
	for _, s := range r.Steps {
		if s.JudgingForecast != "" {
			lines = append(lines, fmt.Sprintf("warning: before step N=%d, %s", s.N, s.JudgingForecast))
		}
		if s.Generator.Bound {
			lines = append(lines, fmt.Sprintf("warning: step N=%d is generator_bound (%s): its figures are not trusted",
				s.N, strings.Join(s.Generator.Why, "; ")))
		}
	}
	return lines
}

// stopLine says why the run ended early, "" when it did not.
func stopLine(st *Stop) string {
	switch {
	case st == nil:
		return ""
	case st.Reason == StopError:
		return fmt.Sprintf("warning: the run stopped on an error (%s): the figures are what was recorded up to then", st.Error)
	case st.Reason == StopUnfinished:
		return "warning: rebuilt from the turns file of a run that did not finish (killed or crashed): " +
			"the figures are what was recorded up to then, and the last step may be cut short"
	default:
		return fmt.Sprintf("warning: the run was stopped before its plan ended (%s): the last step may be cut short", st.Reason)
	}
}

// understood is the share of judged turns understood, as the step rule counts it.
func understood(t TurnCounts) string {
	n := t.Judged()
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d of %d (%s)", t.Understood, n, checks.FormatPct(float64(t.Understood)/float64(n)))
}

// pair writes p50/p95 in one unit: ms when both are under a second, else seconds.
func pair(s checks.Summary) string {
	if s.N == 0 {
		return "-"
	}
	if s.P95 < 999.5 && s.P50 > -999.5 {
		return fmt.Sprintf("%.0f/%.0f ms", float64(s.P50), float64(s.P95))
	}
	return fmt.Sprintf("%.2f/%.2f s", float64(s.P50)/1000, float64(s.P95)/1000)
}

// verdict is the step's word, flagged when the generator fell behind.
func verdict(s Step) string {
	if s.Verdict.GeneratorBound && !s.Verdict.OK {
		return s.Verdict.Word() + " (generator_bound)"
	}
	return s.Verdict.Word()
}

func optional(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return orDash(strings.Join(s, " "))
}

func dur(m callers.Ms) string { return m.Duration().String() }

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func itoa(n int) string { return strconv.Itoa(n) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// costLine fits the agent's whole cost over the steps as fixed + N × per call (least squares).
// The per-call slope is what one more conversation costs, the seeds' "linear" figure; CPU/N at a
// small N also carries the process's own cost (runtime, timers, wake-ups), spread over few calls.
// "" when fewer than two step sizes have agent figures.
func costLine(r *Report) string {
	cpuPer, cpuFixed, ok := fitPerCall(r.Steps, func(s Step) *float64 { return s.AgentCPUMilli })
	if !ok {
		return ""
	}
	line := fmt.Sprintf("agent cost fitted over the steps (whole process = fixed + N × per call): CPU %.1f m per conversation, %.0f m fixed",
		cpuPer, cpuFixed)
	if rssPer, rssFixed, ok := fitPerCall(r.Steps, func(s Step) *float64 { return s.AgentRSSMiBPerCall }); ok {
		line += fmt.Sprintf("; RSS %.1f MiB per extra call, %.0f MiB fixed", rssPer, rssFixed)
	}
	return line
}

// fitPerCall is the least-squares line through (N, per(step) × N) over the steps with a figure.
func fitPerCall(steps []Step, per func(Step) *float64) (slope, intercept float64, ok bool) {
	var xs, ys []float64
	for _, s := range steps {
		if v := per(s); v != nil && s.N > 0 {
			xs, ys = append(xs, float64(s.N)), append(ys, *v*float64(s.N))
		}
	}
	if len(xs) < 2 {
		return 0, 0, false
	}
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	mx, my = mx/float64(len(xs)), my/float64(len(xs))
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx == 0 {
		return 0, 0, false // every step the same size
	}
	slope = sxy / sxx
	return slope, my - slope*mx, true
}
