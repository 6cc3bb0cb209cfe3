package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/twilio"
	"github.com/callfleet/callfleet/callers/webrtc"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/runmetrics"
	"github.com/callfleet/callfleet/scenarios"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/tts"
)

func init() {
	register("run", "ramp steps of concurrent calls against an agent and find its capacity", cmdRun)
}

// runFlags are everything `run` takes; the YAML scenario file holds the same names.
type runFlags struct {
	Target       string        `yaml:"target"`
	Transport    string        `yaml:"transport"`
	Signaling    string        `yaml:"signaling"`
	TwiML        string        `yaml:"twiml"`
	EventsURL    string        `yaml:"events_url"`
	AuthToken    string        `yaml:"auth_token"`
	Steps        string        `yaml:"steps"`
	Duration     time.Duration `yaml:"step_duration"`
	Ramp         time.Duration `yaml:"ramp"`
	Warmup       time.Duration `yaml:"warmup"`
	Seed         uint64        `yaml:"seed"`
	Out          string        `yaml:"out"`
	PauseMin     time.Duration `yaml:"pause_min"`
	PauseMax     time.Duration `yaml:"pause_max"`
	Connect      time.Duration `yaml:"connect_timeout"`
	Answer       time.Duration `yaml:"answer_timeout"`
	Reply        time.Duration `yaml:"reply_timeout"`
	Jitter       time.Duration `yaml:"jitter_buffer"`
	Voice        string        `yaml:"voice"`
	Voices       string        `yaml:"voices"`
	Noise        string        `yaml:"noise"`
	SNR          float64       `yaml:"snr"`
	PoolSize     int           `yaml:"pool_size"`
	Scrape       string        `yaml:"scrape"`
	NoTUI        bool          `yaml:"no_tui"`
	UnderrunsMin float64       `yaml:"max_underruns_per_min"`
	P95Slack     time.Duration `yaml:"p95_slack"`
	Understood   float64       `yaml:"min_understood"`
	Lateness     time.Duration `yaml:"max_lateness_p99"`
	Metrics      string        `yaml:"metrics_listen"`
	// The callers' ears (ears.go).
	STTURL         string        `yaml:"stt_url"`
	STTAdapted     bool          `yaml:"stt_adapted"`
	STTModel       string        `yaml:"stt_model"`
	STTConcurrency int           `yaml:"stt_concurrency"`
	STTTimeout     time.Duration `yaml:"stt_timeout"`
	TolerateSlips  float64       `yaml:"tolerate_slips"`
	MaxDecodeWait  time.Duration `yaml:"max_decode_wait_p95"`
	Shard          string        `yaml:"shard"`
	StartAt        string        `yaml:"start_at"`

	stopped bool // set by the run: the user pressed q in the live view (demo skips the transports left)
}

