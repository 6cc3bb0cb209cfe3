// Package runmetrics holds a run's live figures for Prometheus (`callfleet run --metrics-listen`):
// calls up, calls and turns by outcome, latency and send-lateness histograms. It is fed from the
// run's event stream as one more scenarios.Output, so a slow scrape never slows a caller, and it
// keeps its own registry, so it can be served beside anything else in the process.
package runmetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/scenarios"
)

// Metrics are one run's series. Handle is called by one goroutine (the bus's, for this output);
// scrapes read the registry concurrently, which the Prometheus types allow.
type Metrics struct {
	reg       *prometheus.Registry
	callsUp   prometheus.Gauge
	calls     *prometheus.CounterVec
	turns     *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	lateness  prometheus.Histogram
	step      prometheus.Gauge
	stepCalls prometheus.Gauge

	up map[int]bool // calls dialing or in conversation, by call number
}

var _ scenarios.Output = (*Metrics)(nil)

// New returns empty series on a registry of their own.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		callsUp: prometheus.NewGauge(prometheus.GaugeOpts{Name: "callfleet_calls_up",
			Help: "Calls dialing or in conversation now."}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "callfleet_calls_total",
			Help: "Calls ended, by whether they connected."}, []string{"connected"}),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "callfleet_turns_total",
			Help: "Turns finished, by verdict (understood or failed) and failure reason (none when understood)."},
			[]string{"verdict", "reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "callfleet_latency_seconds",
			Help:    "Latencies as the report names them: connect and session_start per call, the rest per turn.",
			Buckets: []float64{.025, .05, .1, .25, .5, .75, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 7.5, 10, 15}},
			[]string{"metric"}),
		lateness: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "callfleet_send_lateness_p99_seconds",
			Help:    "Each turn's p99 send lateness of the caller's 20 ms frames (actual - scheduled); high means the generator fell behind.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .25, .5, 1}}),
		step: prometheus.NewGauge(prometheus.GaugeOpts{Name: "callfleet_step",
			Help: "The step started last, from 1 (0 before the first)."}),
		stepCalls: prometheus.NewGauge(prometheus.GaugeOpts{Name: "callfleet_step_calls",
			Help: "Calls this generator places in the step started last (a shard's share)."}),
		up: map[int]bool{},
	}
	m.reg.MustRegister(m.callsUp, m.calls, m.turns, m.latency, m.lateness, m.step, m.stepCalls)
	for _, v := range []string{"true", "false"} {
		m.calls.WithLabelValues(v) // every series exists from the first scrape, at 0
	}
	for _, mt := range checks.Metrics() {
		m.latency.WithLabelValues(mt.String())
	}
	return m
}

// Registry is the series' own registry.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handle counts one run event.
func (m *Metrics) Handle(e scenarios.Event) {
	switch e.Kind {
	case scenarios.EventStepStart:
		m.step.Set(float64(e.Step.Index + 1))
		m.stepCalls.Set(float64(e.Step.N))
	case scenarios.EventState:
		if e.State == callers.StateDone || e.State == callers.StateFailed {
			delete(m.up, e.CallN)
		} else {
			m.up[e.CallN] = true
		}
		m.callsUp.Set(float64(len(m.up)))
	case scenarios.EventCall:
		m.calls.WithLabelValues(fmt.Sprint(e.Call.Connected)).Inc()
		for _, mt := range checks.Metrics() {
			if v, ok := mt.OfCall(e.Call); ok {
				m.latency.WithLabelValues(mt.String()).Observe(seconds(v))
			}
		}
	case scenarios.EventTurn:
		v := checks.Turn(e.Turn)
		verdict := "failed"
		if v.Understood {
			verdict = "understood"
		}
		m.turns.WithLabelValues(verdict, v.Reason.String()).Inc()
		for _, mt := range checks.Metrics() {
			if x, ok := mt.OfTurn(e.Turn); ok {
				m.latency.WithLabelValues(mt.String()).Observe(seconds(x))
			}
		}
		m.lateness.Observe(seconds(e.Turn.LatenessP99))
	}
}

func seconds(v callers.Ms) float64 { return float64(v) / 1000 }

// Server serves the figures at /metrics until Close.
type Server struct {
	ln   net.Listener
	hs   *http.Server
	done chan error
}

// Serve listens on addr (host:port; port 0 picks a free one) and serves m at /metrics.
func (m *Metrics) Serve(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listen %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	s := &Server{ln: ln, hs: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, done: make(chan error, 1)}
	go func() { s.done <- s.hs.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, letting a scrape under way finish until ctx ends.
func (s *Server) Close(ctx context.Context) error {
	err := s.hs.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("metrics server %s: %w", s.Addr(), err)
	}
	return nil
}
