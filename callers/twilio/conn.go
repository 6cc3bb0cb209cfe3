package twilio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/internal/safetext"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

const (
	writeTimeout = 5 * time.Second // a write blocked this long means the agent stopped reading
	closeWait    = time.Second     // how long a failed Dial waits to learn why the agent closed
	// readLimit ends a call whose agent sends a larger message (gorilla closes with 1009); one
	// between MaxMessageSize and it is skipped as too large.
	readLimit = 2 * tw.MaxMessageSize
	// maxMarks bounds the agent marks waiting for their audio to play, and maxMarkName a mark's
	// name: marks past either are never echoed (an agent sends one a reply).
	maxMarks    = 256
	maxMarkName = 1024
)

// silenceFrame is 20 ms of mu-law silence (0xFF encodes zero).
var silenceFrame = bytes.Repeat([]byte{0xFF}, 160)

// Conn is one call's Media Stream, seen from Twilio's side.
type Conn struct {
	ws  *websocket.Conn
	ids ids
	d   *Dialer

	wmu      sync.Mutex // one writer at a time, as gorilla requires
	out      []byte
	seq      int // sequenceNumber of the last message sent
	chunk    int // media messages sent
	renewAt  time.Time
	writeErr error

	audio  chan callers.Chunk
	events chan rtvi.Message
	ready  chan struct{}
	done   chan struct{}
	hangup chan struct{} // closed by Close: the reader drops audio until the agent's close arrives

	readyOnce, doneOnce, closeOnce sync.Once
	closing                        atomic.Bool
	errMu                          sync.Mutex
	err                            error
	closeErr                       error
	cancel                         context.CancelFunc // ends the events stream
	wg                             sync.WaitGroup

	mu    sync.Mutex
	marks []mark // agent marks not yet echoed, in order
	// delivered is 16 kHz agent samples handed to Audio; the reader writes it, marks read it.
	delivered int
}

// mark is an agent mark and the amount of audio delivered before it.
type mark struct {
	name string
	pos  int
}

var _ callers.Conn = (*Conn)(nil)

func newConn(ws *websocket.Conn, ids ids, d *Dialer) *Conn {
	c := &Conn{ws: ws, ids: ids, d: d,
		audio: make(chan callers.Chunk, 64), ready: make(chan struct{}), done: make(chan struct{}),
		hangup: make(chan struct{}), cancel: func() {}}
	if d.EventsURL != "" {
		c.events = make(chan rtvi.Message, 32)
	}
	ws.SetReadLimit(readLimit)
	return c
}

// begin starts the reader, sends connected and start, and opens the events stream.
func (c *Conn) begin(ctx context.Context, params map[string]string) error {
	up, err := newUpsampler()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDial, err)
	}
	c.wg.Add(1)
	go c.read(up)
	start := tw.Start{AccountSID: c.ids.account, StreamSID: c.ids.stream, CallSID: c.ids.call,
		Tracks: []string{tw.TrackInbound}, CustomParameters: params, MediaFormat: tw.DefaultMediaFormat}
	err = c.write(func(b []byte) []byte { return tw.AppendConnected(b) })
	if err == nil {
		err = c.write(func(b []byte) []byte { c.seq++; return tw.AppendStart(b, c.seq, start) })
	}
	if err != nil {
		return c.whyFailed(ctx, err)
	}
	if c.events == nil {
		c.markReady()
		return nil
	}
	ectx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	c.wg.Add(1)
	go c.runEvents(ectx, c.d.eventsURL(c.ids.call))
	return nil
}

// newUpsampler turns Twilio's 8 kHz into the caller's 16 kHz as a stream, so chunk edges of any
// size leave no seams; widened, so the wideband transcriber hears telephone fricatives.
func newUpsampler() (*audio.Widener, error) { return audio.NewWidener(), nil }

// whyFailed prefers the agent's reason (a 1013 close) over the write error it caused.
func (c *Conn) whyFailed(ctx context.Context, err error) error {
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-c.done:
		if e := c.Err(); e != nil {
			return e
		}
	case <-t.C:
	case <-ctx.Done():
	}
	return fmt.Errorf("%w: send start: %w", ErrDial, err)
}

// Send sends frame i of the clip as one media message.
func (c *Conn) Send(cl *pool.Clip, i int) error { return c.media(cl.Mulaw[i]) }

// SendSilence sends 20 ms of mu-law silence: Twilio's media never stops while the call is up.
func (c *Conn) SendSilence() error { return c.media(silenceFrame) }

func (c *Conn) media(frame []byte) error {
	return c.write(func(b []byte) []byte {
		c.seq++
		c.chunk++
		return tw.AppendMedia(b, c.ids.stream, c.seq, c.chunk, int64(c.chunk-1)*20, frame, tw.TrackInbound)
	})
}

