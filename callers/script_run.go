package callers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/internal/safetext"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// RunScript places one scripted call over d, speaking from p (phrases the pool lacks are
// rendered first), hearing the replies its cues ask for with ears (nil: none), and returns what
// it saw. Every wait is bounded by the script's timeouts; ctx's end hangs up.
func RunScript(ctx context.Context, d Dialer, p *pool.Pool, s Script, ears listen.Ears) Trace {
	s = s.withDefaults()
	c := &scriptCall{d: d, s: s, cur: -1, t0: time.Now()}
	c.trace = Trace{Schema: TraceSchema, Call: s.Call, Step: s.Step, Transport: d.Name(), Seed: s.Seed,
		Wall: c.t0.Round(0), Said: []Said{}, Replies: []HeardReply{}, Voiced: []Span{}, Audio: []Span{}}
	if errs := s.Validate(); len(errs) > 0 {
		return c.failed(EndedByError, errors.Join(errs...))
	}
	if err := c.render(p); err != nil {
		return c.failed(EndedByError, err)
	}
	dctx, cancel := context.WithTimeout(ctx, s.Timeouts.Connect)
	conn, err := d.Dial(dctx, CallInfo{Call: s.Call})
	cancel()
	if err != nil {
		endedBy := EndedByError
		if ctx.Err() != nil {
			endedBy = EndedByCancelled
		}
		return c.failed(endedBy, fmt.Errorf("%w: %s: %w", ErrConnect, d.Name(), err))
	}
	c.conn = conn
	c.trace.Connected, c.trace.CallID, c.trace.Connect = true, conn.ID(), c.mark(time.Now())
	c.audio, c.events, c.flush = conn.Audio(), conn.Events(), conn.Flush()
	c.trace.TranscriptChannel = c.events != nil
	c.level = listen.NewDetector(0, 0)
	c.lis = listen.NewListener(ctx, listen.Config{Delay: d.JitterBuffer(), Silence: s.ReplySilence,
		MaxAhead: maxAhead(d)}, ears)
	c.loop(ctx)
	c.hangUp(ctx)
	return c.trace
}

func (s Script) withDefaults() Script {
	p := Plan{Timeouts: s.Timeouts, ReplySilence: s.ReplySilence}.withDefaults()
	s.Timeouts, s.ReplySilence = p.Timeouts, p.ReplySilence
	return s
}

// scriptCall is one scripted call's state, owned by the goroutine running it.
type scriptCall struct {
	d     Dialer
	s     Script
	clips []*pool.Clip
	t0    time.Time
	trace Trace

	conn   Conn
	lis    *listen.Listener
	level  *listen.Detector
	audio  <-chan Chunk
	events <-chan rtvi.Message
	flush  <-chan struct{}

	readyBy  time.Time // the agent must be ready by then
	readyAt  time.Time
	cur      int       // cue being spoken, -1 when silent
	frame    int       // next frame of cur's clip
	next     int       // next cue to speak
	startAt  time.Time // when the next cue's first frame goes out; zero until known
	lastDone time.Time // the last cue's reply ended or was given up on
	lateness []time.Duration
	pending  []int // Seq of the replies whose transcription is under way
	dropped  int   // agent samples the transport dropped for arriving too far ahead
	finished bool
}

// render fetches every cue's clip before dialling, so the loop never waits on a render.
func (c *scriptCall) render(p *pool.Pool) error {
	if p == nil {
		return fmt.Errorf("%w: no pool", ErrPhrase)
	}
	for i, cue := range c.s.Cues {
		var cl *pool.Clip
		var err error
		if cue.Split > 0 {
			cl, err = p.Split(cue.Digits, cue.Split)
		} else {
			cl, err = p.Get(cue.Digits)
		}
		if err != nil {
			return fmt.Errorf("%w: cue %d: %w", ErrPhrase, i, err)
		}
		if !hasCodec(cl, c.d.Codec()) {
			return fmt.Errorf("%w: %s needs %v", ErrCodec, c.d.Name(), c.d.Codec())
		}
		c.clips = append(c.clips, cl)
	}
	return nil
}

func hasCodec(cl *pool.Clip, codec pool.Codec) bool {
	switch codec {
	case pool.CodecMulaw:
		return len(cl.Mulaw) == cl.Frames()
	case pool.CodecOpus:
		return len(cl.Opus) == cl.Frames()
	}
	return true
}

func (c *scriptCall) failed(endedBy string, err error) Trace {
	c.trace.EndedBy, c.trace.Error = endedBy, errorText(err)
	c.trace.Duration = D(time.Since(c.t0))
	return c.trace
}

