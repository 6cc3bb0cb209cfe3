package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/callfleet/callfleet/report"
)

// startAgent runs `callfleet agent` on a free loopback port and returns its address; the agent
// stops (SIGTERM, as an operator would) when the test ends.
func startAgent(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(bin, "agent", "--listen", "127.0.0.1:0")
	out := &lineWriter{line: make(chan string, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	select {
	case line := <-out.line:
		// "agent listening on http://127.0.0.1:PORT (Twilio: ...)"
		if f := strings.Fields(line); len(f) > 3 && strings.HasPrefix(f[3], "http://") {
			return strings.TrimPrefix(f[3], "http://")
		}
		t.Fatalf("agent said %q", line)
	case <-time.After(30 * time.Second):
		t.Fatal("agent: no address within 30 s")
	}
	return ""
}

// lineWriter hands on the first line written to it and drops the rest.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	line chan string
	sent bool
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.sent {
		w.buf = append(w.buf, b...)
		if i := bytes.IndexByte(w.buf, '\n'); i >= 0 {
			w.line <- string(w.buf[:i])
			w.sent, w.buf = true, nil
		}
	}
	return len(b), nil
}

// freeAddr is a loopback address nothing listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// started is a callfleet process running beside the test.
type started struct {
	cmd      *exec.Cmd
	out, err bytes.Buffer
}

func start(t *testing.T, ctx context.Context, args ...string) *started {
	t.Helper()
	p := &started{cmd: exec.CommandContext(ctx, bin, args...)}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *started) wait(t *testing.T, name string) {
	t.Helper()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, p.err.String())
	}
}

// Two shards as two processes, merged, against one process running the same plan at the same
// time: the counts and verdicts are the same, call by call, phrase by phrase.
func TestShardedRunMergesToASingleRun(t *testing.T) {
	agentAddr := startAgent(t)
	dir := t.TempDir()
	// Three seconds a step is less than one turn (phrase, the agent's end-of-turn silence, reply):
	// every call says exactly one phrase, inside its step's window, however the machine is loaded.
	common := []string{"run", "--transport", "twilio", "--target", "ws://" + agentAddr + "/twilio/ws",
		"--events-url", "http://" + agentAddr + "/calls/{callSid}/events",
		"--steps", "1,2", "--step-duration", "3s", "--ramp", "0s", "--warmup", "0s", "--seed", "11",
		"--pool-size", "8", "--scrape", "none", "--no-tui",
		// Three generators share this machine's two cores: lenient limits keep the verdicts about
		// the agent, so both sides judge the same records the same way.
		"--max-lateness-p99", "1s", "--max-underruns-per-min", "1000", "--p95-slack", "3s"}
	arg := func(extra ...string) []string { return append(append([]string{}, common...), extra...) }
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	metricsAddr := freeAddr(t)
	// Every shard has rendered its phrases well before this; a late shard would still keep the steps.
	startAt := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	single := start(t, ctx, arg("--out", filepath.Join(dir, "single"), "--metrics-listen", metricsAddr)...)
	shards := []*started{
		start(t, ctx, arg("--out", filepath.Join(dir, "shard-0"), "--shard", "0/2", "--start-at", startAt)...),
		start(t, ctx, arg("--out", filepath.Join(dir, "shard-1"), "--shard", "1/2", "--start-at", startAt)...),
	}
	seen := watchMetrics(ctx, "http://"+metricsAddr+"/metrics")
	single.wait(t, "single run")
	scraped := seen()
	for i, s := range shards {
		s.wait(t, fmt.Sprintf("shard %d", i))
	}

	if _, stderr, code := callfleet(t, "merge", filepath.Join(dir, "shard-0", "report.json"), "-o", filepath.Join(dir, "half.json")); code != 2 || !strings.Contains(stderr, "missing shard 1/2") {
		t.Errorf("merge of one shard of two: exit %d, %q", code, stderr)
	}
	merged := filepath.Join(dir, "merged.json")
	if _, stderr, code := callfleet(t, "merge", filepath.Join(dir, "shard-1", "report.json"), filepath.Join(dir, "shard-0", "report.json"), "-o", merged); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	want := loadRun(t, filepath.Join(dir, "single", "report.json"))
	got := loadRun(t, merged)

	// The shards ran their share, pinned to the one start.
	at, _ := time.Parse(time.RFC3339Nano, startAt)
	for i, wantN := range [][]int{{1, 1}, {0, 1}} {
		r := loadRun(t, filepath.Join(dir, fmt.Sprintf("shard-%d", i), "report.json")).Report
		if r.Config.Extra[report.ExtraShard] != fmt.Sprintf("%d/2", i) || r.Config.Extra[report.ExtraStartAt] != startAt {
			t.Errorf("shard %d config extra %v", i, r.Config.Extra)
		}
		for s, st := range r.Steps {
			if st.N != wantN[s] || !st.Start.Equal(at.Add(time.Duration(s)*3*time.Second)) {
				t.Errorf("shard %d step %d: N %d window from %v, want %d from start-at + %d×3s", i, s+1, st.N, st.Start, wantN[s], s)
			}
		}
	}

	if !reflect.DeepEqual(got.Report.Config.Steps, want.Report.Config.Steps) || got.Report.Config.Seed != want.Report.Config.Seed {
		t.Errorf("merged plan %v seed %d, single %v seed %d", got.Report.Config.Steps, got.Report.Config.Seed,
			want.Report.Config.Steps, want.Report.Config.Seed)
	}
	if len(got.Report.Steps) != 2 || len(want.Report.Steps) != 2 {
		t.Fatalf("%d merged steps, %d single", len(got.Report.Steps), len(want.Report.Steps))
	}
	for i := range want.Report.Steps {
		g, w := got.Report.Steps[i], want.Report.Steps[i]
		if g.Index != w.Index || g.N != w.N || g.Calls != w.Calls || g.Connected != w.Connected || g.Answered != w.Answered ||
			g.Clean != w.Clean || g.Turns != w.Turns || !maps.Equal(g.Failures, w.Failures) ||
			g.Verdict.OK != w.Verdict.OK || g.Verdict.GeneratorBound != w.Verdict.GeneratorBound {
			t.Errorf("step %d:\nmerged %+v\nsingle %+v", i+1, g, w)
		}
		if w.Turns.Total != w.Calls {
			t.Errorf("step %d: %d turns of %d calls: the plan is one phrase a call", i+1, w.Turns.Total, w.Calls)
		}
	}
	if got.Report.Capacity.N != want.Report.Capacity.N || got.Report.Capacity.Bound != want.Report.Capacity.Bound {
		t.Errorf("capacity merged %+v, single %+v", got.Report.Capacity, want.Report.Capacity)
	}
	// Call by call: the same numbers, steps (0-based) and phrases (speech.ForCall of the seed).
	if a, b := callSummary(got), callSummary(want); !reflect.DeepEqual(a, b) {
		t.Errorf("calls merged %v\nsingle %v", a, b)
	}

	// --metrics-listen served the single run's figures while it ran.
	for _, name := range []string{"callfleet_calls_up", "callfleet_calls_total", "callfleet_turns_total",
		"callfleet_latency_seconds", "callfleet_send_lateness_p99_seconds", "callfleet_step"} {
		if !scraped.names[name] {
			t.Errorf("--metrics-listen: no %s in any scrape", name)
		}
	}
	if total := want.Report.Steps[0].Turns.Total + want.Report.Steps[1].Turns.Total; scraped.turns < 1 || scraped.turns > float64(total) {
		t.Errorf("--metrics-listen: %v turns counted at most, the report has %d", scraped.turns, total)
	}
}

