package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/checks"
)

func TestBuild(t *testing.T) {
	r := synthReport()
	if r.Schema != Schema || r.TurnsFile != TurnsFileName {
		t.Errorf("schema %q, turns file %q", r.Schema, r.TurnsFile)
	}
	if r.Capacity.N != 2 || r.Capacity.Bound {
		t.Errorf("capacity %+v, want 2 (step 4 fails on underruns)", r.Capacity)
	}
	if !slices.Equal(r.ChecksApplied, []string{checks.CheckServerTranscript, checks.CheckCallerTranscription}) {
		t.Errorf("checks applied %v", r.ChecksApplied)
	}
	ok := []bool{true, true, false, false}
	for i, s := range r.Steps {
		if s.Verdict.OK != ok[i] {
			t.Errorf("step %d ok=%v, want %v: %q", s.N, s.Verdict.OK, ok[i], s.Verdict.Reasons)
		}
	}
	s4, s8 := r.Steps[2], r.Steps[3]
	if s4.UnderrunsPerMin == nil || *s4.UnderrunsPerMin != 2 || s4.Playout.LongestGap != 52 {
		t.Errorf("step 4 playout %+v, rate %v", s4.Playout, s4.UnderrunsPerMin)
	}
	if !s8.Generator.Bound || !s8.Verdict.GeneratorBound {
		t.Errorf("step 8 should be generator_bound: %+v", s8.Generator)
	}
	// the garbled reply's underrun was heard by a caller that ran 31 ms late: unjudged, not failed
	wantFail := map[string]int{"late_transcript": 1, "unjudged": 1, "wrong_transcript": 1}
	if !mapsEqual(s8.Failures, wantFail) {
		t.Errorf("step 8 failures %v, want %v", s8.Failures, wantFail)
	}
	if s8.Turns != (TurnCounts{Total: 40, Understood: 37, Failed: 2, Unjudged: 1}) || s8.Clean != 4 || s8.Answered != 8 {
		t.Errorf("step 8 counts turns=%+v clean=%d answered=%d", s8.Turns, s8.Clean, s8.Answered)
	}
	if got := s8.Latency["speech_end_to_reply"].N; got != 39 {
		t.Errorf("speech_end_to_reply samples %d, want 39 (one turn unanswered)", got)
	}
	if len(s8.Latency) != len(checks.Metrics()) {
		t.Errorf("latencies %v", s8.Latency)
	}
	if !r.Started.Equal(synthStart.Add(18*time.Second)) || !r.Ended.After(r.Started) {
		t.Errorf("span %v .. %v", r.Started, r.Ended)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestBuildEmpty(t *testing.T) {
	r := Build(RunConfig{}, nil, checks.DefaultThresholds())
	if len(r.Steps) != 0 || r.Capacity.N != 0 || r.ChecksApplied == nil {
		t.Errorf("%+v", r)
	}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "capacity: 0 calls") {
		t.Errorf("empty summary:\n%s", b.String())
	}
}

func TestWriteLoad(t *testing.T) {
	r := synthReport()
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(r)
	b, _ := json.Marshal(back)
	if !bytes.Equal(a, b) {
		t.Errorf("round trip differs:\n%s\n%s", a, b)
	}
	if got := back.TurnsPath(path); got != filepath.Join(dir, TurnsFileName) {
		t.Errorf("turns path %q", got)
	}
	if back.Config.Thresholds != checks.DefaultThresholds() {
		t.Errorf("thresholds %+v", back.Config.Thresholds)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"schema":"callfleet.report/v0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(other); !errors.Is(err, ErrSchema) {
		t.Errorf("other schema: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if err := synthReport().Write(filepath.Join(dir, "no", "such", "dir")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// failingWriter fails every write, to check renderers report it.
type failingWriter struct{}

var errBroken = errors.New("broken pipe")

func (failingWriter) Write([]byte) (int, error) { return 0, errBroken }

func TestRenderWriteErrors(t *testing.T) {
	r := synthReport()
	if err := Text(failingWriter{}, r); !errors.Is(err, errBroken) {
		t.Errorf("text: %v", err)
	}
	if err := Markdown(failingWriter{}, r); !errors.Is(err, errBroken) {
		t.Errorf("markdown: %v", err)
	}
}

func TestCPUModel(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, body, want string }{
		{"x86", "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t: fpu\n", "AMD EPYC 7B13"},
		{"arm board", "processor\t: 0\nCPU part\t: 0xd08\nModel\t: Raspberry Pi 4\n", "Raspberry Pi 4"},
		{"nothing", "processor\t: 0\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := cpuModel(p); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := cpuModel(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing file: %q", got)
	}
	if m := ThisMachine(); m.Cores < 1 || m.OS == "" || m.GoVersion == "" {
		t.Errorf("this machine: %+v", m)
	}
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"with p95s", ProgressLine(2, 4, 102*time.Second, 4, 31, 1,
			Figure{"speech_end_to_reply", 1930}, Figure{"reply_start", 640.4}),
			"step 2 N=4 01:42 calls 4/4 turns ok 31 failed 1 | p95 speech_end_to_reply 1.93 s, reply_start 640 ms"},
		{"bare", ProgressLine(1, 1, 0, 0, 0, 0), "step 1 N=1 00:00 calls 0/1 turns ok 0 failed 0"},
		{"negative elapsed", ProgressLine(1, 1, -time.Second, 1, 0, 0), "step 1 N=1 00:00 calls 1/1 turns ok 0 failed 0"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestBuildEars: the ears' verdict data reach report.json and the summaries.
func TestBuildEars(t *testing.T) {
	r := synthReportEars()
	if c := r.Calibration; c == nil || c.Trusted || c.Basis != checks.BasisAgentText || c.N != 10 || c.Agreed != 8 || c.StepN != 1 {
		t.Fatalf("calibration %+v, want untrusted 8 of 10 on the agent's text at N=1", c)
	}
	s1, s2, s4 := r.Steps[0], r.Steps[1], r.Steps[2]
	if !s1.Verdict.OK || s1.Cross.Misheard != 2 || s1.Failures["misheard"] != 2 {
		t.Errorf("N=1: verdict %+v, cross %+v, failures %v; want ok with 2 misheard", s1.Verdict, s1.Cross, s1.Failures)
	}
	if s2.Verdict.Word() != "FAIL" || s2.Turns.Slips != 1 || s2.Verdict.SlipsTolerated || s2.Failures["slip"] != 1 {
		t.Errorf("N=2: verdict %+v, turns %+v; want FAIL on 1 slip not tolerated", s2.Verdict, s2.Turns)
	}
	if !s4.Verdict.GeneratorBound || s4.Generator.Unjudged != 2 || s4.Turns.Unjudged != 2 || s4.Turns.Failed != 0 ||
		s4.Generator.DecodeWait.N != 20 || s4.Cross.Unjudged != 2 {
		t.Errorf("N=4: verdict %+v, generator %+v, turns %+v; want generator_bound on 2 unjudged", s4.Verdict, s4.Generator, s4.Turns)
	}
	for name, out := range renders(t, r) {
		for _, want := range []string{"--stt-url", "80 % of 10 turns at N=1", "misheard", "9 / 0 / 1 (not tolerated)", "unjudged 2"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if i := strings.Index(out, "--stt-url"); i < 0 || i > strings.Index(out, "speech_end→reply") {
			t.Errorf("%s: the calibration warning is not above the step table", name)
		}
	}
}

// TestBuildCut: a step cut short is incomplete, its in-flight turns cancelled, and capacity at
// least the largest completed step.
func TestBuildCut(t *testing.T) {
	r := synthReportCut()
	s2, s8 := r.Steps[0], r.Steps[2]
	if !s2.Verdict.OK || !s2.Verdict.SlipsTolerated || s2.Turns.Slips != 1 || !r.Calibration.Trusted {
		t.Errorf("N=2: verdict %+v, calibration %+v; want ok, 1 slip tolerated, ears trusted", s2.Verdict, r.Calibration)
	}
	if s8.Verdict.Word() != "incomplete" || s8.Verdict.Failed() || s8.Turns.Cancelled != 8 || s8.Turns.Failed != 0 {
		t.Errorf("N=8: verdict %+v, turns %+v; want incomplete with 8 cancelled", s8.Verdict, s8.Turns)
	}
	if !r.Capacity.Incomplete || r.Capacity.N != 4 {
		t.Errorf("capacity %+v, want at least 4", r.Capacity)
	}
	for name, out := range renders(t, r) {
		for _, want := range []string{"capacity: at least 4 calls", "incomplete", "19 / 0 / 1", "cancelled 8"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(out, "not tolerated") || strings.Contains(out, "--stt-url") {
			t.Errorf("%s: slips tolerated and ears trusted, yet flagged", name)
		}
	}
}

// renders is r as text, Markdown and HTML.
func renders(t *testing.T, r *Report) map[string]string {
	t.Helper()
	var txt, md, page bytes.Buffer
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"text": txt.String(), "markdown": md.String(), "html": page.String()}
}