func (rf *runFlags) register(fs *flag.FlagSet) {
	p := scenarios.DefaultPlan()
	th := checks.DefaultThresholds()
	fs.StringVar(&rf.Target, "target", "", "the agent: ws://host/twilio/ws (twilio) or http://host/api/offer (webrtc)")
	fs.StringVar(&rf.Transport, "transport", "webrtc", "webrtc or twilio")
	fs.StringVar(&rf.Signaling, "signaling", "smallwebrtc", "WebRTC signaling: smallwebrtc (pipecat POST /api/offer) or whip (RFC 9725)")
	fs.StringVar(&rf.TwiML, "twiml", "", "twilio: fetch this TwiML webhook first and dial the <Stream url> it returns")
	fs.StringVar(&rf.EventsURL, "events-url", "", "twilio: SSE of the agent's RTVI messages, {callSid} replaced (e.g. http://host/calls/{callSid}/events)")
	fs.StringVar(&rf.AuthToken, "auth-token", "", "twilio: sign the TwiML webhook with this auth token (X-Twilio-Signature)")
	fs.StringVar(&rf.Steps, "steps", "1,2,4,8", "concurrent calls per step, growing")
	fs.DurationVar(&rf.Duration, "step-duration", p.Duration, "measured time per step")
	fs.DurationVar(&rf.Ramp, "ramp", p.Ramp, "time over which a step's calls are opened")
	fs.DurationVar(&rf.Warmup, "warmup", p.Warmup, "time after the ramp before measuring")
	fs.Uint64Var(&rf.Seed, "seed", uint64(time.Now().UnixNano()%1e9), "random seed: the same seed says the same phrases")
	fs.StringVar(&rf.Out, "out", "", "results folder (default results/run-<time>)")
	fs.DurationVar(&rf.PauseMin, "pause-min", p.PauseMin, "shortest pause between the reply and the next phrase")
	fs.DurationVar(&rf.PauseMax, "pause-max", p.PauseMax, "longest pause between the reply and the next phrase")
	fs.DurationVar(&rf.Connect, "connect-timeout", p.Timeouts.Connect, "dial to media flowing")
	fs.DurationVar(&rf.Answer, "answer-timeout", p.Timeouts.Answer, "speech end to the reply's first audio")
	fs.DurationVar(&rf.Reply, "reply-timeout", p.Timeouts.Reply, "longest reply")
	fs.DurationVar(&rf.Jitter, "jitter-buffer", 40*time.Millisecond, "webrtc: the receiver's jitter buffer the caller models")
	fs.StringVar(&rf.Voice, "voice", speech.DefaultCallerVoice, "caller voice: "+strings.Join(tts.Names(), ", "))
	fs.StringVar(&rf.Voices, "voices", "", "folder of your own digit-word recordings (one WAV per word, e.g. seven.wav) to speak with instead")
	fs.StringVar(&rf.Noise, "noise", "", "WAV of background noise mixed into every phrase")
	fs.Float64Var(&rf.SNR, "snr", 20, "speech-to-noise ratio in dB for --noise")
	fs.IntVar(&rf.PoolSize, "pool-size", 128, "phrases rendered before the run")
	fs.StringVar(&rf.Scrape, "scrape", "", "the agent's Prometheus /metrics, for CPU and RSS per call (default: the target's /metrics if it serves one; none to skip)")
	fs.BoolVar(&rf.NoTUI, "no-tui", false, "plain progress lines instead of the live view")
	fs.Float64Var(&rf.UnderrunsMin, "max-underruns-per-min", th.UnderrunsPerMin, "step verdict: underruns per minute of agent audio")
	fs.DurationVar(&rf.P95Slack, "p95-slack", th.P95Slack, "step verdict: p95 speech_end_to_reply may exceed the first step's median by this")
	fs.Float64Var(&rf.Understood, "min-understood", th.MinUnderstood, "step verdict: fraction of turns understood")
	fs.DurationVar(&rf.Lateness, "max-lateness-p99", th.MaxLatenessP99, "generator health: send lateness p99 above this marks a step generator_bound")
	fs.Float64Var(&rf.TolerateSlips, "tolerate-slips", th.TolerateSlips, "step verdict: one-digit STT slips (one witness off by a digit, the others right) a step may\n"+
		"have per 1,000 judged turns and still pass; 0 counts them and fails the step")
	fs.DurationVar(&rf.MaxDecodeWait, "max-decode-wait", th.MaxDecodeWaitP95, "generator health: p95 wait of a reply for the callers' ears above this marks a step generator_bound (0: no bound)")
	rf.registerEars(fs)
	fs.StringVar(&rf.Metrics, "metrics-listen", "", "serve the run's live figures for Prometheus at http://ADDR/metrics while it runs (e.g. :9464)")
}

// registerShard adds the flags of a sharded run (run only: demo and probe run whole plans).
func (rf *runFlags) registerShard(fs *flag.FlagSet) {
	fs.StringVar(&rf.Shard, "shard", "", "run shard INDEX/COUNT of the plan, 0-based (e.g. $(JOB_COMPLETION_INDEX)/4): call k of\n"+
		"each step when k mod COUNT = INDEX, so the shards together place every step's N calls; needs --start-at")
	fs.StringVar(&rf.StartAt, "start-at", "", "RFC 3339 time common to every shard (e.g. 2026-05-01T12:00:00Z): wait for it, then start\n"+
		"step s at it + s×(ramp+warmup+step-duration), whether or not the step before has hung up;\n"+
		"without --seed the seed is taken from it, so every shard says the same phrases")
}

// loadScenario fills the settings from a YAML file (keys as in runFlags' yaml tags).
func (rf *runFlags) loadScenario(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	if err := yaml.UnmarshalWithOptions(data, rf, yaml.Strict()); err != nil {
		return fmt.Errorf("scenario %s: %w", path, err)
	}
	return nil
}

