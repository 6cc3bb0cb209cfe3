package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/scenarios"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/tts"
	"github.com/callfleet/callfleet/tui"
)

func init() {
	register("probe", "scenarios beyond the ramp: pause-probe (end-of-turn), barge-in, idle guard", cmdProbe)
}

// sweepPauses are the pauses an --agent-sweep probes unless told: the bundled agent splits at
// about min silence + gate hold, so they straddle the usual settings' sums.
const sweepPauses = "900ms,1300ms,1700ms,2100ms,2500ms"

// probeFlags are `probe`'s settings; the transport and voice ones fill a runFlags, so dialing and
// the phrase pool work as in `run`.
type probeFlags struct {
	rf       runFlags
	af       agentFlags
	mode     string
	local    bool
	conv     int
	parallel int
	// pause
	pauses, sweep string
	turns         int
	pauseList     []time.Duration           // --pauses, parsed by check
	settings      []*scenarios.AgentSetting // --agent-sweep, parsed by check; one nil when not swept
	// barge-in
	offset    time.Duration
	interrupt string
	maxP95    time.Duration
	// idle
	expectPrompt, expectHangup, tolerance, promptLen time.Duration
}

func (pf *probeFlags) register(fs *flag.FlagSet) {
	rf, d := &pf.rf, scenarios.DefaultProbePlan()
	fs.StringVar(&pf.mode, "mode", "pause", "pause (end-of-turn pause-probe), bargein or idle")
	fs.StringVar(&pf.mode, "scenario", "pause", "an alias of --mode")
	fs.BoolVar(&pf.local, "local", false, "start the bundled agent on loopback (its settings as --agent-* flags) and probe it")
	fs.IntVar(&pf.conv, "conversations", d.Conversations, "calls per pause (pause) or in all (bargein, idle)")
	fs.IntVar(&pf.parallel, "parallel", 0, "calls at once (default: --conversations)")
	fs.StringVar(&pf.pauses, "pauses", "300ms,500ms,700ms,900ms", "pause: the pauses between the halves of each phrase (with --agent-sweep: "+sweepPauses+")")
	fs.IntVar(&pf.turns, "turns", d.Turns, "pause: turns per call")
	fs.StringVar(&pf.sweep, "agent-sweep", "", "pause: restart the bundled agent for each setting, \"min-silence=1300ms,1100ms;gate-hold=1000ms,400ms\" or \"1300/1000,1100/400\"")
	b := scenarios.DefaultBargeInPlan()
	fs.DurationVar(&pf.offset, "offset", b.Offset, "bargein: how far into the agent's reply the caller starts talking")
	fs.StringVar(&pf.interrupt, "interrupt", "", "bargein: the phrase said over the reply (default: drawn per call; one starting voiced, such as 8135, times the agent best)")
	fs.DurationVar(&pf.maxP95, "max-p95", b.MaxP95, "bargein verdict: p95 barge-in latency at most this")
	i := scenarios.DefaultIdlePlan()
	fs.DurationVar(&pf.expectPrompt, "expect-prompt", i.ExpectPrompt, "idle: the idle prompt expected this long after the reply (default with --local: --agent-idle-prompt)")
	fs.DurationVar(&pf.expectHangup, "expect-hangup", i.ExpectHangup, "idle: the hang-up expected this long after the prompt (default with --local: --agent-idle-hangup)")
	fs.DurationVar(&pf.tolerance, "tolerance", i.Tolerance, "idle verdict: each figure within this of the expected one")
	fs.DurationVar(&pf.promptLen, "prompt-length", i.PromptLength, "idle: the longest idle prompt, to bound the wait")
	fs.StringVar(&rf.Target, "target", "", "the agent: ws://host/twilio/ws (twilio) or http://host/api/offer (webrtc)")
	fs.StringVar(&rf.Transport, "transport", "webrtc", "webrtc or twilio")
	fs.StringVar(&rf.Signaling, "signaling", "smallwebrtc", "WebRTC signaling: smallwebrtc or whip")
	fs.StringVar(&rf.TwiML, "twiml", "", "twilio: fetch this TwiML webhook first and dial the <Stream url> it returns")
	fs.StringVar(&rf.EventsURL, "events-url", "", "twilio: SSE of the agent's RTVI messages, {callSid} replaced")
	fs.StringVar(&rf.AuthToken, "auth-token", "", "twilio: sign the TwiML webhook with this auth token")
	fs.Uint64Var(&rf.Seed, "seed", uint64(time.Now().UnixNano()%1e9), "random seed: the same seed says the same phrases")
	fs.StringVar(&rf.Out, "out", "", "results folder (default results/probe-<mode>-<time>)")
	fs.DurationVar(&rf.Connect, "connect-timeout", d.Timeouts.Connect, "dial to media flowing")
	fs.DurationVar(&rf.Answer, "answer-timeout", d.Timeouts.Answer, "speech end to the reply's first audio")
	fs.DurationVar(&rf.Reply, "reply-timeout", d.Timeouts.Reply, "longest reply")
	fs.DurationVar(&rf.Jitter, "jitter-buffer", 40*time.Millisecond, "webrtc: the receiver's jitter buffer the caller models")
	fs.StringVar(&rf.Voice, "voice", speech.DefaultCallerVoice, "caller voice: "+strings.Join(tts.Names(), ", "))
	fs.StringVar(&rf.Voices, "voices", "", "folder of your own digit-word recordings to speak with instead")
	fs.StringVar(&rf.Noise, "noise", "", "WAV of background noise mixed into every phrase")
	fs.Float64Var(&rf.SNR, "snr", 20, "speech-to-noise ratio in dB for --noise")
	fs.IntVar(&rf.PoolSize, "pool-size", 32, "phrases rendered before the run")
	fs.BoolVar(&rf.NoTUI, "no-tui", false, "plain progress lines instead of the live view on a terminal")
	rf.registerEars(fs)
	pf.af.register(fs, "agent-")
}

