package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/callfleet/callfleet/internal/safetext"
)

// Sample is what a scrape of the agent's /metrics says about the agent's process.
type Sample struct {
	At     time.Time
	CPU    float64 // process_cpu_seconds_total
	RSS    float64 // process_resident_memory_bytes
	Active float64 // agent_active_calls summed over transports (NaN-free: 0 when absent)
}

// MaxScrapeSize caps a /metrics body. An agent's exposition (Go runtime, process, a few
// histograms) is tens of KiB; one without end must not fill the generator's memory.
const MaxScrapeSize = 4 << 20

// scrapeTimeout bounds a scrape, body included.
const scrapeTimeout = 5 * time.Second

var (
	// ErrNoProcessMetrics means the target's metrics have no process collector series.
	ErrNoProcessMetrics = errors.New("no process_cpu_seconds_total / process_resident_memory_bytes")
	// ErrScrapeTooLarge means a /metrics body passed MaxScrapeSize.
	ErrScrapeTooLarge = fmt.Errorf("metrics body over %d bytes", MaxScrapeSize)
	// ErrScrapeStatus means /metrics answered something other than 200 OK.
	ErrScrapeStatus = errors.New("metrics answered an error status")
	// ErrScrapeParse means a /metrics body is not the Prometheus text exposition format.
	ErrScrapeParse = errors.New("metrics not in the text exposition format")
)

// Scrape reads the Prometheus text exposition at url (bounded by a 5 s timeout and
// MaxScrapeSize).
func Scrape(ctx context.Context, url string) (Sample, error) {
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
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
		return Sample{}, fmt.Errorf("scrape %s: %w: %s", url, ErrScrapeStatus, safetext.Clean(resp.Status, safetext.MaxText))
	}
	s, err := ParseSample(resp.Body)
	if err != nil {
		return Sample{}, fmt.Errorf("scrape %s: %w", url, err)
	}
	return s, nil
}

// ParseSample reads a Sample from a text exposition of at most MaxScrapeSize bytes.
func ParseSample(r io.Reader) (Sample, error) {
	lr := &capReader{r: r, left: MaxScrapeSize}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(lr)
	switch {
	case lr.over: // the parse error, if any, is the cut's consequence
		return Sample{}, ErrScrapeTooLarge
	case err != nil:
		// The parser quotes the body, which the agent wrote.
		return Sample{}, fmt.Errorf("%w: %w", ErrScrapeParse, safetext.Error(err))
	}
	s := Sample{At: time.Now()}
	cpu, okCPU := fams["process_cpu_seconds_total"]
	rss, okRSS := fams["process_resident_memory_bytes"]
	if !okCPU || !okRSS || len(cpu.Metric) == 0 || len(rss.Metric) == 0 {
		return Sample{}, ErrNoProcessMetrics
	}
	s.CPU = finite(cpu.Metric[0].GetCounter().GetValue())
	s.RSS = finite(rss.Metric[0].GetGauge().GetValue())
	if a, ok := fams["agent_active_calls"]; ok {
		for _, m := range a.Metric {
			s.Active += finite(m.GetGauge().GetValue())
		}
		s.Active = finite(s.Active) // a sum of huge values may overflow
	}
	return s, nil
}

// finite maps NaN and infinities, which the format allows, to 0: figures derived from a sample
// stay numbers.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// capReader reads at most left bytes and reports, with over, a body that had more.
type capReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte // is there more? one byte tells
		if n, _ := io.ReadFull(c.r, one[:]); n > 0 {
			c.over = true
			return 0, ErrScrapeTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
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