// write builds and sends one text message under the write lock; the write deadline is renewed
// about once a second rather than on every 20 ms frame.
func (c *Conn) write(build func([]byte) []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.writeErr != nil {
		return c.writeErr
	}
	if now := time.Now(); now.After(c.renewAt) {
		c.ws.SetWriteDeadline(now.Add(writeTimeout))
		c.renewAt = now.Add(time.Second)
	}
	c.out = build(c.out[:0])
	if err := c.ws.WriteMessage(websocket.TextMessage, c.out); err != nil {
		c.writeErr = fmt.Errorf("twilio write: %w", err)
		return c.writeErr
	}
	return nil
}

// Played echoes, in order, every agent mark whose preceding audio has now played (or been
// cleared): Twilio's signal that the agent's audio was heard.
func (c *Conn) Played(samples int) {
	c.mu.Lock()
	n := 0
	for n < len(c.marks) && c.marks[n].pos <= samples {
		n++
	}
	if n == 0 {
		c.mu.Unlock()
		return
	}
	due := append([]mark(nil), c.marks[:n]...)
	c.marks = c.marks[n:]
	c.mu.Unlock()
	for _, m := range due {
		err := c.write(func(b []byte) []byte {
			c.seq++
			return tw.AppendMarkEcho(b, c.ids.stream, c.seq, m.name)
		})
		if err != nil {
			return // the next Send reports it
		}
	}
}

// Audio is the agent's audio at 16 kHz, with in-band clears; closed when the call ends.
func (c *Conn) Audio() <-chan callers.Chunk { return c.audio }

// Events carries RTVI messages from the events URL; nil without one.
func (c *Conn) Events() <-chan rtvi.Message {
	if c.events == nil {
		return nil
	}
	return c.events
}

// Ready is closed once start is sent and, with an events URL, the events stream is open.
func (c *Conn) Ready() <-chan struct{} { return c.ready }

// Flush is nil: Twilio's clear travels in-band on Audio (Chunk.Clear).
func (c *Conn) Flush() <-chan struct{} { return nil }

// Done is closed when the stream ends; Err says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is nil for a clean hang-up (a close handshake, or one the caller began).
func (c *Conn) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// ID is the callSid.
func (c *Conn) ID() string { return c.ids.call }

// StreamSID is the stream's sid.
func (c *Conn) StreamSID() string { return c.ids.stream }

func (c *Conn) markReady() { c.readyOnce.Do(func() { close(c.ready) }) }

// fail ends the call with err unless it has already ended, and breaks the socket so the reader
// and writer stop.
func (c *Conn) fail(err error) {
	c.setErr(err)
	c.ws.NetConn().Close()
}

// setErr keeps the first reason the call ended.
func (c *Conn) setErr(err error) {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	if c.err == nil && err != nil {
		c.err = err
	}
}

// finish records why the reader stopped and closes Done.
func (c *Conn) finish(err error) {
	c.doneOnce.Do(func() {
		c.setErr(err)
		close(c.done)
		c.cancel()
	})
}

// Close hangs up: stop, a close handshake (bounded by ctx), then the socket. Idempotent.
func (c *Conn) Close(ctx context.Context) error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		close(c.hangup)
		select {
		case <-c.done:
		default:
			err := c.write(func(b []byte) []byte {
				c.seq++
				return tw.AppendStop(b, c.ids.stream, c.seq, c.ids.account, c.ids.call)
			})
			msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
			if err == nil {
				err = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeWait))
			}
			if err == nil {
				select { // the agent answers the close; its reader then ends
				case <-c.done:
				case <-ctx.Done():
				}
			}
		}
		c.cancel()
		c.ws.Close()
		c.wg.Wait()
		c.closeErr = c.Err()
	})
	return c.closeErr
}

// read decodes the agent's messages until the stream ends.
func (c *Conn) read(up *audio.Widener) {
	defer c.wg.Done()
	r := reader{c: c, up: up}
	err := r.loop()
	c.finish(c.classify(err))
	close(c.audio)
}

// classify turns the reader's end into Err: nil for a clean close. The agent's close reason is
// cleaned before it is kept (RFC 6455 §7.1.6: any UTF-8, up to 123 bytes).
func (c *Conn) classify(err error) error {
	var ce *websocket.CloseError
	switch {
	case c.closing.Load():
		return nil
	case errors.As(err, &ce) && ce.Code == websocket.CloseTryAgainLater:
		return fmt.Errorf("%w: close 1013 (try again later): %s", ErrRefused, clean(ce.Text))
	case errors.As(err, &ce) && (ce.Code == websocket.CloseNormalClosure || ce.Code == websocket.CloseGoingAway):
		return nil
	case errors.As(err, &ce):
		return fmt.Errorf("%w: %w", ErrLost, &websocket.CloseError{Code: ce.Code, Text: clean(ce.Text)})
	case errors.Is(err, websocket.ErrReadLimit):
		return fmt.Errorf("%w: %w: a message over %d bytes", ErrLost, ErrTooLarge, readLimit)
	case isTimeout(err):
		return fmt.Errorf("%w: nothing for %v", ErrIdle, c.d.IdleTimeout)
	}
	return fmt.Errorf("%w: %w", ErrLost, err)
}