func (pf *probeFlags) timeouts() callers.Timeouts {
	return callers.Timeouts{Connect: pf.rf.Connect, Answer: pf.rf.Answer, Reply: pf.rf.Reply}
}

// check reports every flag problem at once.
func (pf *probeFlags) check(fs *flag.FlagSet) []error {
	var errs []error
	switch {
	case pf.mode != "pause" && pf.mode != "bargein" && pf.mode != "idle":
		errs = append(errs, fmt.Errorf("--mode %q: want pause, bargein or idle", pf.mode))
	case pf.sweep != "" && pf.mode != "pause":
		errs = append(errs, errors.New("--agent-sweep is for --mode pause"))
	}
	if pf.sweep != "" {
		pf.local = true
	}
	if pf.local == (pf.rf.Target != "") {
		errs = append(errs, errors.New("give --target URL, or --local (or --agent-sweep) for the bundled agent"))
	}
	if pf.rf.Transport != "webrtc" && pf.rf.Transport != "twilio" {
		errs = append(errs, fmt.Errorf("--transport %q: want webrtc or twilio", pf.rf.Transport))
	}
	if pf.sweep != "" && !flagSet(fs, "pauses") {
		pf.pauses = sweepPauses
	}
	if pf.local && !flagSet(fs, "expect-prompt") {
		pf.expectPrompt = pf.af.cfg.Pipeline.IdlePrompt
	}
	if pf.local && !flagSet(fs, "expect-hangup") {
		pf.expectHangup = pf.af.cfg.Pipeline.IdleHangup
	}
	if pf.mode == "pause" {
		errs = append(errs, pf.parsePause()...)
	}
	return errs
}