func (rf *runFlags) plan() (scenarios.Plan, checks.Thresholds, []error) {
	var errs []error
	steps, err := scenarios.ParseSteps(rf.Steps)
	if err != nil {
		errs = append(errs, err)
	}
	p := scenarios.Plan{Steps: steps, Duration: rf.Duration, Ramp: rf.Ramp, Warmup: rf.Warmup, Seed: rf.Seed,
		PauseMin: rf.PauseMin, PauseMax: rf.PauseMax,
		Timeouts: callers.Timeouts{Connect: rf.Connect, Answer: rf.Answer, Reply: rf.Reply}}
	errs = append(errs, p.Validate()...)
	th := checks.Thresholds{UnderrunsPerMin: rf.UnderrunsMin, P95Slack: rf.P95Slack, MinUnderstood: rf.Understood,
		MaxLatenessP99: rf.Lateness, MaxGeneratorCPU: checks.DefaultThresholds().MaxGeneratorCPU,
		TolerateSlips: rf.TolerateSlips, MaxDecodeWaitP95: rf.MaxDecodeWait}
	errs = append(errs, th.Validate()...)
	errs = append(errs, rf.earsErrors()...)
	if rf.Target == "" {
		errs = append(errs, errors.New("--target is required"))
	} else if u, err := url.Parse(rf.Target); err != nil || u.Host == "" {
		errs = append(errs, fmt.Errorf("--target %q: not a URL", rf.Target))
	}
	if rf.Transport != "webrtc" && rf.Transport != "twilio" {
		errs = append(errs, fmt.Errorf("--transport %q: want webrtc or twilio", rf.Transport))
	}
	if rf.PoolSize <= 0 {
		errs = append(errs, fmt.Errorf("--pool-size %d: must be positive", rf.PoolSize))
	}
	if rf.Metrics != "" {
		if _, _, err := net.SplitHostPort(rf.Metrics); err != nil {
			errs = append(errs, fmt.Errorf("--metrics-listen %q: want HOST:PORT or :PORT", rf.Metrics))
		}
	}
	return p, th, errs
}

// shard is this run's share of a sharded plan at now; nil without --shard and --start-at.
func (rf *runFlags) shard(p scenarios.Plan, now time.Time) (*scenarios.Shard, []error) {
	if rf.Shard == "" && rf.StartAt == "" {
		return nil, nil
	}
	sh := &scenarios.Shard{Index: 0, Count: 1}
	var errs []error
	if rf.Shard != "" {
		i, n, err := scenarios.ParseShard(rf.Shard)
		if err != nil {
			return nil, []error{fmt.Errorf("--shard: %w", err)}
		}
		sh.Index, sh.Count = i, n
	}
	if rf.StartAt == "" {
		if sh.Count > 1 {
			errs = append(errs, fmt.Errorf("--shard %s needs --start-at, the time every shard starts its first step", rf.Shard))
		}
	} else if at, err := time.Parse(time.RFC3339, rf.StartAt); err != nil {
		errs = append(errs, fmt.Errorf("--start-at %q: not an RFC 3339 time such as 2026-05-01T12:00:00Z", rf.StartAt))
	} else {
		sh.StartAt = at
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for _, err := range sh.Validate(p, now) {
		errs = append(errs, fmt.Errorf("--shard/--start-at: %w", err))
	}
	return sh, errs
}

// dialer builds the transport's dialer.
func (rf *runFlags) dialer() (callers.Dialer, error) {
	switch rf.Transport {
	case "twilio":
		return &twilio.Dialer{URL: rf.Target, TwiMLURL: rf.TwiML, AuthToken: rf.AuthToken, EventsURL: rf.EventsURL}, nil
	default:
		return webrtc.NewDialer(webrtc.Config{Signaling: rf.Signaling, URL: rf.Target, JitterBuffer: rf.Jitter})
	}
}

// buildPool renders the callers' phrases once, in the transport's encoded form.
func (rf *runFlags) buildPool(ctx context.Context, codec pool.Codec) (*pool.Pool, error) {
	var src pool.Source
	if rf.Voices != "" {
		r, err := pool.LoadRecordings(rf.Voices)
		if err != nil {
			return nil, err
		}
		src = r
	} else {
		v, err := tts.ByName(rf.Voice)
		if err != nil {
			return nil, fmt.Errorf("--voice: %w", err)
		}
		src = pool.VoiceSource{Voice: v}
	}
	opts := pool.Options{Size: rf.PoolSize, Seed: rf.Seed, Codecs: []pool.Codec{codec}, LeadIn: 100 * time.Millisecond}
	if rf.Noise != "" {
		clip, err := audio.ReadWAVFile(rf.Noise)
		if err != nil {
			return nil, fmt.Errorf("--noise: %w", err)
		}
		mono, err := clip.Mono()
		if err != nil {
			return nil, fmt.Errorf("--noise %s: %w", rf.Noise, err)
		}
		if opts.Noise, err = audio.ResampleChecked(mono, clip.Rate, pool.Rate); err != nil {
			return nil, fmt.Errorf("--noise %s: %w", rf.Noise, err)
		}
		opts.SNR = rf.SNR
	}
	return pool.Build(ctx, src, opts)
}

// defaultScrape guesses the agent's /metrics from the target.
func defaultScrape(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	}
	u.Path, u.RawQuery = "/metrics", ""
	return u.String()
}

