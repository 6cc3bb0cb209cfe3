package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/wire/rtvi"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// Twilio Media Streams timing: a caller that sends nothing this long is gone.
const (
	twilioReadTimeout  = 30 * time.Second
	twilioWriteTimeout = 5 * time.Second
	// twilioEndWait is how long the caller has to answer the agent's close.
	twilioEndWait = 2 * time.Second
)

type twilioCall struct {
	s         *Server
	ws        *websocket.Conn
	ts        *twilioStream
	in        *inputLog
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

// awaitStart reads up to a valid start within timeout; connected is optional, as pipecat's test
// client shows. Bad input before it is counted and skipped.
func (tc *twilioCall) awaitStart(timeout time.Duration) error {
	tc.ws.SetReadDeadline(time.Now().Add(timeout))
	// Shutdown ends the wait too: the connection holds no slot Shutdown would wait for.
	stop := context.AfterFunc(tc.s.ctx, func() { tc.ws.SetReadDeadline(time.Now()) })
	defer stop()
	for {
		_, data, err := tc.ws.ReadMessage()
		if err != nil {
			return fmt.Errorf("await start: %w", err)
		}
		ev, err := tc.ts.step(data)
		switch {
		case errors.Is(err, errBadCallSID):
			tc.in.bad(kindBadCallSID, err)
			return err
		case err != nil:
			tc.in.bad(twilioKind(err), err)
		case ev == tw.EventStart:
			return nil
		case ev == tw.EventStop:
			return errStopped
		}
	}
}

// run is the admitted call: the pipeline speaks while read feeds it, until the caller stops or
// goes, or the agent hangs up (idle guard, maximum call length, shutdown).
func (tc *twilioCall) run() error {
	var err error
	if tc.down, err = audio.NewResampler(pipeline.Rate, tw.SampleRate); err != nil {
		return fmt.Errorf("twilio call: %w", err)
	}
	tc.streamSid = tc.ts.streamSID()
	call, ev, stop, err := tc.s.startCall(tc.ts.start.Start.CallSID, tc, nil)
	if err != nil {
		tc.close(websocket.CloseInternalServerErr, "agent error")
		return err
	}
	defer stop()
	tc.ts.push = call.Push
	ctx, cancel := tc.s.callContext()
	defer cancel()
	hungUp := make(chan bool, 1)
	var runErr error
	go func() {
		runErr = call.Run(ctx)
		h := tc.s.hangupReason(ctx, runErr)
		if h.reason != "" {
			tc.s.m.hangups.WithLabelValues(transportTwilio, h.reason).Inc()
			if h.notify {
				ev.Publish(rtvi.ErrorEvent(h.text, true))
			}
			tc.close(h.code, h.text)
		}
		// Unblock the reader once the caller has answered the close or a moment has passed.
		tc.ending.Store(true)
		tc.ws.SetReadDeadline(time.Now().Add(twilioEndWait))
		hungUp <- h.reason != ""
	}()
	readErr := tc.read()
	cancel()
	if !<-hungUp {
		tc.close(websocket.CloseNormalClosure, "")
	}
	if readErr != nil && !errors.Is(readErr, errStopped) {
		return readErr
	}
	return runErr
}

// read feeds the caller's audio to the pipeline until stop, an error or the end of the call.
func (tc *twilioCall) read() error {
	for {
		if !tc.ending.Load() {
			tc.ws.SetReadDeadline(time.Now().Add(twilioReadTimeout))
		}
		_, data, err := tc.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			switch {
			case errors.Is(err, websocket.ErrReadLimit):
				tc.in.bad(kindTooLarge, err) // the reader has sent 1009
				return nil
			case tc.s.ctx.Err() != nil, errors.As(err, &ce), tc.ending.Load():
				return nil
			}
			return fmt.Errorf("read: %w", err)
		}
		ev, err := tc.ts.step(data)
		if err != nil {
			tc.in.bad(twilioKind(err), err)
			continue
		}
		if ev == tw.EventStop {
			return errStopped
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

// close sends a close frame with code and reason (cut to fit); the connection closes after.
func (tc *twilioCall) close(code int, reason string) {
	tc.wmu.Lock()
	defer tc.wmu.Unlock()
	msg := websocket.FormatCloseMessage(code, closeReason(reason))
	tc.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
}

// callContext is an admitted call's context: it ends on Shutdown, or after MaxCallLength with
// cause ErrMaxCallLength.
func (s *Server) callContext() (context.Context, context.CancelFunc) {
	if s.cfg.MaxCallLength <= 0 {
		return context.WithCancel(s.ctx)
	}
	return context.WithTimeoutCause(s.ctx, s.cfg.MaxCallLength,
		fmt.Errorf("%w (%v)", ErrMaxCallLength, s.cfg.MaxCallLength))
}
