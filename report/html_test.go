package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
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