func cmdRun(st *state, args []string) int {
	fs := st.newFlags("run", "--target URL [--transport webrtc|twilio] [--steps 1,2,4,8] [--step-duration 2m] [flags]\n\n"+
		"Opens steps of N concurrent calls, each speaking random counting phrases and checking every turn,\n"+
		"and writes DIR/turns.jsonl as turns finish and DIR/report.json at the end. Ctrl-C stops ramping,\n"+
		"hangs up and writes the report from what finished (exit 130); a second Ctrl-C quits at once. A run\n"+
		"that could not write a record (a full disk) stops the same way, exit 1. After a kill or crash,\n"+
		"`callfleet report DIR` rebuilds the report from turns.jsonl. On a terminal a live view shows the run\n"+
		"(q stops it the same way but exits 0, s ends the current step, ? lists the keys); --no-tui or a\n"+
		"redirected stdout prints plain progress lines instead.\n\n"+
		"Sharded: --shard INDEX/COUNT --start-at TIME on each of COUNT machines runs one plan together (a share\n"+
		"of every step's calls each, steps pinned to the common start); `callfleet merge` joins their reports.\n"+
		"A shard prints plain progress lines. --metrics-listen ADDR serves live figures for Prometheus.")
	scenario := fs.String("scenario", "", "YAML scenario file with the same settings as the flags (flags win)")
	var rf runFlags
	rf.register(fs)
	rf.registerShard(fs)
	randomSeed := rf.Seed // the time-based default, which shards would not agree on
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *scenario != "" {
		if err := rf.loadScenario(*scenario); err != nil {
			return st.fail(exitUsage, "run: %v", err)
		}
		fs.Parse(args) // flags on the command line win over the file
	}
	if at, err := time.Parse(time.RFC3339, rf.StartAt); err == nil && rf.Seed == randomSeed {
		rf.Seed = uint64(at.Unix()) % 1e9 // no seed given: every shard takes the same one from the start
	}
	return st.execute(&rf, rf.Target, "run")
}

// execute is a whole run: validate, render the pool, dial, write the report and the summary.
func (st *state) execute(rf *runFlags, target, name string) int {
	_, code := st.executeReport(rf, target, name)
	return code
}

func (st *state) executeReport(rf *runFlags, target, name string) (*report.Report, int) {
	plan, th, errs := rf.plan()
	shard, serrs := rf.shard(plan, time.Now())
	if errs = append(errs, serrs...); len(errs) > 0 {
		for _, err := range errs {
			fmt.Fprintf(st.stderr, "callfleet %s: %v\n", name, err)
		}
		return nil, exitUsage
	}
	if shard != nil {
		rf.NoTUI = true // the live view follows one step at a time, with contiguous calls; pinned steps overlap
	}
	var metrics *runmetrics.Metrics
	if rf.Metrics != "" {
		metrics = runmetrics.New()
		ms, err := metrics.Serve(rf.Metrics)
		if err != nil {
			return nil, st.fail(exitFailure, "%s: %v", name, err)
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := ms.Close(ctx); err != nil {
				fmt.Fprintf(st.stderr, "callfleet %s: %v\n", name, err)
			}
		}()
		fmt.Fprintf(st.stderr, "metrics: http://%s/metrics\n", ms.Addr())
	}
	d, err := rf.dialer()
	if err != nil {
		return nil, st.fail(exitUsage, "%s: %v", name, err)
	}
	if c, ok := d.(io.Closer); ok {
		defer c.Close()
	}
	fmt.Fprintf(st.stderr, "rendering %d phrases (%s)...\n", rf.PoolSize, rf.Voice)
	p, err := rf.buildPool(st.ctx, d.Codec())
	if err != nil {
		return nil, st.fail(exitFailure, "%s: %v", name, err)
	}
	ears, closeEars, err := rf.openEars(st.getenv, runtime.NumCPU()) // one decoder per core
	if err != nil {
		return nil, st.fail(exitFailure, "%s: %v", name, err)
	}
	defer closeEars()
	out := rf.Out
	if out == "" {
		out = filepath.Join("results", fmt.Sprintf("%s-%s", name, time.Now().Format("20060102-150405")))
	}
	scrape := rf.Scrape
	switch scrape {
	case "":
		scrape = defaultScrape(target)
	case "none":
		scrape = ""
	}
	spec := scenarios.Spec{Target: target, Dialer: d, Plan: plan, Thresholds: th,
		Pool: p, STT: ears, Out: out, Scrape: scrape, Shard: shard}
	if metrics != nil { // not a nil *Metrics in the interface, which would not be nil
		spec.Metrics = metrics
	}
	if shard != nil {
		fmt.Fprintf(st.stderr, "shard %s: step 1 starts at %s (in %v)\n", shard, shard.StartAt.Format(time.RFC3339),
			max(0, time.Until(shard.StartAt)).Round(time.Second))
	}
	r, stop, err := st.runSpec(rf, spec)
	rf.stopped = stop != viewNotStopped
	if r != nil {
		report.Text(st.stdout, r)
		fmt.Fprintf(st.stdout, "\nreport: %s\n", filepath.Join(out, report.FileName))
	}
	if err != nil {
		return r, st.fail(exitFailure, "%s: %v", name, err)
	}
	if st.ctx.Err() != nil || stop == viewInterrupted {
		return r, exitInterrupted
	}
	return r, exitOK // q in the live view is a normal stop
}

