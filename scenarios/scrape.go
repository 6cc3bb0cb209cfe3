package scenarios

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sample is what a scrape of the agent's /metrics says about the agent's process.
type Sample struct {
	At     time.Time
	CPU    float64 // process_cpu_seconds_total
	RSS    float64 // process_resident_memory_bytes
	Active float64 // agent_active_calls summed over transports (NaN-free: 0 when absent)
}

// ErrNoProcessMetrics means the target's metrics have no process collector series.
var ErrNoProcessMetrics = errors.New("no process_cpu_seconds_total / process_resident_memory_bytes")

// Scrape reads the Prometheus text exposition at url (bounded by a 5 s timeout).
func Scrape(ctx context.Context, url string) (Sample, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Sample{}, fmt.Errorf("scrape %s: %w", url, err)
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Sample{}, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Sample{}, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return Sample{}, fmt.Errorf("scrape %s: parse: %w", url, err)
	}
	s := Sample{At: time.Now()}
	cpu, okCPU := fams["process_cpu_seconds_total"]
	rss, okRSS := fams["process_resident_memory_bytes"]
	if !okCPU || !okRSS || len(cpu.Metric) == 0 || len(rss.Metric) == 0 {
		return Sample{}, fmt.Errorf("scrape %s: %w", url, ErrNoProcessMetrics)
	}
	s.CPU = cpu.Metric[0].GetCounter().GetValue()
	s.RSS = rss.Metric[0].GetGauge().GetValue()
	if a, ok := fams["agent_active_calls"]; ok {
		for _, m := range a.Metric {
			s.Active += m.GetGauge().GetValue()
		}
	}
	return s, nil
}

// AgentCost turns two scrapes around a measured window into thousandths of a core per
// conversation and MiB of RSS per call above the idle baseline.
func AgentCost(idle, from, to Sample, n int) (cpuMilli, rssMiBPerCall float64) {
	secs := to.At.Sub(from.At).Seconds()
	if n <= 0 || secs <= 0 {
		return 0, 0
	}
	cpuMilli = (to.CPU - from.CPU) / secs * 1000 / float64(n)
	rssMiBPerCall = (to.RSS - idle.RSS) / (1 << 20) / float64(n)
	return cpuMilli, rssMiBPerCall
}
