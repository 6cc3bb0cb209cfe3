package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/callfleet/callfleet/callers"
)

// page is a parsed HTML report.
type page struct {
	root *html.Node
	src  string
}

func renderPage(t *testing.T, r *Report, run *Run, extra ...Section) page {
	t.Helper()
	var b bytes.Buffer
	var err error
	if run != nil {
		err = HTML(&b, r, run.Turns, extra...)
	} else {
		err = HTML(&b, r, nil, extra...)
	}
	if err != nil {
		t.Fatal(err)
	}
	root, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return page{root: root, src: b.String()}
}

// all returns the elements matching keep, in document order.
func (p page) all(keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for n := range p.root.Descendants() {
		if n.Type == html.ElementNode && keep(n) {
			out = append(out, n)
		}
	}
	return out
}

func tag(name string) func(*html.Node) bool { return func(n *html.Node) bool { return n.Data == name } }

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// figureIDs are the ids of the figures holding an svg.
func (p page) figureIDs() []string {
	var ids []string
	for _, f := range p.all(tag("figure")) {
		for c := range f.Descendants() {
			if c.Type == html.ElementNode && c.Data == "svg" {
				ids = append(ids, attr(f, "id"))
				break
			}
		}
	}
	return ids
}

var allCharts = []string{"latency-percentiles", "latency-p95", "capacity", "underruns", "agent-cpu", "agent-rss",
	"dist-speech_end_to_reply", "dist-speech_end_to_transcript", "dist-reply_start"}

func TestHTMLStructure(t *testing.T) {
	run := synthRun()
	probe := Section{Title: "Pause probe", Note: "pauses a caller may leave <mid-phrase>", Head: []string{"pause", "split"},
		Rows: [][]string{{"300 ms", "0 of 20"}, {"700 ms", "3 of 20"}}}
	p := renderPage(t, run.Report, run, probe)
	if got := p.figureIDs(); !slices.Equal(got, allCharts) {
		t.Errorf("charts %v, want %v", got, allCharts)
	}
	// Self-contained: nothing to fetch, nothing to run.
	for _, n := range p.all(func(n *html.Node) bool { return true }) {
		if slices.Contains([]string{"script", "link", "img", "iframe", "object", "embed"}, n.Data) {
			t.Errorf("a <%s> element", n.Data)
		}
		for _, a := range n.Attr {
			if (a.Key == "src" || a.Key == "href" || a.Key == "xlink:href") && !strings.HasPrefix(a.Val, "#") {
				t.Errorf("<%s %s=%q> points outside the page", n.Data, a.Key, a.Val)
			}
		}
	}
	if strings.Contains(p.src, "@import") || strings.Contains(p.src, "url(") {
		t.Error("the style fetches something")
	}
	// Every chart is well-formed SVG on its own.
	for i, chunk := range strings.Split(p.src, "<svg ")[1:] {
		end := strings.Index(chunk, "</svg>")
		dec := xml.NewDecoder(strings.NewReader("<svg " + chunk[:end+len("</svg>")]))
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("chart %d is not well-formed: %v", i, err)
			}
		}
	}
	classes := map[string]int{}
	for _, tr := range p.all(tag("tr")) {
		classes[attr(tr, "class")]++
	}
	if classes["ok"] != 2 || classes["fail"] != 1 || classes["bound"] != 1 {
		t.Errorf("verdict rows %v, want 2 ok, 1 fail, 1 bound", classes)
	}
	extra := p.all(func(n *html.Node) bool { return n.Data == "section" && attr(n, "class") == "extra" })
	if len(extra) != 1 || attr(extra[0], "id") != "section-1" || !strings.Contains(p.src, "&lt;mid-phrase&gt;") ||
		!strings.Contains(p.src, `<a href="#section-1">Pause probe</a>`) {
		t.Errorf("the probe section is missing or unescaped")
	}
	for _, want := range []string{"capacity: 2 calls", "generator_bound", "N=8: turns late_transcript 1"} {
		if !strings.Contains(p.src, want) {
			t.Errorf("no %q", want)
		}
	}
}

func TestHTMLWithoutRecords(t *testing.T) {
	p := renderPage(t, synthReport(), nil)
	if got := p.figureIDs(); !slices.Equal(got, allCharts[:6]) {
		t.Errorf("charts %v, want the six from report.json", got)
	}
	if !strings.Contains(p.src, "distributions are left out") {
		t.Error("no note about the missing distributions")
	}
}