// parsePause reads --pauses and --agent-sweep.
func (pf *probeFlags) parsePause() []error {
	var errs []error
	var err error
	if pf.pauseList, err = scenarios.ParsePauses(pf.pauses); err != nil {
		errs = append(errs, fmt.Errorf("--pauses: %w", err))
	}
	pf.settings = []*scenarios.AgentSetting{nil}
	if pf.sweep == "" {
		return errs
	}
	base := scenarios.AgentSetting{MinSilence: pf.af.cfg.Pipeline.Turn.MinSilence, GateHold: pf.af.cfg.Pipeline.Turn.GateHold}
	list, err := scenarios.ParseSweep(pf.sweep, base)
	if err != nil {
		return append(errs, fmt.Errorf("--agent-sweep: %w", err))
	}
	pf.settings = pf.settings[:0]
	for i := range list {
		pf.settings = append(pf.settings, &list[i])
	}
	return errs
}

// view is what the live view shows of the probe: its pauses (and settings) as steps, or the
// barge-in or idle calls as one.
func (pf *probeFlags) view() tui.Probe {
	switch pf.mode {
	case "bargein":
		return tui.Probe{Mode: tui.ProbeBargeIn, Conversations: pf.conv, What: fmt.Sprintf("barge-in %s into the reply", pf.offset)}
	case "idle":
		return tui.Probe{Mode: tui.ProbeIdle, Conversations: pf.conv,
			What: fmt.Sprintf("idle: prompt expected %s after the reply, hang-up %s after it", pf.expectPrompt, pf.expectHangup)}
	}
	p := tui.Probe{Mode: tui.ProbePause, Pauses: pf.pauseList, Conversations: pf.conv}
	for _, s := range pf.settings {
		if s != nil {
			p.Settings = append(p.Settings, s.Name())
		}
	}
	return p
}

