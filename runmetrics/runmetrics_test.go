package runmetrics

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	agent "github.com/callfleet/callfleet/agent-under-test"
	"github.com/callfleet/callfleet/agent-under-test/llm"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/callers/twilio"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/scenarios"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

// A short run against the in-process reference agent, its figures scraped over loopback while it
// runs and after: the series are there and their counts are the records'.
func TestMetricsOfARun(t *testing.T) {
	rec, err := stt.Load(stt.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	agentVoice, err := tts.ByName(speech.DefaultAgentVoice)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := agent.New(agent.DefaultConfig(), rec, llm.Repeat{}, agentVoice, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		hs.Close()
	}()
	d := &twilio.Dialer{URL: "ws" + strings.TrimPrefix(hs.URL, "http") + "/twilio/ws", EventsURL: hs.URL + "/calls/{callSid}/events"}
	callerVoice, err := tts.ByName(speech.DefaultCallerVoice)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pool.Build(context.Background(), pool.VoiceSource{Voice: callerVoice},
		pool.Options{Size: 8, Seed: 3, Codecs: []pool.Codec{d.Codec()}, LeadIn: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}

	m := New()
	ms, err := m.Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close(context.Background())
	url := "http://" + ms.Addr() + "/metrics"

	// Scrape while the run lasts, to see calls up.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	running, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var mostUp float64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for running.Err() == nil {
			if fams, err := scrape(running, url); err == nil {
				mostUp = max(mostUp, value(fams, "callfleet_calls_up", nil))
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-running.Done():
			}
		}
	}()

	plan := scenarios.DefaultPlan()
	// No ramp or warm-up: every turn falls in the measured window, so the report counts them all.
	plan.Steps, plan.Duration, plan.Ramp, plan.Warmup, plan.Seed = []int{2}, 3*time.Second, 0, 0, 3
	out := t.TempDir()
	r, err := scenarios.Execute(ctx, scenarios.Spec{Target: hs.URL, Dialer: d, Plan: plan,
		Thresholds: checks.DefaultThresholds(), Pool: p, STT: listen.ModelEars(rec), Out: out, Metrics: m})
	stop()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if mostUp < 1 {
		t.Errorf("calls up was never above 0 while the run lasted")
	}

	fams, err := scrape(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	turns, calls, err := report.ReadJSONL(filepath.Join(out, report.TurnsFileName))
	if err != nil {
		t.Fatal(err)
	}
	connected, understood, connect, e2r, replyStart := 0, 0, 0, 0, 0
	failed := map[string]int{}
	for _, c := range calls {
		if c.Connected {
			connected++
		}
		if _, ok := checks.MetricConnect.OfCall(c); ok {
			connect++
		}
	}
	for _, tr := range turns {
		if v := checks.Turn(tr); v.Understood {
			understood++
		} else {
			failed[v.Reason.String()]++
		}
		if _, ok := checks.MetricSpeechEndToReply.OfTurn(tr); ok {
			e2r++
		}
		if _, ok := checks.MetricReplyStart.OfTurn(tr); ok {
			replyStart++
		}
	}
	s := r.Steps[0]
	if len(calls) != 2 || s.Calls != 2 || s.Turns.Total != len(turns) || s.Turns.Understood != understood || len(turns) == 0 {
		t.Fatalf("records: %d calls, %d turns (%d understood); report: %d calls, %+v", len(calls), len(turns), understood, s.Calls, s.Turns)
	}
	cases := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"callfleet_calls_up", nil, 0},
		{"callfleet_calls_total", map[string]string{"connected": "true"}, float64(connected)},
		{"callfleet_calls_total", map[string]string{"connected": "false"}, float64(len(calls) - connected)},
		{"callfleet_turns_total", map[string]string{"verdict": "understood", "reason": "none"}, float64(s.Turns.Understood)},
		{"callfleet_latency_seconds", map[string]string{"metric": "connect"}, float64(connect)},
		{"callfleet_latency_seconds", map[string]string{"metric": "speech_end_to_reply"}, float64(e2r)},
		{"callfleet_latency_seconds", map[string]string{"metric": "reply_start"}, float64(replyStart)},
		{"callfleet_send_lateness_p99_seconds", nil, float64(len(turns))},
		{"callfleet_step", nil, 1},
		{"callfleet_step_calls", nil, 2},
	}
	for reason, n := range failed {
		cases = append(cases, struct {
			name   string
			labels map[string]string
			want   float64
		}{"callfleet_turns_total", map[string]string{"verdict": "failed", "reason": reason}, float64(n)})
	}
	for _, c := range cases {
		if got := value(fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if e2r == 0 || value(fams, "callfleet_latency_seconds", map[string]string{"metric": "speech_end_to_reply"}) == 0 {
		t.Error("no speech_end_to_reply sample: the run did not converse")
	}
}

func scrape(ctx context.Context, url string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(resp.Body)
}

// value is a series' value: a gauge's or counter's, or a histogram's sample count; -1 when absent.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}
