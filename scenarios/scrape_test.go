package scenarios

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
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