// clean makes agent-chosen text (a close reason, a status line, a URL from TwiML) safe to keep.
func clean(s string) string { return safetext.Clean(s, safetext.MaxText) }

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// reader is the reader goroutine's state: buffers reused across messages.
type reader struct {
	c     *Conn
	up    *audio.Widener
	buf   bytes.Buffer
	mulaw []byte
	pcm8  []int16

	ahead   listen.Ahead // how far the agent's audio has run ahead of real time
	dropped int          // samples (16 kHz) dropped and not yet reported on a Chunk
	noted   time.Time    // last time a chunk went out, to pace drop-only chunks
}

func (r *reader) loop() error {
	c := r.c
	for {
		if c.d.IdleTimeout > 0 {
			c.ws.SetReadDeadline(time.Now().Add(c.d.IdleTimeout))
		}
		typ, rd, err := c.ws.NextReader()
		if err != nil {
			return err
		}
		if typ != websocket.TextMessage {
			continue // Media Streams messages are JSON text; NextReader discards the rest
		}
		r.buf.Reset()
		if _, err := r.buf.ReadFrom(rd); err != nil {
			return err
		}
		if err := r.message(r.buf.Bytes(), time.Now()); err != nil {
			return err
		}
	}
}

// message decodes and acts on one agent message that arrived at at; unknown events and
// malformed messages (bad JSON, bad base64, too large) are skipped, as Twilio does.
func (r *reader) message(data []byte, at time.Time) error {
	m, err := tw.Decode(data)
	if err != nil {
		return nil
	}
	return r.handle(&m, at)
}

// handle acts on one agent message: media, mark or clear; Twilio ignores anything else.
func (r *reader) handle(m *tw.Message, at time.Time) error {
	c := r.c
	switch m.Event {
	case tw.EventMedia:
		return r.media(m, at)
	case tw.EventMark:
		if len(m.Mark.Name) > maxMarkName {
			return nil
		}
		c.mu.Lock()
		if len(c.marks) < maxMarks {
			c.marks = append(c.marks, mark{name: m.Mark.Name, pos: c.delivered})
		}
		c.mu.Unlock()
	case tw.EventClear:
		r.ahead.Reset() // Twilio empties its buffer
		return r.deliver(callers.Chunk{At: at, Clear: true})
	}
	return nil
}

// media decodes a media message's audio to 16 kHz and hands it on, dropping what runs more than
// MaxAhead ahead of real time before it is decoded.
func (r *reader) media(m *tw.Message, at time.Time) error {
	var err error
	if r.mulaw, err = m.AppendAudio(r.mulaw[:0]); err != nil {
		return nil
	}
	r.ahead.Max = r.c.d.MaxAhead()
	keep := r.ahead.Admit(2*len(r.mulaw), at) / 2 // 8 kHz bytes, 16 kHz samples
	r.dropped += 2 * (len(r.mulaw) - keep)
	if keep == 0 {
		return r.noteDropped(at)
	}
	r.pcm8 = audio.MulawDecode(r.pcm8[:0], r.mulaw[:keep])
	pcm := r.up.ProcessTo(make([]int16, 0, 2*len(r.pcm8)), r.pcm8)
	r.c.mu.Lock()
	r.c.delivered += len(pcm)
	r.c.mu.Unlock()
	return r.deliver(callers.Chunk{PCM: pcm, At: at})
}

// deliver hands a chunk on with the drops since the last one.
func (r *reader) deliver(ch callers.Chunk) error {
	ch.Dropped, r.dropped, r.noted = r.dropped, 0, ch.At
	return r.c.deliver(ch)
}

// noteDropped reports drops on an empty chunk when no audio has gone out for a frame, without
// waiting: a flood must not be able to block the reader on its own bookkeeping.
func (r *reader) noteDropped(at time.Time) error {
	if r.dropped == 0 || at.Sub(r.noted) < listen.FrameDuration {
		return nil
	}
	select {
	case r.c.audio <- callers.Chunk{At: at, Dropped: r.dropped}:
		r.dropped, r.noted = 0, at
	default:
	}
	return nil
}

// deliver hands a chunk to the caller's loop, which drains Audio every tick; once the caller
// hangs up nobody listens, and the reader only waits for the agent's close.
func (c *Conn) deliver(ch callers.Chunk) error {
	select {
	case c.audio <- ch:
	case <-c.hangup:
	}
	return nil
}
