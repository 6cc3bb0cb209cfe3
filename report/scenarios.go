package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// Scenarios are the report sections of the scenarios beyond the ramp (pause-probe, barge-in,
// idle); a ramp has none. They sit at the top level of report.json beside the ramp's fields.
type Scenarios struct {
	Probe   *ProbeSection   `json:"probe,omitempty"`
	BargeIn *BargeInSection `json:"bargein,omitempty"`
	Idle    *IdleSection    `json:"idle,omitempty"`
}

// ScenarioReport is a report.json with the scenario sections: the ramp's Report (a scenario
// run has no steps) and its Scenarios, flattened into one JSON object.
type ScenarioReport struct {
	*Report
	Scenarios
}

// ScenarioVerdict is a scenario's pass or fail; Reasons say, one line each, why it failed.
type ScenarioVerdict struct {
	OK      bool     `json:"ok"`
	Reasons []string `json:"reasons,omitempty"`
}

// ProbeSection is a pause-probe: for each agent setting probed (one unless the bundled agent was
// swept), whether a phrase spoken in two halves with each pause between them was one turn or two.
type ProbeSection struct {
	Pauses        []callers.Ms   `json:"pauses"`
	Conversations int            `json:"conversations"` // K: calls per pause and setting
	TurnsPerCall  int            `json:"turns_per_call"`
	Settings      []ProbeSetting `json:"settings"`
}

// ProbeSetting is one agent setting's pause-probe.
type ProbeSetting struct {
	Name       string        `json:"name,omitempty"` // "1100/400": min silence / gate hold in ms; "" when not swept
	MinSilence *callers.Ms   `json:"min_silence,omitempty"`
	GateHold   *callers.Ms   `json:"gate_hold,omitempty"`
	Step       int           `json:"step"` // its records in turns.jsonl are this step's
	Calls      int           `json:"calls"`
	Pauses     []PauseResult `json:"pauses"`
	// ShortestSplit is the shortest pause that split at least one turn; nil when none did.
	ShortestSplit *callers.Ms    `json:"shortest_split,omitempty"`
	Wait          checks.Summary `json:"wait"` // last speech to final transcript, over every turn
}

// PauseResult is one pause of one setting.
type PauseResult struct {
	Pause     callers.Ms     `json:"pause"`
	Turns     int            `json:"turns"`               // K: turns decided
	Split     int            `json:"split"`               // k: turns heard as two (or more)
	Undecided int            `json:"undecided,omitempty"` // turns with neither a final nor a reply
	DecidedBy string         `json:"decided_by"`          // server_transcripts or replies
	Verdict   string         `json:"verdict"`             // "one turn", "2 of 4 split", "split"
	Wait      checks.Summary `json:"wait"`
}

// BargeInSection is the barge-in scenario: the caller talks over the agent's reply.
type BargeInSection struct {
	Offset     callers.Ms      `json:"offset"`  // into the reply, when the caller's first voiced sample goes out
	MaxP95     callers.Ms      `json:"max_p95"` // the verdict's limit on the latency's p95
	Latency    checks.Summary  `json:"latency"` // caller speech start to agent audio stopped (or clear)
	Understood int             `json:"next_turn_understood"`
	Calls      []BargeInCall   `json:"calls"`
	Verdict    ScenarioVerdict `json:"verdict"`
}

// BargeInCall is one barge-in conversation.
type BargeInCall struct {
	Call        int    `json:"call"`
	CallID      string `json:"call_id"`
	Interrupted string `json:"interrupted"` // the phrase whose reply was talked over
	Interrupt   string `json:"interrupt"`   // the phrase said over it
	// Latency is from the interrupting phrase's speech start to the agent stopping, by Signal:
	// clear (Twilio clear arrived), audio (the agent's voiced audio stopped arriving) or event
	// (bot-stopped-speaking); nil when the agent never stopped.
	Latency   *callers.Ms `json:"latency,omitempty"`
	Signal    string      `json:"signal,omitempty"`
	Clear     *callers.Ms `json:"clear,omitempty"`
	AudioStop *callers.Ms `json:"audio_stop,omitempty"`
	Event     *callers.Ms `json:"event,omitempty"`
	// Understood says the interrupting phrase became the next understood turn (Reason otherwise).
	Understood bool   `json:"understood"`
	Reason     string `json:"reason"`
	Error      string `json:"error,omitempty"`
}

