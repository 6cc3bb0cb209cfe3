package agent

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the agent's Prometheus series; each Server has its own registry so several agents
// can live in one test process.
type metrics struct {
	reg       *prometheus.Registry
	active    *prometheus.GaugeVec
	calls     *prometheus.CounterVec
	turns     prometheus.Counter
	eotToText prometheus.Histogram
	textToTTS prometheus.Histogram
	bargeIns  prometheus.Counter
	refusals  *prometheus.CounterVec
	idle      *prometheus.CounterVec
	badInput  *prometheus.CounterVec
	hangups   *prometheus.CounterVec
	limit     prometheus.Gauge
}

// The transports, as the transport label of every series.
const (
	transportTwilio = "twilio"
	transportWebRTC = "webrtc"
)

func newMetrics() *metrics {
	buckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "agent_active_calls",
			Help: "Calls in progress."}, []string{"transport"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_calls_total",
			Help: "Calls accepted."}, []string{"transport"}),
		turns: prometheus.NewCounter(prometheus.CounterOpts{Name: "agent_turns_total",
			Help: "Caller turns heard (final transcripts)."}),
		eotToText: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "agent_end_of_turn_to_transcript_seconds",
			Help: "End of turn to final transcript.", Buckets: buckets}),
		textToTTS: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "agent_transcript_to_first_audio_seconds",
			Help: "Final transcript to the reply's first audio frame sent.", Buckets: buckets}),
		bargeIns: prometheus.NewCounter(prometheus.CounterOpts{Name: "agent_barge_ins_total",
			Help: "Replies stopped by caller speech."}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_refused_calls_total",
			Help: "Calls refused, by reason."}, []string{"reason"}),
		idle: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_idle_total",
			Help: "Idle guard actions."}, []string{"action"}),
		badInput: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_bad_input_total",
			Help: "Malformed or unexpected input, by transport and kind."}, []string{"transport", "kind"}),
		hangups: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_hangups_total",
			Help: "Calls the agent ended, by transport and reason."}, []string{"transport", "reason"}),
		limit: prometheus.NewGauge(prometheus.GaugeOpts{Name: "agent_max_calls",
			Help: "The live-call limit; 0 = none."}),
	}
	m.reg.MustRegister(m.active, m.calls, m.turns, m.eotToText, m.textToTTS, m.bargeIns, m.refusals, m.idle, m.badInput,
		m.hangups, m.limit, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Every transport's series exist from start-up, so a scrape before the first call reads 0, not absent.
	for _, tr := range []string{transportTwilio, transportWebRTC} {
		m.active.WithLabelValues(tr)
		m.calls.WithLabelValues(tr)
	}
	return m
}

// observer feeds one call's pipeline timings into the metrics.
type observer struct{ m *metrics }

func (o observer) Turn(eotToTranscript, transcriptToAudio time.Duration) {
	o.m.turns.Inc()
	o.m.eotToText.Observe(eotToTranscript.Seconds())
	o.m.textToTTS.Observe(transcriptToAudio.Seconds())
}
func (o observer) BargeIn()    { o.m.bargeIns.Inc() }
func (o observer) IdlePrompt() { o.m.idle.WithLabelValues("prompt").Inc() }
func (o observer) IdleHangup() { o.m.idle.WithLabelValues("hangup").Inc() }