// target is the header's target: the bundled agent's address is known only once it starts.
func (pf *probeFlags) target() string {
	if pf.local {
		return "bundled agent on loopback"
	}
	return pf.rf.Target
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func cmdProbe(st *state, args []string) int {
	fs := st.newFlags("probe", "--mode pause|bargein|idle (--target URL | --local) [flags]\n\n"+
		"pause:   each turn says a phrase in two halves with an exact pause between them; per pause,\n"+
		"         how many of K turns the agent split, the shortest pause that splits and the wait from\n"+
		"         last speech to the final transcript. --agent-sweep restarts the bundled agent per setting\n"+
		"         and prints the seed's trade-off tables.\n"+
		"bargein: the caller talks --offset into the agent's reply; the latency to the agent stopping\n"+
		"         (audio stopped, or a Twilio clear) and whether the phrase said over it is the next turn.\n"+
		"idle:    the caller says one phrase, then nothing; when the idle prompt and the hang-up come.\n"+
		"Writes DIR/report.json (its section), DIR/turns.jsonl and (bargein, idle) DIR/traces.jsonl.")
	var pf probeFlags
	pf.register(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if errs := pf.check(fs); len(errs) > 0 {
		for _, err := range errs {
			fmt.Fprintf(st.stderr, "callfleet probe: %v\n", err)
		}
		return exitUsage
	}
	out := pf.rf.Out
	if out == "" {
		out = filepath.Join("results", fmt.Sprintf("probe-%s-%s", pf.mode, time.Now().Format("20060102-150405")))
	}
	codec := pool.CodecOpus
	if pf.rf.Transport == "twilio" {
		codec = pool.CodecMulaw
	}
	fmt.Fprintf(st.stderr, "rendering %d phrases (%s)...\n", pf.rf.PoolSize, pf.rf.Voice)
	pl, err := pf.rf.buildPool(st.ctx, codec)
	if err != nil {
		return st.fail(exitFailure, "probe: %v", err)
	}
	probe := pf.view()
	view, ctx := st.startView(pf.rf.NoTUI, tui.Config{Target: pf.target(), Transport: pf.rf.Transport, Seed: pf.rf.Seed, Probe: &probe})
	var outs []scenarios.Output
	say := io.Discard // the view owns the terminal: what it shows is not also printed
	if view == nil {
		outs, say = []scenarios.Output{&probeProgress{w: st.stderr, probe: probe}}, st.stderr
	} else {
		outs = []scenarios.Output{view.ui}
	}
	rec, err := scenarios.NewRecorder(out, outs...)
	if err != nil {
		if view != nil {
			view.finish(st)
		}
		return st.fail(exitFailure, "probe: %v", err)
	}
	started := time.Now()
	var sec report.Scenarios
	var ok bool
	switch pf.mode {
	case "pause":
		sec.Probe, err = pf.runPause(ctx, st, pl, rec, say)
		ok = err == nil
	case "bargein":
		sec.BargeIn, err = pf.runBargeIn(ctx, st, pl, rec)
		ok = err == nil && sec.BargeIn.Verdict.OK
	case "idle":
		sec.Idle, err = pf.runIdle(ctx, st, pl, rec)
		ok = err == nil && sec.Idle.Verdict.OK
	}
	if cerr := rec.Close(); err == nil {
		err = cerr
	}
	stop := viewNotStopped
	if view != nil {
		stop = view.finish(st) // after rec.Close: every event is in
	}
	if err != nil {
		return st.fail(exitFailure, "probe: %v", err)
	}
	r, err := scenarios.WriteReport(out, pf.runConfig(pl), sec, started)
	report.TextScenarios(st.stdout, r)
	fmt.Fprintf(st.stdout, "\nreport: %s\n", filepath.Join(out, report.FileName))
	switch {
	case err != nil:
		return st.fail(exitFailure, "probe: %v", err)
	case st.ctx.Err() != nil || stop == viewInterrupted:
		return exitInterrupted
	case !ok:
		return exitFailure // q in the view stops early; the verdict is of what finished
	}
	return exitOK
}

func (pf *probeFlags) runConfig(pl *pool.Pool) report.RunConfig {
	extra := map[string]string{"scenario": pf.mode, "voice": pl.Source(), "pool_size": fmt.Sprint(pl.Len()),
		"conversations": fmt.Sprint(pf.conv)}
	if pf.local {
		extra["agent"] = "bundled (loopback)"
	}
	if pf.mode == "pause" {
		extra["pauses"], extra["agent_sweep"] = pf.pauses, pf.sweep
	}
	if pf.rf.EventsURL != "" {
		extra["events_url"] = pf.rf.EventsURL
	}
	return report.RunConfig{Target: pf.rf.Target, Transport: pf.rf.Transport, Seed: pf.rf.Seed, Extra: extra}
}

// withAgent runs fn against the agent: the bundled one (started with the current --agent-*
// settings, and stopped after) or --target.
func (pf *probeFlags) withAgent(st *state, fn func(d callers.Dialer) error) error {
	if pf.local {
		la, err := startLocal(st, &pf.af)
		if err != nil {
			return err
		}
		defer la.stop()
		la.point(&pf.rf)
	}
	d, err := pf.rf.dialer()
	if err != nil {
		return err
	}
	if c, ok := d.(io.Closer); ok {
		defer c.Close()
	}
	return fn(d)
}

// runPause probes each pause against each agent setting, saying which setting is up on say.
func (pf *probeFlags) runPause(ctx context.Context, st *state, pl *pool.Pool, rec *scenarios.Recorder, say io.Writer) (*report.ProbeSection, error) {
	pauses, settings := pf.pauseList, pf.settings
	plan := scenarios.ProbePlan{Pauses: pauses, Conversations: pf.conv, Turns: pf.turns, Parallel: pf.parallel,
		Seed: pf.rf.Seed, Gap: time.Second, Timeouts: pf.timeouts()}
	if errs := plan.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	ears, closeEars, err := pf.transcriber(st) // each turn is judged as a ramp's: the reply transcribed too
	if err != nil {
		return nil, err
	}
	defer closeEars()
	sec := &report.ProbeSection{Conversations: pf.conv, TurnsPerCall: pf.turns}
	for _, d := range pauses {
		sec.Pauses = append(sec.Pauses, callers.D(d))
	}
	for i, set := range settings {
		if ctx.Err() != nil {
			break
		}
		if set != nil {
			pf.af.cfg.Pipeline.Turn.MinSilence, pf.af.cfg.Pipeline.Turn.GateHold = set.MinSilence, set.GateHold
			fmt.Fprintf(say, "agent setting %s (%d of %d)\n", set.Name(), i+1, len(settings))
		}
		plan.Step = i
		err := pf.withAgent(st, func(d callers.Dialer) error {
			s, _ := scenarios.RunProbe(ctx, scenarios.ProbeSpec{Setting: set, Dialer: d, Pool: pl, STT: ears, Plan: plan, Hooks: rec.Hooks()})
			sec.Settings = append(sec.Settings, s)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return sec, nil
}

func (pf *probeFlags) runBargeIn(ctx context.Context, st *state, pl *pool.Pool, rec *scenarios.Recorder) (*report.BargeInSection, error) {
	plan := scenarios.BargeInPlan{Conversations: pf.conv, Parallel: pf.parallel, Offset: pf.offset, Interrupt: pf.interrupt,
		MaxP95: pf.maxP95, Seed: pf.rf.Seed, Timeouts: pf.timeouts()}
	if errs := plan.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	ears, closeEars, err := pf.transcriber(st)
	if err != nil {
		return nil, err
	}
	defer closeEars()
	calls, err := scriptedCalls(ctx, pf, st, pl, ears, rec, scenarios.BargeInScripts(plan, pl), parallelOr(plan.Parallel, plan.Conversations), scenarios.BargeInOf)
	sec := scenarios.SummarizeBargeIn(plan, calls)
	return &sec, err
}

func (pf *probeFlags) runIdle(ctx context.Context, st *state, pl *pool.Pool, rec *scenarios.Recorder) (*report.IdleSection, error) {
	plan := scenarios.IdlePlan{Conversations: pf.conv, Parallel: pf.parallel, ExpectPrompt: pf.expectPrompt, ExpectHangup: pf.expectHangup,
		Tolerance: pf.tolerance, PromptLength: pf.promptLen, Seed: pf.rf.Seed, Timeouts: pf.timeouts()}
	if errs := plan.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	ears, closeEars, err := pf.transcriber(st)
	if err != nil {
		return nil, err
	}
	defer closeEars()
	calls, err := scriptedCalls(ctx, pf, st, pl, ears, rec, scenarios.IdleScripts(plan, pl), parallelOr(plan.Parallel, plan.Conversations), scenarios.IdleOf)
	sec := scenarios.SummarizeIdle(plan, calls)
	return &sec, err
}

// scriptedCalls places the scripted calls of a barge-in or idle run against the target (or the
// bundled agent) and reads each call's trace with of.
func scriptedCalls[T any](ctx context.Context, pf *probeFlags, st *state, pl *pool.Pool, ears listen.Ears, rec *scenarios.Recorder,
	scripts []callers.Script, parallel int, of func(callers.Trace) T) ([]T, error) {
	var calls []T
	err := pf.withAgent(st, func(d callers.Dialer) error {
		for _, tr := range scenarios.RunScripts(ctx, d, pl, ears, scripts, parallel, rec) {
			calls = append(calls, of(tr))
		}
		return nil
	})
	return calls, err
}

func parallelOr(p, n int) int {
	if p > 0 {
		return p
	}
	return n
}

// transcriber opens the callers' ears (--stt-url, or the built-in transcriber with few decoders
// so reply decodes never starve the callers' real-time loops).
func (pf *probeFlags) transcriber(st *state) (listen.Ears, func() error, error) {
	return pf.rf.openEars(st.getenv, 2)
}

// localAgent is the bundled agent serving on a free loopback port.
type localAgent struct {
	st    *state
	base  string
	addr  string
	stopF func()
}

// startLocal builds the agent from af and serves it on 127.0.0.1.
func startLocal(st *state, af *agentFlags) (*localAgent, error) {
	log := slog.New(slog.NewTextHandler(st.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, closeAgent, err := af.build(st, log)
	if err != nil {
		return nil, fmt.Errorf("bundled agent: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		closeAgent()
		return nil, fmt.Errorf("bundled agent: listen: %w", err)
	}
	hs := srv.HTTPServer() // the agent's own timeouts, as `callfleet agent` serves it
	go hs.Serve(ln)
	la := &localAgent{st: st, base: "http://" + ln.Addr().String(), addr: ln.Addr().String()}
	la.stopF = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		hs.Shutdown(ctx)
		closeAgent()
	}
	return la, nil
}

// point aims the run flags at the agent over their transport.
func (la *localAgent) point(rf *runFlags) {
	if rf.Transport == "twilio" {
		rf.Target, rf.EventsURL = "ws://"+la.addr+"/twilio/ws", la.base+"/calls/{callSid}/events"
		return
	}
	rf.Target = la.base + "/api/offer"
}

func (la *localAgent) stop() { la.stopF() }

// probeProgress prints plain lines: each step's start and end (a pause of a setting, or the
// barge-in or idle calls), and a line per finished turn and call.
type probeProgress struct {
	w     io.Writer
	probe tui.Probe
}

// stepName is "pause 700ms (2 of 4)", with the setting in a sweep; or the scenario.
func (p *probeProgress) stepName(s scenarios.StepSchedule) string {
	if p.probe.Mode != tui.ProbePause || len(p.probe.Pauses) == 0 {
		return p.probe.What
	}
	n := len(p.probe.Pauses)
	k := s.Index % n
	name := fmt.Sprintf("pause %s (%d of %d)", p.probe.Pauses[k], k+1, n)
	if set := s.Index / n; set < len(p.probe.Settings) {
		name += ", setting " + p.probe.Settings[set]
	}
	return name
}

func (p *probeProgress) Handle(e scenarios.Event) {
	switch e.Kind {
	case scenarios.EventStepStart:
		fmt.Fprintf(p.w, "%s: %d calls\n", p.stepName(e.Step), e.Step.N)
	case scenarios.EventStepEnd:
		r := e.Result
		if r == nil {
			return
		}
		if p.probe.Mode == tui.ProbePause {
			split, decided := 0, 0
			for _, t := range r.Turns {
				if n, _ := scenarios.TurnsHeard(t); n > 0 {
					decided++
					if n > 1 {
						split++
					}
				}
			}
			fmt.Fprintf(p.w, "%s done: %s\n", p.stepName(e.Step), scenarios.SplitVerdict(split, decided))
			return
		}
		fmt.Fprintf(p.w, "%s done: %d calls, %d of %d turns understood\n", p.stepName(e.Step), len(r.Calls),
			checks.Understood(r.Turns), len(r.Turns))
	case scenarios.EventTurn:
		t := e.Turn
		if t.Pause == nil {
			return
		}
		n, by := scenarios.TurnsHeard(t)
		fmt.Fprintf(p.w, "call %d, %s pause: heard as %d turn(s) (by %s)\n", t.Call, msString(*t.Pause), n, strings.ReplaceAll(by, "_", " "))
	case scenarios.EventCall:
		c := e.Call
		fmt.Fprintf(p.w, "call %d done: %d turn(s), ended by %s%s\n", c.Call, c.Turns, c.EndedBy, prefixed(": ", c.Error))
	}
}

func msString(m callers.Ms) string { return m.Duration().Round(time.Millisecond).String() }

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}
