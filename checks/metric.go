package checks

import (
	"math"

	"github.com/callfleet/callfleet/callers"
	"github.com/montanaflynn/stats"
)

// Metric names one latency, the same name in every report, table and flag.
type Metric int

const (
	MetricUnknown               Metric = iota
	MetricConnect                      // dial -> media flowing (per call)
	MetricSessionStart                 // dial -> agent ready (per call)
	MetricSpeechEndToTranscript        // speech_end -> transcript
	MetricTranscriptServer             // speech_start -> transcript
	MetricReplyStart                   // transcript -> first agent audio
	MetricSpeechEndToReply             // speech_end -> first agent audio
	metricEnd
)

var metricNames = []string{
	"unknown", "connect", "session_start", "speech_end_to_transcript", "transcript_server",
	"reply_start", "speech_end_to_reply",
}

func (m Metric) String() string { return name(metricNames, int(m)) }

// ParseMetric parses the String form of a Metric.
func ParseMetric(s string) (Metric, error) {
	i, err := parse(metricNames, "metric", s)
	return Metric(i), err
}

// MarshalText writes the name.
func (m Metric) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the name.
func (m *Metric) UnmarshalText(b []byte) error {
	v, err := ParseMetric(string(b))
	*m = v
	return err
}

// Metrics lists every metric in report order: the call's, then the turn's.
func Metrics() []Metric {
	out := make([]Metric, 0, metricEnd-MetricConnect)
	for m := MetricConnect; m < metricEnd; m++ {
		out = append(out, m)
	}
	return out
}

// PerCall reports whether m is measured once per call rather than per turn.
func (m Metric) PerCall() bool { return m == MetricConnect || m == MetricSessionStart }

// OfTurn returns a turn's value of m; false when a mark is missing or m is per call.
func (m Metric) OfTurn(t callers.Turn) (callers.Ms, bool) {
	k := t.Marks
	switch m {
	case MetricSpeechEndToTranscript:
		return diff(k.Transcript, k.SpeechEnd)
	case MetricTranscriptServer:
		return diff(k.Transcript, k.SpeechStart)
	case MetricReplyStart:
		return diff(k.ReplyStart, k.Transcript)
	case MetricSpeechEndToReply:
		return diff(k.ReplyStart, k.SpeechEnd)
	}
	return 0, false
}

// OfCall returns a call's value of m; false when it did not happen or m is per turn.
func (m Metric) OfCall(c callers.CallResult) (callers.Ms, bool) {
	var v *callers.Ms
	switch m {
	case MetricConnect:
		v = c.Connect
	case MetricSessionStart:
		v = c.SessionStart
	}
	if v == nil {
		return 0, false
	}
	return *v, true
}

func diff(later, earlier *callers.Ms) (callers.Ms, bool) {
	if later == nil || earlier == nil {
		return 0, false
	}
	return *later - *earlier, true
}

// Samples collects m over turns (or over calls, for a per-call metric), in milliseconds.
func Samples(m Metric, turns []callers.Turn, calls []callers.CallResult) []float64 {
	var xs []float64
	if m.PerCall() {
		for _, c := range calls {
			if v, ok := m.OfCall(c); ok {
				xs = append(xs, float64(v))
			}
		}
		return xs
	}
	for _, t := range turns {
		if v, ok := m.OfTurn(t); ok {
			xs = append(xs, float64(v))
		}
	}
	return xs
}

// Summary is a distribution in milliseconds; all zero when N is 0.
type Summary struct {
	N   int        `json:"n"`
	P50 callers.Ms `json:"p50"`
	P95 callers.Ms `json:"p95"`
	P99 callers.Ms `json:"p99"`
	Max callers.Ms `json:"max"`
}

// Summarize computes n, p50, p95, p99 and max of xs (ms).
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	return Summary{
		N:   len(xs),
		P50: percentile(xs, 50),
		P95: percentile(xs, 95),
		P99: percentile(xs, 99),
		Max: percentile(xs, 100),
	}
}

// percentile is stats.Percentile (linear interpolation, type 7) rounded to the microsecond, so
// reports do not change in the last digit between architectures.
func percentile(xs []float64, p float64) callers.Ms {
	v, err := stats.Percentile(xs, p)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0 // only on empty input or a NaN sample, which JSON records cannot hold
	}
	return callers.Ms(math.Round(v*1000) / 1000)
}