// progress prints plain lines: each step's start and end, and a line every few seconds.
type progress struct {
	w     io.Writer
	plan  scenarios.Plan
	step  scenarios.StepSchedule
	start time.Time
	last  time.Time
	up    map[int]bool
	ok    int
	fail  int
	e2r   []float64

	failedCalls int
}

func newProgress(w io.Writer, plan scenarios.Plan) *progress {
	return &progress{w: w, plan: plan, up: map[int]bool{}}
}

func (p *progress) Handle(e scenarios.Event) {
	switch e.Kind {
	case scenarios.EventStepStart:
		p.step, p.start, p.last, p.ok, p.fail, p.e2r = e.Step, e.At, e.At, 0, 0, nil
		if i := e.Step.Index; i < len(p.plan.Steps) && p.plan.Steps[i] != e.Step.N {
			fmt.Fprintf(p.w, "step %d of %d: %d of its %d calls (this shard's share)\n", i+1, len(p.plan.Steps), e.Step.N, p.plan.Steps[i])
		} else {
			fmt.Fprintf(p.w, "step %d of %d: %d calls\n", e.Step.Index+1, len(p.plan.Steps), e.Step.N)
		}
		if e.Step.Forecast != "" {
			fmt.Fprintf(p.w, "warning: %s\n", e.Step.Forecast)
		}
	case scenarios.EventState:
		switch e.State {
		case callers.StateDone, callers.StateFailed:
			delete(p.up, e.CallN)
		default:
			p.up[e.CallN] = true
		}
	case scenarios.EventTurn:
		if checks.Turn(e.Turn).Understood {
			p.ok++
		} else {
			p.fail++
		}
		if v, ok := checks.MetricSpeechEndToReply.OfTurn(e.Turn); ok {
			p.e2r = append(p.e2r, float64(v))
		}
	case scenarios.EventCall:
		if !e.Call.Connected && p.failedCalls < 5 { // say why calls fail, without flooding
			p.failedCalls++
			fmt.Fprintf(p.w, "call %d did not connect: %s\n", e.Call.Call, e.Call.Error)
		}
	case scenarios.EventStepEnd:
		ok, fail := 0, 0 // from the step's own records: a pinned step may end after the next began
		if e.Result != nil {
			for _, t := range e.Result.Turns {
				if checks.Turn(t).Understood {
					ok++
				} else {
					fail++
				}
			}
		}
		fmt.Fprintf(p.w, "step %d done: %d turns ok, %d failed\n", e.Step.Index+1, ok, fail)
		return
	}
	if e.At.Sub(p.last) >= 5*time.Second {
		p.last = e.At
		var figs []report.Figure
		if len(p.e2r) > 0 {
			figs = append(figs, report.Figure{Name: "speech_end_to_reply", Value: checks.Summarize(p.e2r).P95})
		}
		fmt.Fprintln(p.w, report.ProgressLine(p.step.Index+1, p.step.N, e.At.Sub(p.start), len(p.up), p.ok, p.fail, figs...))
	}
}
