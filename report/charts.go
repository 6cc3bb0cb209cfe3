package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// chart is one figure of the HTML report: an inline SVG drawn by gonum/plot.
type chart struct {
	ID      string // stable, for anchors and tests
	Title   string
	Caption string
	SVG     template.HTML
}

var (
	colorOK    = color.RGBA{R: 0x2e, G: 0x8b, B: 0x57, A: 0xff}
	colorFail  = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	colorBound = color.RGBA{R: 0xff, G: 0x8c, B: 0x00, A: 0xff}
	colorLimit = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}
)

const chartW, chartH = 16 * vg.Centimeter, 9 * vg.Centimeter

// charts draws every figure the report has data for; steps holds each step's records (without
// any, the distributions are left out). A figure that cannot be drawn (a hand-edited report's
// absurd values) is left out, and the returned lines say which and why.
func charts(r *Report, steps []StepData) ([]chart, []string) {
	builders := []func(*Report, []StepData) (*chart, error){
		chartPercentiles, chartP95s, chartCapacity, chartUnderruns, chartAgentCPU, chartAgentRSS,
	}
	for _, m := range []checks.Metric{checks.MetricSpeechEndToReply, checks.MetricSpeechEndToTranscript, checks.MetricReplyStart} {
		builders = append(builders, func(r *Report, s []StepData) (*chart, error) { return chartBoxes(r, s, m) })
	}
	var out []chart
	var left []string
	for _, b := range builders {
		c, err := drawChart(b, r, steps)
		if err != nil {
			left = append(left, fmt.Sprintf("warning: a chart was left out: %v", err))
			continue
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, left
}

// maxAxis bounds the values an axis may span: gonum/plot's tick search never ends on a range
// that overflows to infinity (only a corrupt report's values come near it).
const maxAxis = 1e300

// drawable says whether gonum/plot can lay out the axes (an infinite bound is an axis with no
// data yet, which it lays out at 0).
func drawable(axes ...plot.Axis) bool {
	for _, a := range axes {
		for _, v := range []float64{a.Min, a.Max} {
			if math.IsNaN(v) || (!math.IsInf(v, 0) && math.Abs(v) > maxAxis) {
				return false
			}
		}
	}
	return true
}

// drawChart runs one chart's builder. gonum/plot panics on data it cannot lay out (an axis range
// that overflows to infinity): values from a corrupt or hand-edited report cost that chart, not
// the page, so its panic becomes the chart's error.
func drawChart(b func(*Report, []StepData) (*chart, error), r *Report, steps []StepData) (c *chart, err error) {
	defer func() {
		if v := recover(); v != nil {
			c, err = nil, fmt.Errorf("report: chart: cannot draw: %v", v)
		}
	}()
	return b(r, steps)
}

// byN is the report's steps in order of N, the x axis of every curve.
func byN(r *Report) []Step {
	s := slices.Clone(r.Steps)
	slices.SortStableFunc(s, func(a, b Step) int { return a.N - b.N })
	return s
}

// newPlot is a plot with the report's look: N of concurrent calls on x (log scale when the steps
// grow geometrically), ticks at the steps.
func newPlot(title, ylabel string, steps []Step) *plot.Plot {
	p := newSansPlot()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.X.Label.Text = "concurrent calls (N)"
	p.Legend.Top, p.Legend.Left = true, true // curves rise to the right
	var ticks []plot.Tick
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range steps {
		ticks = append(ticks, plot.Tick{Value: float64(s.N), Label: strconv.Itoa(s.N)})
		lo, hi = min(lo, float64(s.N)), max(hi, float64(s.N))
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if len(steps) > 0 {
		p.X.Min, p.X.Max = lo, hi // every step on the axis, with or without a value
	}
	if lo > 0 && hi/lo >= 8 {
		p.X.Scale = plot.LogScale{}
	}
	p.Add(plotter.NewGrid())
	return p
}

// newSansPlot is a plot whose text is Liberation Sans, which render maps to the page's sans fonts.
func newSansPlot() *plot.Plot {
	p := plot.New()
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = "Sans"
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	return p
}

// addSeries adds a line with points; it skips points whose value is missing (NaN).
func addSeries(p *plot.Plot, name string, i int, xys plotter.XYs) error {
	xys = slices.DeleteFunc(xys, func(xy plotter.XY) bool { return math.IsNaN(xy.Y) })
	if len(xys) == 0 {
		return nil
	}
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return fmt.Errorf("report: chart %s: %w", name, err)
	}
	l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
	s.Shape = plotutil.Shape(i)
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

// hline draws a dashed horizontal limit across the steps.
func hline(p *plot.Plot, name string, y float64, steps []Step) error {
	xys := plotter.XYs{{X: float64(steps[0].N), Y: y}, {X: float64(steps[len(steps)-1].N), Y: y}}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("report: chart limit: %w", err)
	}
	l.Color, l.Dashes = colorLimit, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

func chartPercentiles(r *Report, _ []StepData) (*chart, error) {
	steps := byN(r)
	m := checks.MetricSpeechEndToReply.String()
	if !anyLatency(steps, m) {
		return nil, nil
	}
	p := newPlot("speech_end → reply: percentiles vs load", "ms", steps)
	for i, q := range []struct {
		name string
		of   func(checks.Summary) float64
	}{
		{"p50", func(s checks.Summary) float64 { return float64(s.P50) }},
		{"p95", func(s checks.Summary) float64 { return float64(s.P95) }},
		{"p99", func(s checks.Summary) float64 { return float64(s.P99) }},
	} {
		if err := addSeries(p, q.name, i, latencyXYs(steps, m, q.of)); err != nil {
			return nil, err
		}
	}
	if first := r.Steps[0].Latency[m]; first.N > 0 && len(steps) > 0 {
		limit := float64(first.P50) + float64(callers.D(r.Config.Thresholds.P95Slack))
		if err := hline(p, "p95 limit", limit, steps); err != nil {
			return nil, err
		}
	}
	return render("latency-percentiles", "Latency percentiles vs concurrent calls",
		"p50, p95 and p99 of speech_end → first reply audio at each step; the dashed line is the p95 limit "+
			"(first step's median plus the slack).", p)
}

func chartP95s(r *Report, _ []StepData) (*chart, error) {
	steps := byN(r)
	p := newPlot("p95 of each turn latency vs load", "ms", steps)
	n := 0
	for _, m := range checks.Metrics() {
		if m.PerCall() || !anyLatency(steps, m.String()) {
			continue
		}
		xys := latencyXYs(steps, m.String(), func(s checks.Summary) float64 { return float64(s.P95) })
		if err := addSeries(p, m.String(), n, xys); err != nil {
			return nil, err
		}
		n++
	}
	if n == 0 {
		return nil, nil
	}
	return render("latency-p95", "p95 of every turn latency vs concurrent calls",
		"Where the time goes as load grows: transcription, the reply after it, and both together.", p)
}

func latencyXYs(steps []Step, m string, of func(checks.Summary) float64) plotter.XYs {
	xys := make(plotter.XYs, 0, len(steps))
	for _, s := range steps {
		y := math.NaN()
		if sum := s.Latency[m]; sum.N > 0 {
			y = of(sum)
		}
		xys = append(xys, plotter.XY{X: float64(s.N), Y: y})
	}
	return xys
}

func anyLatency(steps []Step, m string) bool {
	for _, s := range steps {
		if s.Latency[m].N > 0 {
			return true
		}
	}
	return false
}

// chartCapacity is the share of turns understood and calls clean at each step, each step's
// point coloured by its verdict, with the capacity marked.
func chartCapacity(r *Report, _ []StepData) (*chart, error) {
	steps := byN(r)
	if len(steps) == 0 {
		return nil, nil
	}
	p := newPlot("capacity: "+capacityText(r.Capacity), "%", steps)
	p.Legend.Top = false // the shares fall to the right
	var understood, clean plotter.XYs
	for _, s := range steps {
		u, c := math.NaN(), math.NaN()
		if n := s.Turns.Judged(); n > 0 { // as the step rule counts: unjudged and cancelled apart
			u = 100 * float64(s.Turns.Understood) / float64(n)
		}
		if s.Calls > 0 {
			c = 100 * float64(s.Clean) / float64(s.Calls)
		}
		understood = append(understood, plotter.XY{X: float64(s.N), Y: u})
		clean = append(clean, plotter.XY{X: float64(s.N), Y: c})
	}
	if err := addSeries(p, "turns understood", 0, understood); err != nil {
		return nil, err
	}
	if err := addSeries(p, "calls clean", 1, clean); err != nil {
		return nil, err
	}
	for _, v := range []struct {
		name string
		c    color.Color
		keep func(Step) bool
	}{
		{"step ok", colorOK, func(s Step) bool { return s.Verdict.OK }},
		{"step failed", colorFail, func(s Step) bool { return s.Verdict.Failed() && !s.Verdict.GeneratorBound }},
		{"generator_bound", colorBound, func(s Step) bool { return s.Verdict.Failed() && s.Verdict.GeneratorBound }},
		{"step cut short", colorLimit, func(s Step) bool { return s.Verdict.Incomplete }},
	} {
		var xys plotter.XYs
		for i, s := range steps {
			if v.keep(s) && !math.IsNaN(understood[i].Y) {
				xys = append(xys, understood[i])
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, fmt.Errorf("report: chart capacity: %w", err)
		}
		sc.Color, sc.Shape, sc.Radius = v.c, draw.CircleGlyph{}, vg.Points(5)
		p.Add(sc)
		p.Legend.Add(v.name, sc)
	}
	if r.Capacity.N > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: float64(r.Capacity.N), Y: 0}, {X: float64(r.Capacity.N), Y: 100}})
		if err != nil {
			return nil, fmt.Errorf("report: chart capacity: %w", err)
		}
		l.Color, l.Dashes = colorOK, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add("capacity", l)
	}
	p.Y.Max = max(p.Y.Max, 100)
	return render("capacity", "Capacity curve",
		"Turns understood and calls clean at each step; the dots say each step's verdict, the dashed line "+
			"the capacity (the largest N with every step up to it ok). "+r.Capacity.Note, p)
}