// mark is t as an offset from dial; at turns one back.
func (c *scriptCall) mark(t time.Time) *Ms {
	m := D(t.Sub(c.t0))
	return &m
}

func (c *scriptCall) at(m Ms) time.Time { return c.t0.Add(m.Duration()) }

// loop runs the script's ticks (runTicks) until it ends.
func (c *scriptCall) loop(ctx context.Context) {
	c.readyBy = time.Now().Add(c.s.Timeouts.Connect)
	runTicks(ctx, c.conn, c.events, c.lis.Heard(), c)
}

func (c *scriptCall) onReady(now time.Time) {
	c.readyAt = now
	c.trace.Ready = c.mark(now)
}

func (c *scriptCall) onCancel(err error) { c.end(EndedByCancelled, err) }
func (c *scriptCall) over() bool         { return c.finished }

// tick sends one frame, takes in what arrived, plays it out and moves the script on.
func (c *scriptCall) tick(now, sched time.Time) {
	if c.readyAt.IsZero() && now.After(c.readyBy) {
		c.end(EndedByError, fmt.Errorf("%w within %v", ErrNotReady, c.s.Timeouts.Connect))
		return
	}
	if c.cur < 0 && !c.readyAt.IsZero() {
		c.schedule(now)
		if c.next < len(c.clips) && !c.startAt.IsZero() && !now.Before(c.startAt.Add(-tick/2)) {
			c.begin(now)
		}
	}
	var err error
	if c.cur >= 0 {
		err = c.sendFrame(now)
	} else {
		err = c.conn.SendSilence()
	}
	if c.next > 0 {
		c.lateness = append(c.lateness, now.Sub(sched))
	}
	if err != nil {
		select {
		case <-c.conn.Done():
			c.onDone()
		case <-time.After(100 * time.Millisecond):
			c.end(EndedByError, fmt.Errorf("%w: %w", ErrSend, err))
		}
		return
	}
	c.drain()
	for _, ev := range c.lis.Tick(now) {
		c.onReply(ev)
	}
	c.conn.Played(c.lis.Played())
	c.checkDone(now)
}

