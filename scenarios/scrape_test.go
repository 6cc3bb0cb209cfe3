package scenarios

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func TestScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	active := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "agent_active_calls"}, []string{"transport"})
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), active)
	active.WithLabelValues("twilio").Set(2)
	active.WithLabelValues("webrtc").Set(3)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	s, err := Scrape(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if s.RSS <= 0 || s.CPU < 0 || s.Active != 5 {
		t.Fatalf("sample %+v", s)
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("up 1\n")) }))
	defer empty.Close()
	if _, err := Scrape(context.Background(), empty.URL); !errors.Is(err, ErrNoProcessMetrics) {
		t.Fatalf("no process metrics: %v", err)
	}
}

func TestAgentCost(t *testing.T) {
	t0 := time.Unix(100, 0)
	idle := Sample{At: t0, CPU: 1, RSS: 100 << 20}
	from := Sample{At: t0.Add(10 * time.Second), CPU: 2, RSS: 120 << 20}
	to := Sample{At: t0.Add(30 * time.Second), CPU: 3, RSS: 140 << 20}
	cpu, rss := AgentCost(idle, from, to, 4)
	if cpu != 12.5 || rss != 10 {
		t.Fatalf("cpu %v m/conv, rss %v MiB/call; want 12.5, 10", cpu, rss)
	}
}

// TestScrapeHostile scrapes loopback servers whose /metrics misbehave: each scrape fails with
// its named error, in printable text, within its deadline.
func TestScrapeHostile(t *testing.T) {
	good := "process_cpu_seconds_total 1\nprocess_resident_memory_bytes 2\n"
	cases := []struct {
		name string
		h    func(w http.ResponseWriter, release <-chan struct{})
		want error
	}{
		{"body past the cap", func(w http.ResponseWriter, _ <-chan struct{}) {
			w.Write([]byte(good))
			line := []byte("# " + strings.Repeat("x", 1<<16) + "\n")
			for n := 0; n <= MaxScrapeSize; n += len(line) {
				if _, err := w.Write(line); err != nil {
					return
				}
			}
		}, ErrScrapeTooLarge},
		{"error status with escapes", func(w http.ResponseWriter, _ <-chan struct{}) {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("\x1b[2J"))
		}, ErrScrapeStatus},
		{"escapes in a metric name", func(w http.ResponseWriter, _ <-chan struct{}) {
			w.Write([]byte("\x1b]0;owned\x07\x1b[31mred 1\n" + good))
		}, ErrScrapeParse},
		{"never ends the body", func(w http.ResponseWriter, release <-chan struct{}) {
			w.Write([]byte(good))
			w.(http.Flusher).Flush()
			<-release
		}, context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tc.h(w, release) }))
			defer srv.Close()
			defer close(release)  // before srv.Close
			wait := scrapeTimeout // parsing 4 MiB takes a while under -race on a busy machine
			if tc.want == context.DeadlineExceeded {
				wait = 500 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			start := time.Now()
			_, err := Scrape(ctx, srv.URL)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
				t.Errorf("control characters in %q", err)
			}
			if took := time.Since(start); took > wait+time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

func TestParseSampleAtTheCap(t *testing.T) {
	body := "process_cpu_seconds_total 1\nprocess_resident_memory_bytes 2\n"
	body += strings.Repeat("#", MaxScrapeSize-len(body)-1) + "\n"
	if _, err := ParseSample(strings.NewReader(body)); err != nil {
		t.Fatalf("a body of exactly MaxScrapeSize: %v", err)
	}
	if _, err := ParseSample(strings.NewReader(body + "#")); !errors.Is(err, ErrScrapeTooLarge) {
		t.Fatalf("one byte more: %v", err)
	}
}

// FuzzParseSample checks that the /metrics parser never panics and only returns finite figures.
func FuzzParseSample(f *testing.F) {
	f.Add("process_cpu_seconds_total 1.5\nprocess_resident_memory_bytes 2e6\nagent_active_calls{transport=\"twilio\"} 3\n")
	f.Add("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total NaN\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes +Inf\n")
	f.Add("# TYPE agent_active_calls histogram\nagent_active_calls_bucket{le=\"+Inf\"} 1\nprocess_cpu_seconds_total 1\nprocess_resident_memory_bytes 1\n")
	f.Add("{\"process_cpu_seconds_total\"} 1 1700000000000\n\x1b[2J 1\n")
	f.Fuzz(func(t *testing.T, body string) {
		s, err := ParseSample(strings.NewReader(body))
		if err != nil {
			if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
				t.Fatalf("control characters in %q", err)
			}
			return
		}
		for _, v := range []float64{s.CPU, s.RSS, s.Active} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("sample %+v from %q", s, body)
			}
		}
	})
}