// IdleSection is the idle scenario: the caller says one phrase, then nothing.
type IdleSection struct {
	ExpectPrompt callers.Ms      `json:"expect_prompt"` // the agent's idle prompt, after its reply ended
	ExpectHangup callers.Ms      `json:"expect_hangup"` // its hang-up, after the prompt ended
	Tolerance    callers.Ms      `json:"tolerance"`
	Prompt       checks.Summary  `json:"prompt"`
	Hangup       checks.Summary  `json:"hangup"`
	Calls        []IdleCall      `json:"calls"`
	Verdict      ScenarioVerdict `json:"verdict"`
}

// IdleCall is one idle conversation.
type IdleCall struct {
	Call        int         `json:"call"`
	CallID      string      `json:"call_id"`
	PromptAfter *callers.Ms `json:"prompt_after,omitempty"` // the reply's end to the prompt's start
	HangupAfter *callers.Ms `json:"hangup_after,omitempty"` // the prompt's end to the hang-up
	Source      string      `json:"source,omitempty"`       // events (bot speaking events) or audio (arrivals)
	Error       string      `json:"error,omitempty"`
}

// Write writes dir/report.json as Report.Write does, sections included.
func (r *ScenarioReport) Write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, FileName), append(b, '\n')); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	return nil
}

// LoadScenarios reads a report.json with its scenario sections. Reports of the schema before
// this one (no sections) load too, for replays of older runs.
func LoadScenarios(path string) (*ScenarioReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: load: %w", err)
	}
	r := &ScenarioReport{Report: &Report{}}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("report: load %s: %w", path, err)
	}
	if r.Schema != Schema && r.Schema != "callfleet.report/v1" {
		return nil, fmt.Errorf("%w: %s is %q, want %q", ErrSchema, path, r.Schema, Schema)
	}
	return r, nil
}

// TextScenarios writes the plain-text summary of a scenario run: the run, then each section.
func TextScenarios(w io.Writer, r *ScenarioReport) error {
	ew := &errWriter{w: w}
	ew.line("callfleet report (%s)", r.Schema)
	for _, l := range scenarioHeader(r.Report) {
		ew.line("%s", l)
	}
	if p := r.Probe; p != nil {
		textProbe(ew, p)
	}
	if b := r.BargeIn; b != nil {
		textBargeIn(ew, b)
	}
	if i := r.Idle; i != nil {
		textIdle(ew, i)
	}
	if ew.err != nil {
		return fmt.Errorf("report: text: %w", ew.err)
	}
	return nil
}

// MarkdownScenarios writes a scenario run as Markdown (a PR comment): the run, then each
// section's note and table, as the HTML report shows them.
func MarkdownScenarios(w io.Writer, r *ScenarioReport) error {
	ew := &errWriter{w: w}
	ew.line("# callfleet report")
	ew.line("")
	for _, l := range scenarioHeader(r.Report) {
		ew.line("- %s", l)
	}
	for _, sec := range r.Sections() {
		ew.line("")
		ew.line("## %s", sec.Title)
		ew.line("")
		if sec.Note != "" {
			ew.line("%s", sec.Note)
			ew.line("")
		}
		mdTable(ew, table{head: sec.Head, rows: sec.Rows})
	}
	if ew.err != nil {
		return fmt.Errorf("report: markdown: %w", ew.err)
	}
	return nil
}

func textProbe(ew *errWriter, p *ProbeSection) {
	ew.line("")
	ew.line("pause-probe: each phrase in two halves with an exact pause; %d conversations per pause, %d turn(s) each; one turn or two decided by %s",
		p.Conversations, p.TurnsPerCall, probeDecidedBy(p))
	for _, s := range p.Settings {
		ew.line("")
		ew.line("%s:", probeLabel(s))
		textTable(ew, PauseTable(s))
		if s.ShortestSplit != nil {
			ew.line("shortest pause that splits: %s", scenMsText(*s.ShortestSplit))
		} else {
			ew.line("shortest pause that splits: none (every pause probed stayed one turn)")
		}
	}
	ew.line("")
	textTable(ew, SplitTable(p))
	ew.line("")
	textTable(ew, TradeOffTable(p))
	for _, s := range p.Settings {
		for _, pr := range s.Pauses {
			if pr.Undecided > 0 {
				ew.line("warning: %s, %s pause: %d turn(s) had neither a final transcript nor a reply", probeLabel(s), scenMsText(pr.Pause), pr.Undecided)
			}
		}
	}
}