func chartUnderruns(r *Report, _ []StepData) (*chart, error) {
	steps := byN(r)
	var xys plotter.XYs
	for _, s := range steps {
		y := math.NaN()
		if s.UnderrunsPerMin != nil {
			y = *s.UnderrunsPerMin
		}
		xys = append(xys, plotter.XY{X: float64(s.N), Y: y})
	}
	if allNaN(xys) {
		return nil, nil
	}
	p := newPlot("underruns per minute of agent audio", "underruns/min", steps)
	if err := addSeries(p, "underruns/min", 0, xys); err != nil {
		return nil, err
	}
	if err := hline(p, "limit", r.Config.Thresholds.UnderrunsPerMin, steps); err != nil {
		return nil, err
	}
	p.Y.Min = 0
	return render("underruns", "Underruns per minute",
		"Playout underruns per minute of agent audio at each step (the dashed line is the limit).", p)
}

func chartAgentCPU(r *Report, _ []StepData) (*chart, error) {
	return agentChart(r, "agent-cpu", "Agent CPU per conversation", "thousandths of a core", "CPU m/conv",
		func(s Step) *float64 { return s.AgentCPUMilli })
}

func chartAgentRSS(r *Report, _ []StepData) (*chart, error) {
	return agentChart(r, "agent-rss", "Agent RSS per call", "MiB", "RSS MiB/call",
		func(s Step) *float64 { return s.AgentRSSMiBPerCall })
}

