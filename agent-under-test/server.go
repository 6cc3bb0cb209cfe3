package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/callfleet/callfleet/agent-under-test/llm"
	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// Server is the reference agent as an http.Handler.
type Server struct {
	cfg  Config
	deps pipeline.Deps
	log  *slog.Logger
	m    *metrics
	hub  *hub
	mux  *http.ServeMux
	rtc  *rtcTransport

	ctx    context.Context // ends every call on Shutdown
	cancel context.CancelFunc

	mu        sync.Mutex
	live      int
	ids       map[string]struct{} // of the live calls
	setups    int                 // connections whose offer or start has not arrived
	maxSetups int
	closing   bool
	wg        sync.WaitGroup
	nextID    atomic.Int64

	reqLog requestLog
}

// New builds the agent; the STT model and the voice are shared by every call.
func New(cfg Config, model *stt.Model, l llm.LLM, voice tts.Voice, log *slog.Logger) (*Server, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("agent config: %w", errors.Join(errs...))
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, log: log, m: newMetrics(), mux: http.NewServeMux(), ids: map[string]struct{}{},
		maxSetups: setupLimit(cfg.MaxCalls)}
	// Subscriptions may wait for calls that have not started: as many as calls may be set up.
	s.hub = newHub(cfg.maxSubscribers(), s.maxSetups)
	s.m.limit.Set(float64(cfg.MaxCalls))
	s.deps = pipeline.Deps{STT: model, LLM: l, Voice: voice, Observer: observer{s.m}, Log: log}
	if text := cfg.Pipeline.IdleText; text != "" && cfg.Pipeline.IdlePrompt > 0 {
		pcm, err := voice.Synthesize(text)
		if err != nil {
			return nil, fmt.Errorf("render idle prompt: %w", err)
		}
		if voice.Rate() != pipeline.Rate {
			pcm = audio.Resample(pcm, voice.Rate(), pipeline.Rate)
		}
		s.deps.IdleAudio = pcm
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	rtc, err := newRTCTransport(s)
	if err != nil {
		return nil, err
	}
	s.rtc = rtc
	s.mux.HandleFunc("POST /twiml", s.handleTwiML)
	s.mux.HandleFunc("GET /twilio/ws", s.handleTwilio)
	s.mux.HandleFunc("POST /api/offer", s.rtc.handleOffer)
	s.mux.HandleFunc("GET /calls/{id}/events", s.handleEvents)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}))
	s.mux.HandleFunc("GET /{$}", s.handlePage)
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// startCall builds a call's pipeline with its events and recording. The returned stop func
// closes the recording and the events stream; call it once the transport is done with Push.
func (s *Server) startCall(id string, out pipeline.Output, extra func(rtvi.Message)) (*pipeline.Call, *callEvents, func(), error) {
	ev := &callEvents{id: id, hub: s.hub, extra: extra}
	var rec *recorder
	var prec pipeline.Recorder
	if s.cfg.RecordDir != "" {
		var err error
		if rec, err = newRecorder(s.cfg.RecordDir, id); err != nil {
			return nil, nil, nil, err
		}
		prec = rec
	}
	c, err := pipeline.New(id, s.cfg.Pipeline, s.deps, out, ev, prec)
	if err != nil {
		if rec != nil {
			rec.Close()
		}
		return nil, nil, nil, err
	}
	s.hub.open(id)
	stop := func() {
		c.Close()
		s.hub.close(id)
		if rec != nil {
			if err := rec.Close(); err != nil {
				s.log.Warn("recording", "call", id, "err", err)
			}
		}
	}
	return c, ev, stop, nil
}

// Shutdown refuses new calls, ends the live ones cleanly and waits for them (bounded by ctx).
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	var waitErr error
	select {
	case <-done:
	case <-ctx.Done():
		waitErr = fmt.Errorf("agent shutdown: %w", ctx.Err())
	}
	// Peer connections that outlived the grace are closed all the same.
	return errors.Join(waitErr, s.rtc.close())
}

// Live is the number of calls in progress.
func (s *Server) Live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live
}