func textBargeIn(ew *errWriter, b *BargeInSection) {
	ew.line("")
	ew.line("barge-in: the caller talks %s into the agent's reply", scenMsText(b.Offset))
	textTable(ew, BargeInTable(b))
	ew.line("%s", bargeInLine(b))
	textScenarioVerdict(ew, "barge-in", b.Verdict)
}

// BargeInTable is a row per barge-in call: what was talked over, when and how the agent stopped.
func BargeInTable(b *BargeInSection) table {
	t := table{head: []string{"call", "talked over", "with", "stopped after", "by", "clear", "audio stop", "event", "next turn"}}
	for _, c := range b.Calls {
		next := "understood"
		switch {
		case c.Error != "":
			next = c.Error
		case !c.Understood:
			next = c.Reason
		}
		t.rows = append(t.rows, []string{itoa(c.Call), c.Interrupted, c.Interrupt, scenOptMs(c.Latency), orDash(c.Signal),
			scenOptMs(c.Clear), scenOptMs(c.AudioStop), scenOptMs(c.Event), next})
	}
	return t
}

func bargeInLine(b *BargeInSection) string {
	return fmt.Sprintf("barge-in latency (speech start to the agent stopping) p50/p95 %s (limit p95 %s); next turn understood %d of %d",
		pair(b.Latency), scenMsText(b.MaxP95), b.Understood, len(b.Calls))
}

func textIdle(ew *errWriter, s *IdleSection) {
	ew.line("")
	ew.line("%s", idleIntro(s))
	textTable(ew, IdleTable(s))
	ew.line("%s", idleLine(s))
	textScenarioVerdict(ew, "idle", s.Verdict)
}

func idleIntro(s *IdleSection) string {
	return fmt.Sprintf("idle: the caller says one phrase, then nothing; expected prompt %s after the reply, hang-up %s after the prompt (± %s)",
		scenMsText(s.ExpectPrompt), scenMsText(s.ExpectHangup), scenMsText(s.Tolerance))
}

func idleLine(s *IdleSection) string {
	return fmt.Sprintf("idle prompt p50/p95 %s; hang-up p50/p95 %s", pair(s.Prompt), pair(s.Hangup))
}

// IdleTable is a row per idle call: when the prompt and the hang-up came.
func IdleTable(s *IdleSection) table {
	t := table{head: []string{"call", "prompt after reply", "hang-up after prompt", "from", "error"}}
	for _, c := range s.Calls {
		t.rows = append(t.rows, []string{itoa(c.Call), scenOptMs(c.PromptAfter), scenOptMs(c.HangupAfter), orDash(c.Source), orDash(c.Error)})
	}
	return t
}

func textScenarioVerdict(ew *errWriter, name string, v ScenarioVerdict) {
	if v.OK {
		ew.line("%s: ok", name)
		return
	}
	ew.line("%s: FAIL", name)
	for _, r := range v.Reasons {
		ew.line("  %s", r)
	}
}

// verdictText is a verdict on one line: "ok", or "FAIL: why; why".
func verdictText(v ScenarioVerdict) string {
	if v.OK {
		return "ok"
	}
	if len(v.Reasons) == 0 {
		return "FAIL"
	}
	return "FAIL: " + strings.Join(v.Reasons, "; ")
}

