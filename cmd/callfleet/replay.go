package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/scenarios"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/tts"
)

func init() {
	register("replay", "run one call of an earlier run again, over either transport, beside the original", cmdReplay)
}

func cmdReplay(st *state, args []string) int {
	fs := st.newFlags("replay", "DIR --call ID [--transport webrtc|twilio] [--target URL | --local] [flags]\n\n"+
		"Reads DIR/report.json and DIR/turns.jsonl, says the call's phrases again in order (split as they\n"+
		"were), each as long after the reply before it (or into it) as the first time, and prints its turns\n"+
		"beside the original's. ID is the call's index in the run or its id at the agent. Without --target,\n"+
		"the original target is dialled (for the other transport, the reference agent's paths on its host).")
	id := fs.String("call", "", "the call to replay: its call id, or its index in the run")
	step := fs.Int("step", -1, "with an index: the step (ramp step, or sweep setting) it was in; -1 for the first such call")
	local := fs.Bool("local", false, "replay against the bundled agent on loopback (its settings as --agent-* flags)")
	var rf runFlags
	fs.StringVar(&rf.Transport, "transport", "", "webrtc or twilio (default: the original's)")
	fs.StringVar(&rf.Target, "target", "", "the agent (default: the original's target)")
	fs.StringVar(&rf.Signaling, "signaling", "smallwebrtc", "WebRTC signaling: smallwebrtc or whip")
	fs.StringVar(&rf.EventsURL, "events-url", "", "twilio: SSE of the agent's RTVI messages, {callSid} replaced")
	fs.DurationVar(&rf.Jitter, "jitter-buffer", 40*time.Millisecond, "webrtc: the receiver's jitter buffer the caller models")
	fs.StringVar(&rf.Voice, "voice", "", "caller voice (default: the original's)")
	fs.StringVar(&rf.Voices, "voices", "", "folder of digit-word recordings, as the original run had")
	fs.StringVar(&rf.Noise, "noise", "", "WAV of background noise, as the original run had")
	fs.Float64Var(&rf.SNR, "snr", 20, "speech-to-noise ratio in dB for --noise")
	fs.StringVar(&rf.Out, "out", "", "also write the replay's turns.jsonl and traces.jsonl here")
	rf.registerEars(fs)
	var af agentFlags
	af.register(fs, "agent-")
	if code, ok := parse(fs, interleaved(fs, args)); !ok {
		return code
	}
	if fs.NArg() != 1 || *id == "" {
		fs.Usage()
		return exitUsage
	}
	dir := fs.Arg(0)
	orig, err := report.LoadScenarios(filepath.Join(dir, report.FileName))
	if err != nil {
		return st.fail(exitUsage, "replay: %v", err)
	}
	tp := filepath.Join(dir, report.TurnsFileName)
	recs, err := report.ReadRecords(tp)
	if err != nil {
		return st.fail(exitUsage, "replay: %v", err)
	}
	if note := recs.SkippedNote(); note != "" {
		st.fail(0, "replay: warning: %s: %s", tp, note)
	}
	turns, calls := recs.Turns, recs.Calls
	call, err := scenarios.FindCall(calls, *id, *step)
	if err != nil {
		return st.fail(exitUsage, "replay: %v", err)
	}
	before := scenarios.CallTurns(turns, call)
	script, err := scenarios.ReplayScript(call, before, callers.Timeouts{})
	if err != nil {
		return st.fail(exitUsage, "replay: %v", err)
	}
	if err := aimReplay(&rf, orig, *local); err != nil {
		return st.fail(exitUsage, "replay: %v", err)
	}
	again, code := st.replayCall(&rf, &af, *local, script)
	if code != exitOK {
		return code
	}
	fmt.Fprintf(st.stdout, "call %d (%s) of %s, over %s first and %s now, seed %d:\n",
		call.Call, orDash(call.CallID), dir, orig.Config.Transport, rf.Transport, call.Seed)
	if err := report.TextReplay(st.stdout, scenarios.ReplayRows(before, again.Turns())); err != nil {
		return st.fail(exitFailure, "replay: %v", err)
	}
	fmt.Fprintf(st.stdout, "understood: %d of %d first, %d of %d now; the replay ended by %s%s\n",
		checks.Understood(before), len(before), checks.Understood(again.Turns()), len(again.Said), again.EndedBy, prefixed(": ", again.Error))
	return exitOK
}