func agentChart(r *Report, id, title, unit, name string, of func(Step) *float64) (*chart, error) {
	steps := byN(r)
	var xys plotter.XYs
	for _, s := range steps {
		y := math.NaN()
		if v := of(s); v != nil {
			y = *v
		}
		xys = append(xys, plotter.XY{X: float64(s.N), Y: y})
	}
	if allNaN(xys) {
		return nil, nil
	}
	p := newPlot(title+" vs load", unit, steps)
	if err := addSeries(p, name, 0, xys); err != nil {
		return nil, err
	}
	p.Y.Min = 0
	return render(id, title+" vs concurrent calls",
		"From the agent's /metrics, scraped around each step's measured window.", p)
}

// chartBoxes draws one box plot per step of metric m's samples.
func chartBoxes(r *Report, steps []StepData, m checks.Metric) (*chart, error) {
	if !anySamples(steps, m) {
		return nil, nil
	}
	p := newSansPlot()
	p.Title.Text = m.String() + ": distribution per step"
	p.Y.Label.Text = "ms"
	p.X.Label.Text = "step"
	p.Add(plotter.NewGrid())
	var names []string
	for i, d := range steps {
		xs := checks.Samples(m, d.Turns, d.Calls)
		names = append(names, fmt.Sprintf("N=%d (%d)", d.N, len(xs)))
		if len(xs) == 0 {
			continue
		}
		b, err := plotter.NewBoxPlot(vg.Points(24), float64(i), plotter.Values(xs))
		if err != nil {
			return nil, fmt.Errorf("report: chart %s: %w", m, err)
		}
		b.FillColor = plotutil.Color(i)
		p.Add(b)
	}
	p.NominalX(names...)
	return render("dist-"+m.String(), m.String()+" per step",
		"Box plots of every measured sample (box: quartiles, line: median, whiskers: 1.5 IQR, dots: "+
			"outliers); the sample count is in brackets.", p)
}

func anySamples(steps []StepData, m checks.Metric) bool {
	for _, d := range steps {
		if len(checks.Samples(m, d.Turns, d.Calls)) > 0 {
			return true
		}
	}
	return false
}

func allNaN(xys plotter.XYs) bool {
	for _, xy := range xys {
		if !math.IsNaN(xy.Y) {
			return false
		}
	}
	return true
}

// svgHead is vgsvg's document prologue up to the opening tag's size, replaced so the figure
// scales with the page.
var svgHead = regexp.MustCompile(`(?s)^.*?<svg width="[^"]*" height="[^"]*"`)

// render draws p as an inline SVG element (no XML prologue, fluid width).
func render(id, title, caption string, p *plot.Plot) (*chart, error) {
	if !drawable(p.X, p.Y) {
		return nil, fmt.Errorf("report: chart %s: values out of any axis's range (x %g to %g, y %g to %g)",
			id, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	c := vgsvg.New(chartW, chartH)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("report: chart %s: %w", id, err)
	}
	svg := svgHead.ReplaceAllLiteral(b.Bytes(), []byte(`<svg class="chart" role="img" aria-label="`+
		template.HTMLEscapeString(title)+`"`))
	// Arial has Liberation Sans's metrics, so labels keep the widths the layout measured.
	svg = bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	// The SVG is built here from numbers and our own labels, which vgsvg escapes.
	return &chart{ID: id, Title: title, Caption: caption, SVG: template.HTML(svg)}, nil
}