func loadRun(t *testing.T, path string) *report.Run {
	t.Helper()
	r, err := report.LoadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// callSummary is each call's step and phrases, by call number.
func callSummary(run *report.Run) map[int]string {
	out := map[int]string{}
	for _, c := range run.Calls {
		out[c.Call] += fmt.Sprintf("step %d connected %v:", c.Step, c.Connected)
	}
	for _, tr := range run.Turns {
		out[tr.Call] += " " + tr.Phrase
	}
	return out
}

// scrapes is what scraping a run's --metrics-listen saw.
type scrapes struct {
	names map[string]bool // series present
	turns float64         // the most callfleet_turns_total summed over labels
}

// watchMetrics scrapes url every 200 ms until the returned function is called (once the run has
// exited), which returns what the scrapes saw.
func watchMetrics(ctx context.Context, url string) func() scrapes {
	var mu sync.Mutex
	got := scrapes{names: map[string]bool{}}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			scrapeOnce(ctx, url, &mu, &got)
			select {
			case <-time.After(200 * time.Millisecond):
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() scrapes {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

func scrapeOnce(ctx context.Context, url string, mu *sync.Mutex, got *scrapes) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return // not up yet, or gone
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	turns := 0.0
	for name, f := range fams {
		got.names[name] = true
		if name == "callfleet_turns_total" {
			for _, m := range f.GetMetric() {
				turns += m.GetCounter().GetValue()
			}
		}
	}
	got.turns = max(got.turns, turns)
}

func TestShardFlagErrors(t *testing.T) {
	ahead := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	long := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	run := []string{"run", "--target", "ws://127.0.0.1:1/twilio/ws", "--transport", "twilio", "--step-duration", "10s", "--ramp", "0s", "--warmup", "0s"}
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"--shard", "2/2", "--start-at", ahead}, "index must be in [0, 2)"},
		{[]string{"--shard", "0/0", "--start-at", ahead}, "count must be at least 1"},
		{[]string{"--shard", "one/2", "--start-at", ahead}, "want INDEX/COUNT"},
		{[]string{"--shard", "1/2"}, "--shard 1/2 needs --start-at"},
		{[]string{"--shard", "1/2", "--start-at", "tomorrow"}, `--start-at "tomorrow": not an RFC 3339 time`},
		{[]string{"--shard", "1/2", "--start-at", long}, "more than a step (10s)"},
		{[]string{"--metrics-listen", "9464"}, "--metrics-listen"},
	}
	for _, c := range cases {
		_, stderr, code := callfleet(t, append(append([]string{}, run...), c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.err) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.err)
		}
	}
}