// schedule works out when the next cue starts, once what it waits for has happened.
func (c *scriptCall) schedule(now time.Time) {
	if c.next >= len(c.clips) || !c.startAt.IsZero() {
		return
	}
	cue := c.s.Cues[c.next]
	lead := time.Duration(c.clips[c.next].StartFrame()) * tick // frame 0 to the first voiced one
	if c.next == 0 {
		if !c.lis.InReply() { // a greeting plays out first
			base := c.readyAt
			if n := len(c.trace.Replies); n > 0 && c.trace.Replies[n-1].End != nil {
				base = later(base, c.at(*c.trace.Replies[n-1].End))
			}
			c.startAt = later(now, base.Add(cue.Pause-lead))
		}
		return
	}
	prev := c.trace.Said[c.next-1]
	r, ok := c.trace.ReplyBySeq(prev.Reply)
	switch {
	case !ok && now.Sub(c.at(prev.SpeechEnd)) >= c.s.Timeouts.Answer:
		c.startAt = later(now, c.at(prev.SpeechEnd).Add(cue.Pause-lead)) // no reply: go on
	case !ok:
	case cue.BargeIn > 0:
		c.startAt = later(now, c.at(r.Start).Add(cue.BargeIn-lead))
	case r.End != nil:
		c.startAt = later(now, c.at(*r.End).Add(cue.Pause-lead))
	case now.Sub(c.at(r.Start)) >= c.s.Timeouts.Reply:
		c.startAt = now
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// begin starts speaking the next cue.
func (c *scriptCall) begin(now time.Time) {
	c.closeLateness()
	cl, cue := c.clips[c.next], c.s.Cues[c.next]
	s := Said{Cue: c.next, Digits: cue.Digits, Voice: cl.Voice, Wall: now.Round(0)}
	if cue.Split > 0 {
		p := D(cue.Split)
		s.Split = &p
	}
	c.trace.Said = append(c.trace.Said, s)
	c.cur, c.frame, c.startAt = c.next, 0, time.Time{}
	c.next++
	c.lis.Disarm()
}

// closeLateness files the send lateness gathered since the last cue began with that cue.
func (c *scriptCall) closeLateness() {
	if n := len(c.trace.Said); n > 0 {
		s := &c.trace.Said[n-1]
		s.LatenessP99, s.LatenessMax, s.LatenessHist = latenessStats(c.lateness)
	}
	c.lateness = c.lateness[:0]
}

// sendFrame sends the current clip's next frame and sets the speech marks it carries.
func (c *scriptCall) sendFrame(now time.Time) error {
	cl, i := c.clips[c.cur], c.frame
	s := &c.trace.Said[len(c.trace.Said)-1]
	if err := c.conn.Send(cl, i); err != nil {
		return err
	}
	if i == cl.StartFrame() {
		s.SpeechStart = *c.mark(now)
	}
	lateEnd := cl.EndFrame()
	if cl.PauseStart > cl.First {
		lateEnd = (cl.PauseStart - 1) / pool.FrameSamples
	}
	if i == lateEnd {
		s.LateEnd = *c.mark(now)
	}
	if i == cl.EndFrame() {
		s.SpeechEnd = *c.mark(now)
		if c.s.Cues[c.cur].Transcribe {
			c.lis.Arm(now)
		}
	}
	c.frame++
	if c.frame == cl.Frames() {
		c.cur = -1
	}
	return nil
}

// drain takes the agent audio that arrived since the last tick into the playout model, and
// keeps its arrivals: voiced frames, any frames, and clears.
func (c *scriptCall) drain() {
	select {
	case <-c.flush:
		c.lis.Flush()
		c.trace.Clears = append(c.trace.Clears, *c.mark(time.Now()))
	default:
	}
	for {
		select {
		case ch, ok := <-c.audio:
			if !ok {
				c.audio = nil
				return
			}
			if ch.Clear && len(c.trace.Clears) < maxTraceEvents {
				c.trace.Clears = append(c.trace.Clears, *c.mark(ch.At))
			}
			if ch.Clear {
				c.lis.Flush()
			}
			c.dropped += ch.Dropped
			c.lis.Push(ch.PCM, ch.At)
			c.arrived(ch)
		default:
			return
		}
	}
}

// arrived records a chunk's frames by arrival, frame k of a chunk at its arrival + k*20 ms; its
// voiced part to the nearest 2.5 ms block, so a stop is not rounded up to a frame.
func (c *scriptCall) arrived(ch Chunk) {
	for k, off := 0, 0; off < len(ch.PCM); k, off = k+1, off+listen.FrameSamples {
		pcm := ch.PCM[off:min(off+listen.FrameSamples, len(ch.PCM))]
		at := ch.At.Add(time.Duration(k) * tick)
		from := D(at.Sub(c.t0))
		c.trace.Audio = joinSpan(c.trace.Audio, from, from+samplesMs(len(pcm)))
		if first, last, ok := c.loud(pcm); ok {
			c.trace.Voiced = joinSpan(c.trace.Voiced, from+samplesMs(first), from+samplesMs(last))
		}
	}
}

// voicedBlock is the resolution of Trace.Voiced: 2.5 ms at 16 kHz.
const voicedBlock = 40

// loud finds the first and last (exclusive) sample of the blocks above the reply threshold.
func (c *scriptCall) loud(pcm []int16) (first, last int, ok bool) {
	first = -1
	for b := 0; b < len(pcm); b += voicedBlock {
		blk := pcm[b:min(b+voicedBlock, len(pcm))]
		if c.level.Voiced(blk) {
			if first < 0 {
				first = b
			}
			last = b + len(blk)
		}
	}
	return first, last, first >= 0
}

func samplesMs(n int) Ms { return D(time.Duration(n) * time.Second / listen.Rate) }

// joinSpan adds [from, to) to spans, joining it to the last one when it starts within a frame of
// its end: arrival jitter is not a gap.
func joinSpan(spans []Span, from, to Ms) []Span {
	if n := len(spans); n > 0 && from <= spans[n-1].End+D(tick) {
		spans[n-1].End = max(spans[n-1].End, to)
		return spans
	}
	return append(spans, Span{Start: from, End: to})
}

// maxTraceEvents bounds the server messages (and clears) a trace keeps: an agent sending them
// without end must not grow the caller's memory; a real call sends a few per turn.
const maxTraceEvents = 4096

// onEvent keeps every server message with its arrival, up to maxTraceEvents.
func (c *scriptCall) onEvent(m rtvi.Message, at time.Time) {
	if len(c.trace.Events) >= maxTraceEvents {
		c.trace.EventsDropped++
		return
	}
	e := AgentEvent{At: *c.mark(at), Type: m.Type}
	if m.Type == rtvi.TypeUserTranscription {
		if tr, err := m.Transcript(); err == nil {
			e.Text, e.Final = safetext.Clean(tr.Text, safetext.MaxText), tr.Final
		}
	}
	if bt, ok := m.BotText(); ok {
		e.Text = bt.Text // the agent's own words, kept only when they count (rtvi BotText)
	}
	c.trace.Events = append(c.trace.Events, e)
}

// onReply keeps each reply; the first to start after the last cue's speech end is that cue's.
func (c *scriptCall) onReply(ev listen.Event) {
	r := ev.Reply
	switch ev.Kind {
	case listen.EventReplyStarted:
		start := *c.mark(r.Start)
		c.trace.Replies = append(c.trace.Replies, HeardReply{Seq: r.Seq, Start: start})
		if n := len(c.trace.Said); n > 0 {
			s := &c.trace.Said[n-1]
			if s.SpeechEnd > 0 && s.Reply == 0 && start >= s.SpeechEnd {
				s.Reply = r.Seq
			}
		}
	case listen.EventReplyEnded:
		for i := range c.trace.Replies {
			h := &c.trace.Replies[i]
			if h.Seq == r.Seq {
				h.End = c.mark(r.End)
				h.Underruns, h.LongestGap, h.AgentAudio = r.Underruns, D(r.LongestGap), D(r.AgentAudio)
			}
		}
		if ev.Transcribing {
			c.pending = append(c.pending, r.Seq)
		}
	}
}

// onHeard files the caller's transcription of a reply (a failed open reports one that was never
// pending).
func (c *scriptCall) onHeard(h listen.Heard) {
	if i := slices.Index(c.pending, h.Seq); i >= 0 {
		c.pending = slices.Delete(c.pending, i, i+1)
	}
	for i := range c.trace.Replies {
		if r := &c.trace.Replies[i]; r.Seq == h.Seq {
			r.Heard, r.DecodeWait, r.DecodeTime, r.Unjudged = h.Digits, D(h.Wait), D(h.Time), h.Unjudged
			switch {
			case h.Unjudged != "":
				r.HeardErr = errorText(h.Err)
			case h.Err != nil:
				r.Cancelled = true // an error without a reason is the call's end
			}
		}
	}
}

// giveUpHeard marks the replies whose transcription never came: cut short when the call was
// stopped, else unjudged.
func (c *scriptCall) giveUpHeard(cancelled bool) {
	for _, seq := range c.pending {
		for i := range c.trace.Replies {
			if r := &c.trace.Replies[i]; r.Seq == seq {
				r.Cancelled = cancelled
				if !cancelled {
					r.Unjudged = listen.UnjudgedTimeout
				}
			}
		}
	}
	c.pending = nil
}

// checkDone ends the call Hold after the last cue's reply ended or was given up on.
func (c *scriptCall) checkDone(now time.Time) {
	if c.cur >= 0 || c.next < len(c.clips) || len(c.trace.Said) == 0 {
		return
	}
	if c.lastDone.IsZero() {
		last := c.trace.Said[len(c.trace.Said)-1]
		r, ok := c.trace.ReplyBySeq(last.Reply)
		switch {
		case ok && r.End != nil:
			c.lastDone = c.at(*r.End)
		case !ok && now.Sub(c.at(last.SpeechEnd)) >= c.s.Timeouts.Answer,
			ok && now.Sub(c.at(r.Start)) >= c.s.Timeouts.Reply:
			c.lastDone = now
		default:
			return
		}
	}
	if !now.Before(c.lastDone.Add(c.s.Hold)) {
		c.end(EndedByCaller, nil)
	}
}

// onDone ends the call when the far end did: a clean close is the agent hanging up.
func (c *scriptCall) onDone() {
	if err := c.conn.Err(); err != nil {
		c.end(EndedByError, err)
		return
	}
	c.trace.Hangup = c.mark(time.Now())
	c.end(EndedByAgent, nil)
}

func (c *scriptCall) end(endedBy string, err error) {
	c.finished = true
	c.trace.EndedBy = endedBy
	if err != nil {
		c.trace.Error = errorText(err)
	}
}

// hangUp closes the call and waits, boundedly, for the transcriptions still under way.
func (c *scriptCall) hangUp(ctx context.Context) {
	c.closeLateness()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	if err := c.conn.Close(cctx); err != nil && c.trace.Error == "" && c.trace.EndedBy == EndedByCaller {
		c.trace.Error = errorText(fmt.Errorf("hang up: %w", err))
	}
	if n := c.dropped + c.lis.Dropped(); n > 0 {
		c.trace.Dropped = D(time.Duration(n) * time.Second / listen.Rate)
	}
	if len(c.pending) > 0 && ctx.Err() == nil {
		t := time.NewTimer(c.lis.Limit() + heardSlack)
	wait:
		for len(c.pending) > 0 {
			select {
			case h := <-c.lis.Heard():
				c.onHeard(h)
			case <-t.C:
				break wait
			case <-ctx.Done():
				break wait
			}
		}
		t.Stop()
	}
	c.giveUpHeard(ctx.Err() != nil)
	c.lis.Close()
	c.trace.Duration = D(time.Since(c.t0))
}
