package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech/tts"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// speaker is the reply buffer between the responder (which fills it as the TTS streams) and the
// pacer (which empties it a frame every 20 ms). A barge-in bumps gen so a reply still being
// synthesised is dropped chunk by chunk.
type speaker struct {
	mu        sync.Mutex
	gen       uint64
	buf       []int16
	active    bool // a reply is queued or playing
	done      bool // the reply's text is fully synthesised
	started   bool // its first frame went out
	text      string
	heardAt   time.Time
	eotAt     time.Time
	idle      bool
	replySeq  int
	sentInRep int
	// ahead counts frames sent ahead of the clock to a far end that buffers (Leader).
	ahead int
}

// begin starts a new reply and returns its generation.
func (s *speaker) begin(r reply) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.buf = s.buf[:0]
	s.active, s.done, s.started = true, false, false
	s.text, s.heardAt, s.eotAt, s.idle = r.text, r.heardAt, r.eotAt, r.idle
	s.replySeq++
	s.sentInRep = 0
	return s.gen
}

// add appends synthesised audio if the reply was not interrupted.
func (s *speaker) add(gen uint64, pcm []int16) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return false
	}
	s.buf = append(s.buf, pcm...)
	return true
}

func (s *speaker) finish(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen == s.gen {
		s.done = true
	}
}

// interrupt drops the reply in progress (barge-in); it reports whether there was one.
func (s *speaker) interrupt() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active {
		return false
	}
	s.gen++
	s.buf = s.buf[:0]
	s.active = false
	s.ahead = 0 // the far end drops what it holds (Twilio clear)
	return true
}

// ready reports whether a frame is there to send; s.mu must be held.
func (s *speaker) ready() bool {
	return s.active && len(s.buf) > 0 && (len(s.buf) >= FrameSamples || s.done)
}

// covered reports whether a tick is already played by a frame sent ahead: with nothing ready to
// send, one frame of the lead is used up instead of sending silence.
func (s *speaker) covered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ahead > 0 && !s.ready() {
		s.ahead--
		return true
	}
	return false
}

// runAhead reports whether one more frame may go out now, ahead of the clock, to keep lead
// frames buffered at the far end.
func (s *speaker) runAhead(lead int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ahead < lead && s.ready() {
		s.ahead++
		return true
	}
	return false
}

func (s *speaker) speaking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// respond answers each turn: LLM, then TTS streamed into the speaker.
func (c *Call) respond(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-c.replies:
			if r.pcm != nil {
				gen := c.spk.begin(r)
				c.spk.add(gen, r.pcm)
				c.spk.finish(gen)
				continue
			}
			if !r.idle && !r.greeting {
				text, err := c.deps.LLM.Reply(ctx, r.text)
				if err != nil {
					c.log.Warn("llm", "err", err)
					continue
				}
				r.text = text
			}
			c.say(ctx, r)
		}
	}
}

// say synthesises a reply chunk by chunk (first audio does not wait for the whole text).
func (c *Call) say(ctx context.Context, r reply) {
	gen := c.spk.begin(r)
	emit := func(pcm []int16) error {
		if rate := c.deps.Voice.Rate(); rate != Rate && !r.idle {
			pcm = audio.Resample(pcm, rate, Rate)
		}
		if !c.spk.add(gen, pcm) {
			return errInterrupted
		}
		return nil
	}
	var err error
	if r.idle && c.deps.IdleAudio != nil {
		err = emit(c.deps.IdleAudio)
	} else if st, ok := c.deps.Voice.(tts.Streamer); ok {
		err = st.SynthesizeStream(ctx, r.text, emit)
	} else {
		var pcm []int16
		if pcm, err = c.deps.Voice.Synthesize(r.text); err == nil {
			err = emit(pcm)
		}
	}
	if err != nil && err != errInterrupted && ctx.Err() == nil {
		c.log.Warn("tts", "err", err)
	}
	c.spk.finish(gen)
}

var errInterrupted = fmt.Errorf("reply interrupted")

