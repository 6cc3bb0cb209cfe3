package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// Twilio Media Streams timing: a caller that sends nothing this long is gone.
const (
	twilioReadTimeout  = 30 * time.Second
	twilioWriteTimeout = 5 * time.Second
	twilioStartTimeout = 10 * time.Second
)

var upgrader = websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096,
	CheckOrigin: func(*http.Request) bool { return true }}

// handleTwiML answers Twilio's voice webhook with a <Connect><Stream> to this agent's websocket,
// checking X-Twilio-Signature when an auth token is set (Twilio "Webhooks security").
func (s *Server) handleTwiML(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		s.badInput("twiml", err)
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	base := s.baseURL(r)
	if s.cfg.TwilioAuthToken != "" {
		full := base + r.URL.RequestURI()
		if !tw.ValidSignature(s.cfg.TwilioAuthToken, full, r.PostForm, r.Header.Get(tw.SignatureHeader)) {
			s.badInput("twiml", errors.New("bad signature"))
			http.Error(w, "invalid signature", http.StatusForbidden)
			return
		}
	}
	ws := "ws" + strings.TrimPrefix(base, "http") + "/twilio/ws"
	params := map[string]string{}
	if v := r.PostForm.Get("CallSid"); v != "" {
		params["CallSid"] = v
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Write(tw.StreamTwiML(ws, params))
}

func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimSuffix(s.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// handleTwilio runs one Media Streams call: Twilio's messages in, media/mark/clear out.
func (s *Server) handleTwilio(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		s.badInput("twilio", err)
		return // the upgrader has answered
	}
	defer ws.Close()
	release, err := s.admit("twilio")
	if err != nil {
		// RFC 6455 §7.4.1 1013 "Try Again Later": the clear refusal past --max-calls.
		msg := websocket.FormatCloseMessage(websocket.CloseTryAgainLater, err.Error())
		ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		return
	}
	defer release()
	ws.SetReadLimit(s.cfg.MaxMessage)
	tc := &twilioCall{s: s, ws: ws}
	if err := tc.run(); err != nil {
		s.log.Info("twilio call ended", "call", tc.callSid, "err", err)
	}
}

type twilioCall struct {
	s         *Server
	ws        *websocket.Conn
	callSid   string
	streamSid string

	wmu  sync.Mutex
	wbuf []byte
	down *audio.Resampler // 16 kHz agent audio -> 8 kHz
	mu   []byte

	ending atomic.Bool // the agent is ending the call: the read deadline no longer moves
}

var _ pipeline.Leader = (*twilioCall)(nil)

// twilioLead is how far, in 20 ms frames, a reply runs ahead of real time: Twilio buffers what it
// is sent and drops it on clear, so the lead costs a barge-in nothing. Sent exactly on time, a
// 40 ms stall of this host (the hypervisor took the CPU: 10–30 % steal) was an underrun in 4 of
// 16 calls at once; 60 ms rides such a stall out.
const twilioLead = 3

// Lead keeps twilioLead frames queued at Twilio (pipeline.Leader).
func (tc *twilioCall) Lead() int { return twilioLead }

func (tc *twilioCall) run() error {
	start, err := tc.awaitStart()
	if err != nil {
		tc.s.badInput("twilio", err)
		tc.close(websocket.CloseProtocolError, err.Error())
		return err
	}
	tc.callSid, tc.streamSid = start.Start.CallSID, start.StreamSID
	if tc.streamSid == "" {
		tc.streamSid = start.Start.StreamSID
	}
	if tc.down, err = audio.NewResampler(pipeline.Rate, tw.SampleRate); err != nil {
		return err
	}
	call, stop, err := tc.s.startCall(tc.callSid, tc, nil)
	if err != nil {
		tc.close(websocket.CloseInternalServerErr, "agent error")
		return err
	}
	defer stop()
	ctx, cancel := context.WithCancel(tc.s.ctx)
	defer cancel()
	runErr := make(chan error, 1)
	go func() {
		err := call.Run(ctx)
		// The agent ends the call (idle guard, shutdown): say so, and unblock the reader once the
		// caller has answered the close or a moment has passed.
		switch {
		case errors.Is(err, pipeline.ErrIdle):
			tc.close(websocket.CloseNormalClosure, "idle")
		case tc.s.ctx.Err() != nil:
			tc.close(websocket.CloseGoingAway, "agent shutting down")
		}
		tc.ending.Store(true)
		tc.ws.SetReadDeadline(time.Now().Add(2 * time.Second))
		runErr <- err
	}()
	readErr := tc.read(call)
	cancel()
	err = <-runErr
	if !errors.Is(err, pipeline.ErrIdle) && tc.s.ctx.Err() == nil {
		tc.close(websocket.CloseNormalClosure, "")
	}
	if readErr != nil && !errors.Is(readErr, errStopped) {
		return readErr
	}
	return err
}

// awaitStart reads up to the start message; connected is optional, as pipecat's test client shows.
func (tc *twilioCall) awaitStart() (tw.Message, error) {
	deadline := time.Now().Add(twilioStartTimeout)
	for {
		tc.ws.SetReadDeadline(deadline)
		_, data, err := tc.ws.ReadMessage()
		if err != nil {
			return tw.Message{}, fmt.Errorf("await start: %w", err)
		}
		m, err := tw.Decode(data)
		if err != nil {
			tc.s.badInput("twilio", err)
			continue
		}
		switch m.Event {
		case tw.EventConnected:
		case tw.EventStart:
			return m, nil
		case tw.EventStop:
			return tw.Message{}, errStopped
		default:
			tc.s.badInput("twilio", fmt.Errorf("%v before start", m.Event))
		}
	}
}

var errStopped = errors.New("caller sent stop")

// read feeds the caller's audio to the pipeline until stop, an error or the end of the call.
func (tc *twilioCall) read(call *pipeline.Call) error {
	// Widened rather than plainly upsampled: the wideband transcriber hears telephone fricatives.
	up := audio.NewWidener()
	var mulaw []byte
	var pcm8 []int16
	var pending []int16
	for {
		if !tc.ending.Load() {
			tc.ws.SetReadDeadline(time.Now().Add(twilioReadTimeout))
		}
		_, data, err := tc.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if tc.s.ctx.Err() != nil || errors.As(err, &ce) {
				return nil
			}
			return fmt.Errorf("read: %w", err)
		}
		m, err := tw.Decode(data)
		if err != nil {
			tc.s.badInput("twilio", err)
			continue
		}
		switch m.Event {
		case tw.EventMedia:
			if mulaw, err = m.AppendAudio(mulaw[:0]); err != nil {
				tc.s.badInput("twilio", err)
				continue
			}
			pcm8 = audio.MulawDecode(pcm8[:0], mulaw)
			pending = append(pending, up.Process(pcm8)...)
			off := 0
			for ; len(pending)-off >= pipeline.FrameSamples; off += pipeline.FrameSamples {
				call.Push(pending[off : off+pipeline.FrameSamples])
			}
			pending = pending[:copy(pending, pending[off:])]
		case tw.EventStop:
			return errStopped
		case tw.EventMark, tw.EventDTMF, tw.EventConnected:
		default:
			tc.s.badInput("twilio", fmt.Errorf("unexpected %v", m.Event))
		}
	}
}