// Sections are the scenario results as tables of the HTML report: the pause-probe's per-pause
// table and trade-off table and each setting's pauses, the barge-in calls, the idle calls.
func (s Scenarios) Sections() []Section {
	var out []Section
	if p := s.Probe; p != nil {
		out = append(out,
			sectionOf("probe", "Pause probe", fmt.Sprintf("Each phrase said in two halves with an exact pause between them, %d conversation(s) per pause: one turn or two, decided by %s.",
				p.Conversations, probeDecidedBy(p)), SplitTable(p)),
			sectionOf("probe-tradeoff", "End-of-turn trade-off", "The pauses each setting keeps as one turn, and what it costs in waiting.", TradeOffTable(p)))
		for i, st := range p.Settings {
			note := "Shortest pause that splits: none (every pause probed stayed one turn)."
			if st.ShortestSplit != nil {
				note = "Shortest pause that splits: " + scenMsText(*st.ShortestSplit) + "."
			}
			out = append(out, sectionOf(fmt.Sprintf("probe-setting-%d", i+1), "Pauses, "+probeLabel(st), note, PauseTable(st)))
		}
	}
	if b := s.BargeIn; b != nil {
		note := fmt.Sprintf("The caller talks %s into the agent's reply. %s. Verdict: %s.", scenMsText(b.Offset), bargeInLine(b), verdictText(b.Verdict))
		out = append(out, sectionOf("bargein", "Barge-in", note, BargeInTable(b)))
	}
	if i := s.Idle; i != nil {
		note := fmt.Sprintf("%s. %s. Verdict: %s.", idleIntro(i), idleLine(i), verdictText(i.Verdict))
		out = append(out, sectionOf("idle", "Idle", note, IdleTable(i)))
	}
	return out
}

func sectionOf(id, title, note string, t table) Section {
	return Section{ID: id, Title: title, Note: note, Head: t.head, Rows: t.rows}
}

func probeDecidedBy(p *ProbeSection) string {
	if len(p.Settings) > 0 && len(p.Settings[0].Pauses) > 0 && p.Settings[0].Pauses[0].DecidedBy != "" {
		return strings.ReplaceAll(p.Settings[0].Pauses[0].DecidedBy, "_", " ")
	}
	return "-"
}

func scenOptMs(m *callers.Ms) string {
	if m == nil {
		return "-"
	}
	return checks.FormatMs(*m)
}

func scenMsText(m callers.Ms) string { return checks.FormatMs(m) }

// probeLabel names a setting in text: its name, or "agent" when the agent was not swept.
func probeLabel(s ProbeSetting) string {
	if s.Name == "" {
		return "agent"
	}
	return s.Name
}

func probeHead(p *ProbeSection) string {
	if len(p.Settings) == 1 && p.Settings[0].Name == "" {
		return "Agent"
	}
	return "Min silence / gate hold (ms)"
}

// PauseTable is one setting's pauses: how many split and the wait.
func PauseTable(s ProbeSetting) table {
	t := table{head: []string{"pause", "split", "verdict", "last speech to final transcript p50/p95"}}
	for _, p := range s.Pauses {
		t.rows = append(t.rows, []string{scenMsText(p.Pause), fmt.Sprintf("%d of %d", p.Split, p.Turns), p.Verdict, pair(p.Wait)})
	}
	return t
}