func TestHTMLSparseReports(t *testing.T) {
	noTranscripts := synthReportNA()
	down := Build(RunConfig{Steps: []int{1}}, []StepData{{N: 1}}, synthConfig().Thresholds) // a target that never answered
	for name, r := range map[string]*Report{"no transcript channel": noTranscripts, "no answer": down, "no steps": {Schema: Schema}} {
		t.Run(name, func(t *testing.T) {
			p := renderPage(t, r, nil)
			if name == "no steps" && len(p.figureIDs()) != 0 {
				t.Errorf("charts of nothing: %v", p.figureIDs())
			}
		})
	}
}

func TestWriteHTMLReadsTheRecords(t *testing.T) {
	dir := t.TempDir()
	run := synthRun()
	if err := WriteRun(filepath.Join(dir, FileName), run); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(dir, run.Report, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, HTMLFileName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `id="dist-speech_end_to_reply"`) {
		t.Error("the distributions are missing: the records were not read")
	}
	if err := os.Remove(filepath.Join(dir, TurnsFileName)); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(dir, run.Report, nil); err == nil {
		t.Error("no error without the records")
	}
}

// scenarioReport is a probe, barge-in and idle run as report.json holds it: no steps.
func scenarioReport() *ScenarioReport {
	lat, split := callers.Ms(41), callers.Ms(700)
	probe := seedProbe()
	probe.Settings[0].ShortestSplit = &split
	return &ScenarioReport{Report: Build(RunConfig{Target: "ws://x/twilio/ws", Transport: "twilio", Seed: 3}, nil, synthConfig().Thresholds),
		Scenarios: Scenarios{Probe: probe,
			BargeIn: &BargeInSection{Offset: 500, MaxP95: 300, Calls: []BargeInCall{{Call: 1, Interrupted: "7134", Interrupt: "8135",
				Latency: &lat, Signal: "clear", Clear: &lat, Understood: true}}, Verdict: ScenarioVerdict{OK: true}},
			Idle: &IdleSection{ExpectPrompt: 1000, ExpectHangup: 1000, Tolerance: 60, Calls: []IdleCall{{Call: 0, Error: "the agent did not hang up"}},
				Verdict: ScenarioVerdict{Reasons: []string{"call 0: the agent did not hang up"}}}}}
}

// A scenario run's page is its tables: the probe's (the seed's two and one per setting), the
// barge-in and idle calls; no ramp steps, charts or cross-tab of nothing.
func TestHTMLScenarioSections(t *testing.T) {
	sr := scenarioReport()
	p := renderPage(t, sr.Report, nil, sr.Sections()...)
	var ids []string
	for _, s := range p.all(func(n *html.Node) bool { return n.Data == "section" }) {
		ids = append(ids, attr(s, "id"))
	}
	want := []string{"probe", "probe-tradeoff", "probe-setting-1", "probe-setting-2", "probe-setting-3", "probe-setting-4", "bargein", "idle"}
	if !slices.Equal(ids, want) {
		t.Errorf("sections %v, want %v", ids, want)
	}
	if got := p.figureIDs(); len(got) != 0 {
		t.Errorf("charts of a run without steps: %v", got)
	}
	cells := map[string]bool{}
	for _, td := range p.all(tag("td")) {
		if td.FirstChild != nil {
			cells[td.FirstChild.Data] = true
		}
	}
	for _, want := range []string{"2 of 4 split", "700 and longer", "1300/1000", "8135", "clear", "understood", "the agent did not hang up"} {
		if !cells[want] {
			t.Errorf("no cell %q", want)
		}
	}
	for _, want := range []string{"<title>callfleet report: Pause probe, End-of-turn trade-off,", "not a ramp: the scenario&#39;s tables are below",
		"700 ms and longer", "Shortest pause that splits: 700 ms.", "Shortest pause that splits: none", "Verdict: ok.", "Verdict: FAIL: call 0: the agent did not hang up.",
		`<a href="#bargein">Barge-in</a>`} {
		if !strings.Contains(p.src, want) {
			t.Errorf("no %q", want)
		}
	}
	if strings.Contains(p.src, `id="steps"`) || strings.Contains(p.src, "capacity: 0 calls") {
		t.Error("a scenario page shows the ramp's empty steps")
	}
}

// A report whose figures no axis can hold (hand-edited, corrupt) still renders: the chart that
// cannot be drawn is left out, with a warning, instead of a panic.
func TestHTMLAbsurdValues(t *testing.T) {
	var r Report
	in := `{"schema":"callfleet.report/v2","config":{"steps":[1,2]},"steps":[{"index":1,"n":1,"underruns_per_min":1e308,` +
		`"latency":{"speech_end_to_reply":{"n":5,"p50":-1e308,"p95":1e308}}},{"index":2,"n":2,"latency":{}}]}`
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := HTML(&b, &r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "a chart was left out") || !strings.Contains(b.String(), `<figure id="capacity">`) {
		t.Errorf("want the broken charts left out with a warning and the others kept")
	}
}