// aimReplay fills in the transport, target and voice the replay uses: the flags, else the
// original run's.
func aimReplay(rf *runFlags, orig *report.ScenarioReport, local bool) error {
	cfg := orig.Config
	if rf.Transport == "" {
		rf.Transport = cfg.Transport
	}
	if rf.Transport != "webrtc" && rf.Transport != "twilio" {
		return fmt.Errorf("--transport %q: want webrtc or twilio", rf.Transport)
	}
	if rf.Voice == "" {
		rf.Voice = speech.DefaultCallerVoice
		if _, err := tts.ByName(cfg.Extra["voice"]); err == nil {
			rf.Voice = cfg.Extra["voice"]
		}
	}
	if local || rf.Target != "" {
		return nil
	}
	if cfg.Target == "" {
		return errors.New("the original run names no target: give --target or --local")
	}
	target, events, err := swapTransport(cfg.Target, rf.Transport)
	if err != nil {
		return err
	}
	rf.Target = target
	if rf.EventsURL == "" {
		rf.EventsURL = cfg.Extra["events_url"]
		if rf.EventsURL == "" {
			rf.EventsURL = events
		}
	}
	return nil
}

// swapTransport points a target at the given transport on the same host, by the reference
// agent's paths (/twilio/ws, /api/offer, /calls/{callSid}/events); a target with other paths is
// kept as it is.
func swapTransport(target, transport string) (string, string, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("original target %q: not a URL", target)
	}
	secure := u.Scheme == "https" || u.Scheme == "wss"
	web := map[bool]string{false: "http", true: "https"}[secure]
	events := web + "://" + u.Host + "/calls/{callSid}/events"
	switch {
	case transport == "twilio" && strings.HasSuffix(u.Path, "/api/offer"):
		u.Scheme, u.Path = map[bool]string{false: "ws", true: "wss"}[secure], strings.TrimSuffix(u.Path, "/api/offer")+"/twilio/ws"
	case transport == "webrtc" && strings.HasSuffix(u.Path, "/twilio/ws"):
		u.Scheme, u.Path = web, strings.TrimSuffix(u.Path, "/twilio/ws")+"/api/offer"
	}
	return u.String(), events, nil
}

// replayCall places the call: against the bundled agent or the target, with a pool of the
// original's voice (the script's phrases are rendered as they are needed).
func (st *state) replayCall(rf *runFlags, af *agentFlags, local bool, script callers.Script) (callers.Trace, int) {
	codec := pool.CodecOpus
	if rf.Transport == "twilio" {
		codec = pool.CodecMulaw
	}
	rf.PoolSize, rf.Seed = 1, script.Seed
	pl, err := rf.buildPool(st.ctx, codec)
	if err != nil {
		return callers.Trace{}, st.fail(exitFailure, "replay: %v", err)
	}
	ears, closeEars, err := rf.openEars(st.getenv, 2)
	if err != nil {
		return callers.Trace{}, st.fail(exitFailure, "replay: %v", err)
	}
	defer closeEars()
	if local {
		la, err := startLocal(st, af)
		if err != nil {
			return callers.Trace{}, st.fail(exitFailure, "replay: %v", err)
		}
		defer la.stop()
		la.point(rf)
	}
	d, err := rf.dialer()
	if err != nil {
		return callers.Trace{}, st.fail(exitUsage, "replay: %v", err)
	}
	if c, ok := d.(io.Closer); ok {
		defer c.Close()
	}
	var rec *scenarios.Recorder
	if rf.Out != "" {
		if rec, err = scenarios.NewRecorder(rf.Out); err != nil {
			return callers.Trace{}, st.fail(exitFailure, "replay: %v", err)
		}
	}
	fmt.Fprintf(st.stderr, "replaying call %d (%d phrases) over %s to %s\n", script.Call, len(script.Cues), rf.Transport, rf.Target)
	tr := scenarios.RunScripts(st.ctx, d, pl, ears, []callers.Script{script}, 1, rec)[0]
	if rec != nil {
		if err := rec.Close(); err != nil {
			return tr, st.fail(exitFailure, "replay: %v", err)
		}
	}
	if st.ctx.Err() != nil {
		return tr, exitInterrupted
	}
	return tr, exitOK
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