// SplitTable is the seed's per-pause table: a row per setting, a column per pause, the trailing
// pauses every setting splits merged into one "and longer" column.
func SplitTable(p *ProbeSection) table {
	merge := probeMergeFrom(p)
	t := table{head: []string{probeHead(p)}}
	for i, ps := range p.Pauses {
		switch {
		case i < merge:
			t.head = append(t.head, fmt.Sprintf("%s ms pause", scenMs(ps)))
		case i == merge:
			t.head = append(t.head, fmt.Sprintf("%s ms and longer", scenMs(ps)))
		}
	}
	for _, s := range p.Settings {
		row := []string{probeLabel(s)}
		for i, pr := range s.Pauses {
			if i <= merge {
				row = append(row, pr.Verdict)
			}
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// mergeFrom is the index of the first of the trailing pauses that every setting split in full,
// when there are two or more of them; past the last pause otherwise.
func probeMergeFrom(p *ProbeSection) int {
	n := len(p.Pauses)
	j := n
	for j > 0 {
		all := true
		for _, s := range p.Settings {
			if j-1 >= len(s.Pauses) || s.Pauses[j-1].Turns == 0 || s.Pauses[j-1].Split != s.Pauses[j-1].Turns {
				all = false
			}
		}
		if !all {
			break
		}
		j--
	}
	if n-j < 2 {
		return n
	}
	return j
}

// TradeOffTable is the seed's trade-off table: per setting, the pauses that stay one turn, those
// that split and the wait from last speech to the final transcript.
func TradeOffTable(p *ProbeSection) table {
	t := table{head: []string{probeHead(p), "Pauses that stay one turn (ms)", "Pauses that split", "Last speech to final transcript, p50 / p95"}}
	for _, s := range p.Settings {
		wait := "-"
		if s.Wait.N > 0 {
			wait = fmt.Sprintf("%s / %s ms", scenMs(s.Wait.P50), scenMs(s.Wait.P95))
		}
		t.rows = append(t.rows, []string{strings.ReplaceAll(probeLabel(s), "/", " / "), OneTurnPauses(s.Pauses), SplitPauses(s.Pauses), wait})
	}
	return t
}

// OneTurnPauses lists the pauses that stayed one turn, then those that split only sometimes
// ("300, 500", "300 in 2 of 4", "none").
func OneTurnPauses(ps []PauseResult) string {
	var parts []string
	for _, p := range ps {
		if p.Turns > 0 && p.Split == 0 {
			parts = append(parts, scenMs(p.Pause))
		}
	}
	parts = append(parts, partialSplits(ps)...)
	return scenJoin(parts)
}

// SplitPauses lists the pauses that split sometimes, then those that always split, a run of
// always-split pauses to the end written "700 and longer" ("300 in 2 of 4, and 500 and longer").
func SplitPauses(ps []PauseResult) string {
	var full []int
	for i, p := range ps {
		if p.Turns > 0 && p.Split == p.Turns {
			full = append(full, i)
		}
	}
	var always string
	if len(full) >= 2 && full[len(full)-1] == len(ps)-1 && full[len(full)-1]-full[0] == len(full)-1 {
		always = scenMs(ps[full[0]].Pause) + " and longer"
	} else {
		var names []string
		for _, i := range full {
			names = append(names, scenMs(ps[i].Pause))
		}
		always = strings.Join(names, ", ")
	}
	parts := partialSplits(ps)
	switch {
	case len(parts) > 0 && always != "":
		return strings.Join(parts, ", ") + ", and " + always
	case len(parts) > 0:
		return strings.Join(parts, ", ")
	case always == "":
		return "none"
	}
	return always
}

func partialSplits(ps []PauseResult) []string {
	var out []string
	for _, p := range ps {
		if p.Split > 0 && p.Split < p.Turns {
			out = append(out, fmt.Sprintf("%s in %d of %d", scenMs(p.Pause), p.Split, p.Turns))
		}
	}
	return out
}

func scenJoin(parts []string) string {
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func scenMs(m callers.Ms) string { return fmt.Sprintf("%.0f", float64(m)) }

// ReplayRow is one turn of a replayed call beside the original's.
type ReplayRow struct {
	Turn          int
	Phrase        string
	Before, Again *callers.Turn // nil when that call had no such turn
}

// TextReplay writes a replayed call's turns beside the original's: the phrase, the verdict and
// the wait to the transcript and to the reply.
func TextReplay(w io.Writer, rows []ReplayRow) error {
	ew := &errWriter{w: w}
	t := table{head: []string{"turn", "phrase", "original", "replay", "speech_end→transcript (orig / replay)", "speech_end→reply (orig / replay)", "heard (orig / replay)"}}
	for _, r := range rows {
		t.rows = append(t.rows, []string{itoa(r.Turn), r.Phrase, replayVerdict(r.Before), replayVerdict(r.Again),
			replayMetric(checks.MetricSpeechEndToTranscript, r.Before) + " / " + replayMetric(checks.MetricSpeechEndToTranscript, r.Again),
			replayMetric(checks.MetricSpeechEndToReply, r.Before) + " / " + replayMetric(checks.MetricSpeechEndToReply, r.Again),
			replayHeard(r.Before) + " / " + replayHeard(r.Again)})
	}
	textTable(ew, t)
	if ew.err != nil {
		return fmt.Errorf("report: replay: %w", ew.err)
	}
	return nil
}

func replayVerdict(t *callers.Turn) string {
	if t == nil {
		return "-"
	}
	if v := checks.Turn(*t); !v.Understood {
		return v.Reason.String()
	}
	return "understood"
}

func replayMetric(m checks.Metric, t *callers.Turn) string {
	if t == nil {
		return "-"
	}
	v, ok := m.OfTurn(*t)
	if !ok {
		return "-"
	}
	return checks.FormatMs(v)
}

func replayHeard(t *callers.Turn) string {
	if t == nil || t.Heard == "" {
		return "-"
	}
	return t.Heard
}