// Send plays one frame: 16 kHz to 8 kHz mu-law, one media message. Silence is not sent: Twilio
// plays nothing when the agent sends nothing.
func (tc *twilioCall) Send(frame []int16) error {
	if frame == nil {
		return nil
	}
	tc.mu = audio.MulawEncode(tc.mu[:0], tc.down.Process(frame))
	return tc.write(func(b []byte) []byte { return tw.AppendAgentMedia(b, tc.streamSid, tc.mu) })
}

// Clear tells Twilio to drop the audio it buffered (barge-in).
func (tc *twilioCall) Clear() error {
	return tc.write(func(b []byte) []byte { return tw.AppendClear(b, tc.streamSid) })
}

// EndOfReply sends a mark after the reply's last media.
func (tc *twilioCall) EndOfReply(name string) error {
	return tc.write(func(b []byte) []byte { return tw.AppendMark(b, tc.streamSid, name) })
}

func (tc *twilioCall) write(build func([]byte) []byte) error {
	tc.wmu.Lock()
	defer tc.wmu.Unlock()
	tc.wbuf = build(tc.wbuf[:0])
	tc.ws.SetWriteDeadline(time.Now().Add(twilioWriteTimeout))
	if err := tc.ws.WriteMessage(websocket.TextMessage, tc.wbuf); err != nil {
		return fmt.Errorf("twilio write: %w", err)
	}
	return nil
}

func (tc *twilioCall) close(code int, reason string) {
	tc.wmu.Lock()
	defer tc.wmu.Unlock()
	msg := websocket.FormatCloseMessage(code, reason)
	tc.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
}