// pace sends a frame every 20 ms on the process's shared drift-free clock (deadlines from its
// start, never from the last wake-up), so a gap the caller hears is a gap the agent really made.
// To a Leader's far end a reply runs Lead frames ahead of the clock.
func (c *Call) pace(ctx context.Context, cancel context.CancelCauseFunc) {
	clock := c.deps.Clock
	if clock == nil {
		clock = sharedClock
	}
	lead := 0
	if l, ok := c.out.(Leader); ok {
		lead = l.Lead()
	}
	sub := clock.Subscribe()
	defer sub.Close()
	frame := make([]int16, FrameSamples)
	idle := idleState{agentEnd: time.Now()}
	for {
		due, err := sub.Next(ctx)
		if err != nil {
			return
		}
		now := time.Now()
		// Catch up after a stall rather than drift; bound it so a long stall is not a burst.
		due = min(due, 10)
		if c.idleGuard(now, &idle, cancel) {
			return
		}
		for range due {
			if c.spk.covered() {
				continue
			}
			if c.tick(frame, now) {
				idle.agentEnd = now
			}
			for c.spk.runAhead(lead) {
				if c.tick(frame, now) {
					idle.agentEnd = now
				}
			}
		}
	}
}

// tick sends one frame: the reply's next 20 ms, or silence. It reports whether a reply ended.
func (c *Call) tick(frame []int16, now time.Time) bool {
	s := &c.spk
	s.mu.Lock()
	var out []int16
	var started, ended bool
	var rep reply
	if s.ready() {
		n := copy(frame, s.buf)
		clear(frame[n:]) // the last partial frame is padded with silence
		s.buf = s.buf[n:]
		out = frame
		if !s.started {
			s.started, started = true, true
		}
		s.sentInRep++
	}
	// The reply ends with the tick that sends its last frame, so the idle guard and the mark
	// count from when the agent really fell silent.
	if s.active && s.done && len(s.buf) == 0 {
		s.active, ended = false, s.started
	}
	rep = reply{text: s.text, heardAt: s.heardAt, eotAt: s.eotAt, idle: s.idle}
	seq := s.replySeq
	s.mu.Unlock()

	if started {
		if !rep.heardAt.IsZero() {
			c.deps.Observer.Turn(rep.heardAt.Sub(rep.eotAt), now.Sub(rep.heardAt))
		}
		c.ev.Publish(rtvi.Event(rtvi.TypeBotStartedSpeaking))
		// The reply's text as spoken, as pipecat's RTVIObserver reports a TTSTextFrame to RTVI 2.x
		// clients (bot-output, then bot-tts-text); bot-transcription stays for 1.x clients.
		c.ev.Publish(rtvi.BotOutput(rep.text))
		c.ev.Publish(rtvi.BotTTSText(rep.text))
		c.ev.Publish(rtvi.BotTranscription(rep.text))
	}
	if err := c.out.Send(out); err != nil {
		c.log.Warn("send", "err", err)
	}
	if c.rec != nil {
		c.rec.Agent(out)
	}
	if ended {
		if err := c.out.EndOfReply(fmt.Sprintf("reply-%d", seq)); err != nil {
			c.log.Warn("mark", "err", err)
		}
		c.ev.Publish(rtvi.Event(rtvi.TypeBotStoppedSpeaking))
	}
	return ended
}

// idleGuard prompts after IdlePrompt with neither side speaking, and hangs up IdleHangup after the
// prompt has been said if the caller still says nothing. It reports whether the call is over.
func (c *Call) idleGuard(now time.Time, st *idleState, cancel context.CancelCauseFunc) bool {
	if c.cfg.IdlePrompt <= 0 || c.callerInTurn.Load() || c.spk.speaking() {
		return false
	}
	caller := time.Unix(0, c.lastCaller.Load())
	if st.prompted && caller.After(st.promptAt) {
		st.prompted = false
	}
	last := caller
	if st.agentEnd.After(last) {
		last = st.agentEnd
	}
	switch {
	case !st.prompted && now.Sub(last) >= c.cfg.IdlePrompt:
		st.prompted, st.promptAt = true, now
		c.deps.Observer.IdlePrompt()
		r := reply{text: c.cfg.IdleText, idle: true}
		if c.deps.IdleAudio != nil { // rendered already: queue it for this very tick
			gen := c.spk.begin(r)
			c.spk.add(gen, c.deps.IdleAudio)
			c.spk.finish(gen)
			break
		}
		select {
		case c.replies <- r:
		default:
		}
	case st.prompted && st.agentEnd.After(st.promptAt) && now.Sub(st.agentEnd) >= c.cfg.IdleHangup:
		c.deps.Observer.IdleHangup()
		cancel(ErrIdle)
		return true
	}
	return false
}

// idleState is the pacer's view of the idle guard.
type idleState struct {
	prompted bool
	promptAt time.Time
	agentEnd time.Time // when the agent last finished speaking
}
