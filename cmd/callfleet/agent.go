package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	agent "github.com/callfleet/callfleet/agent-under-test"
	"github.com/callfleet/callfleet/agent-under-test/llm"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

func init() {
	register("agent", "run the reference voice agent (Twilio Media Streams and WebRTC)", cmdAgent)
}

// agentFlags are the reference agent's settings, shared by `agent`, `demo` and `probe --agent-sweep`.
type agentFlags struct {
	cfg     agent.Config
	llmKind string
	llmURL  string
	llmKey  string
	llmName string
}

// register adds the agent's flags, each name prefixed (demo uses "agent-" beside the run flags).
func (af *agentFlags) register(fs *flag.FlagSet, prefix string) {
	af.cfg = agent.DefaultConfig()
	p := &af.cfg.Pipeline
	fs.DurationVar(&p.Turn.MinSilence, prefix+"vad-min-silence", p.Turn.MinSilence, "silence that ends the caller's speech")
	fs.DurationVar(&p.Turn.GateHold, prefix+"stt-gate-hold", p.Turn.GateHold, "after the speech ends, speech resuming within this joins the same turn")
	fs.DurationVar(&p.IdlePrompt, prefix+"idle-prompt", p.IdlePrompt, "caller silence before \"are you still there?\" (0 disables the idle guard)")
	fs.DurationVar(&p.IdleHangup, prefix+"idle-hangup", p.IdleHangup, "further silence after the prompt before the agent hangs up")
	fs.StringVar(&p.Greeting, prefix+"greeting", "", "what the agent says when a call starts (empty: nothing)")
	fs.IntVar(&af.cfg.MaxCalls, prefix+"max-calls", af.cfg.MaxCalls, maxCallsUsage())
	fs.DurationVar(&af.cfg.MaxCallLength, prefix+"max-call-length", af.cfg.MaxCallLength, "hang up a call this long after it was answered, saying why (websocket close reason, RTVI error); 0 = no limit")
	fs.StringVar(&af.cfg.RecordDir, prefix+"record-dir", "", "write one stereo WAV per call here (caller left, agent right, 16 kHz); an existing file is never overwritten (CALLSID-1.wav, -2, ...)")
	fs.StringVar(&af.cfg.TwilioAuthToken, prefix+"twilio-auth-token", "", "validate X-Twilio-Signature on POST /twiml and on the GET /twilio/ws upgrade with this token")
	fs.StringVar(&af.cfg.PublicURL, prefix+"public-url", "", "base URL callers reach the agent at, for the TwiML <Stream url> (default: from the request)")
	fs.BoolVar(&p.Echo, prefix+"echo", false, "benchmark mode: answer each turn with the caller's own speech (no STT, LLM or TTS), so the agent costs next to nothing and a caller fleet's own cost can be measured")
	fs.StringVar(&af.cfg.Voice, prefix+"voice", speech.DefaultAgentVoice, "the agent's TTS voice")
	fs.StringVar(&af.llmKind, prefix+"llm", "repeat", "reply logic: repeat (say the digits heard) or openai (a chat completions endpoint)")
	fs.StringVar(&af.llmURL, prefix+"llm-url", "", "base URL of the OpenAI-compatible endpoint for --llm openai")
	fs.StringVar(&af.llmName, prefix+"llm-model", "gpt-4o-mini", "model name for --llm openai")
	fs.StringVar(&af.llmKey, prefix+"llm-key-env", "OPENAI_API_KEY", "environment variable holding the API key for --llm openai")
}

// maxCallsUsage states how the default live-call limit is derived, with this machine's figures.
func maxCallsUsage() string {
	return fmt.Sprintf("live-call limit; one more call is refused (HTTP 503 / websocket close 1013); 0 = no limit. "+
		"The default protects the process, not call quality (probe measures that): "+
		"min((RLIMIT_NOFILE - 64) / (interface addresses + 2), memory / 2 / 4 MiB), here from %s", agent.ProbeResources())
}

// build loads the shared stages and returns the agent.
func (af *agentFlags) build(st *state, log *slog.Logger) (*agent.Server, func(), error) {
	var l llm.LLM
	switch af.llmKind {
	case "repeat":
		l = llm.Repeat{}
	case "openai":
		if af.llmURL == "" {
			return nil, nil, errors.New("--llm openai needs --llm-url")
		}
		l = &llm.OpenAI{URL: af.llmURL, Model: af.llmName, APIKey: st.getenv(af.llmKey)}
	default:
		return nil, nil, fmt.Errorf("--llm %q: want repeat or openai", af.llmKind)
	}
	voice, err := tts.ByName(af.cfg.Voice)
	if err != nil {
		return nil, nil, fmt.Errorf("--voice: %w", err)
	}
	sc := stt.DefaultConfig()
	// One decoder per core: more in C at once only queue for CPU and hold Ps (see main).
	sc.MaxDecoders = runtime.NumCPU()
	model, err := stt.Load(sc)
	if err != nil {
		return nil, nil, err
	}
	srv, err := agent.New(af.cfg, model, l, voice, log)
	if err != nil {
		model.Close()
		return nil, nil, err
	}
	return srv, func() { model.Close() }, nil
}

func cmdAgent(st *state, args []string) int {
	fs := st.newFlags("agent", "[--listen 127.0.0.1:8080] [flags]\n\nRuns the reference agent until Ctrl-C or SIGTERM (then: no new calls, live calls end cleanly).")
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on")
	pprofAt := fs.String("pprof", "", "serve Go's /debug/pprof on this address (e.g. 127.0.0.1:6060), to see where the agent's CPU goes")
	var af agentFlags
	af.register(fs, "")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		return st.fail(exitUsage, "agent: unexpected argument %q", fs.Arg(0))
	}
	log := slog.New(slog.NewTextHandler(st.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv, closeAll, err := af.build(st, log)
	if err != nil {
		return st.fail(exitUsage, "agent: %v", err)
	}
	defer closeAll()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return st.fail(exitFailure, "agent: listen %s: %v", *listen, err)
	}
	if *pprofAt != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		ps := &http.Server{Addr: *pprofAt, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := ps.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Warn("pprof", "err", err)
			}
		}()
		defer ps.Close()
	}
	hs := srv.HTTPServer()
	fmt.Fprintf(st.stdout, "agent listening on http://%s (Twilio: ws://%s/twilio/ws, WebRTC: http://%s/api/offer)\n", ln.Addr(), ln.Addr(), ln.Addr())
	fmt.Fprintf(st.stdout, "live-call limit: %s, maximum call length: %s\n", limitText(srv.MaxCalls()), lengthText(af.cfg.MaxCallLength))
	if w := agent.ExposureWarning(ln.Addr(), af.cfg); w != "" {
		log.Warn(w)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	select {
	case err := <-serveErr:
		return st.fail(exitFailure, "agent: %v", err)
	case <-st.ctx.Done():
	}
	fmt.Fprintln(st.stderr, "agent: shutting down: refusing new calls, ending live ones")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("shutdown", "err", err)
	}
	hs.Shutdown(ctx)
	return exitOK
}

func limitText(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

func lengthText(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}
