package callers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// tick is the media clock: one frame sent and one played out per tick, as Twilio does.
const tick = 20 * time.Millisecond

// phase is what the loop is doing between ticks.
type phase uint8

const (
	phaseReady    phase = iota // waiting for the agent to be ready
	phaseSettle                // waiting for a greeting to end before the first turn
	phaseSpeaking              // sending the current clip
	phaseAwait                 // waiting for the reply to start and end
	phasePausing               // between turns
	phaseDone
)

// loop runs the call's ticks (runTicks) until the call ends.
func (c *call) loop(ctx context.Context) {
	c.readyBy = time.Now().Add(c.plan.Timeouts.Connect)
	runTicks(ctx, c.conn, c.events, c.lis.Heard(), c)
}

func (c *call) onCancel(err error) { c.end(EndedByCancelled, ReasonCancelled, err) }
func (c *call) over() bool         { return c.phase == phaseDone }

// tick sends one frame, plays out what the agent sent and moves the turn on.
func (c *call) tick(now, sched time.Time) {
	var err error
	if c.phase == phaseSpeaking {
		err = c.sendFrame(now)
	} else {
		err = c.conn.SendSilence()
	}
	if c.cur != nil { // the turn's whole cycle: a stalled loop mis-times replies as well as phrases
		c.cur.lateness = append(c.cur.lateness, now.Sub(sched))
	}
	if err != nil {
		c.sendFailed(err)
		return
	}
	c.drainAudio()
	for _, ev := range c.lis.Tick(now) {
		c.onReply(ev)
	}
	c.conn.Played(c.lis.Played())
	c.expireHeld(now)
	c.step(now)
}

// sendFailed ends the call on a failed send; a send fails when the far end has gone, so Done
// says why when it can.
func (c *call) sendFailed(err error) {
	select {
	case <-c.conn.Done():
		c.onDone()
	case <-time.After(100 * time.Millisecond):
		c.end(EndedByError, ReasonConnection, fmt.Errorf("%w: %w", ErrSend, err))
	}
}

// drainAudio moves what the agent sent since the last tick into the playout model.
func (c *call) drainAudio() {
	select {
	case <-c.flush:
		c.lis.Flush()
	default:
	}
	defer c.noteDropped()
	for {
		select {
		case ch, ok := <-c.audio:
			if !ok {
				c.audio = nil
				return
			}
			if ch.Clear {
				c.lis.Flush()
			}
			c.dropped += ch.Dropped
			c.lis.Push(ch.PCM, ch.At)
		default:
			return
		}
	}
}

// noteDropped files the agent audio dropped since the last tick, by the transport or the playout
// queue, with the latest turn; audio dropped before the first turn counts for the first.
func (c *call) noteDropped() {
	n := c.dropped + c.lis.Dropped() - c.droppedSeen
	c.droppedSeen, c.dropped = c.lis.Dropped(), 0
	if n <= 0 {
		return
	}
	if c.cur == nil {
		c.droppedEarly += n
		return
	}
	c.cur.dropped += n
}

func (c *call) onReady(now time.Time) {
	if c.phase != phaseReady {
		return
	}
	c.res.SessionStart = c.mark(now)
	c.phase = phaseSettle
}

// step moves the call through its phases; every wait here has a bound.
func (c *call) step(now time.Time) {
	switch c.phase {
	case phaseReady:
		c.setState(StateWaiting)
		if now.After(c.readyBy) {
			c.end(EndedByError, "", fmt.Errorf("%w within %v", ErrNotReady, c.plan.Timeouts.Connect))
		}
	case phaseSettle:
		// A greeting plays out before the first phrase, as a person would let it.
		if !c.replyBusy(now) {
			c.startTurn(now)
		}
	case phaseAwait:
		c.await(now)
	case phasePausing:
		if now.Before(c.pauseUntil) || c.replyBusy(now) || !c.next.ready() {
			return
		}
		c.startTurn(now)
	}
}

// replyBusy reports a reply still playing, for at most the reply timeout.
func (c *call) replyBusy(now time.Time) bool {
	return c.lis.InReply() && now.Sub(c.lis.Current().Start) < c.plan.Timeouts.Reply
}

// await ends the turn once its reply has ended or a timeout has passed.
func (c *call) await(now time.Time) {
	t := c.cur
	switch {
	case t.replyDone:
		c.endTurn(now, "")
	case t.replyStart.IsZero() && now.Sub(t.speechEnd) >= c.plan.Timeouts.Answer:
		c.endTurn(now, ReasonNoAnswer)
	case !t.replyStart.IsZero() && now.Sub(t.replyStart) >= c.plan.Timeouts.Reply:
		c.endTurn(now, ReasonReplyTimeout)
	case !t.replyStart.IsZero():
		c.setState(StateListening)
	}
}

// startTurn begins the next turn, or ends the call when the plan says so.
func (c *call) startTurn(now time.Time) {
	if c.finished(now) {
		c.end(EndedByCaller, "", nil)
		return
	}
	if !c.next.ready() {
		c.phase = phasePausing // a split clip is still rendering
		return
	}
	if c.next.err != nil {
		c.end(EndedByError, "", fmt.Errorf("%w: %w", ErrPhrase, c.next.err))
		return
	}
	c.res.Turns++
	if c.prev != nil { // its late window never closed (a turn cut short): send it now
		c.release(c.prev, now)
	}
	c.prev, c.cur = c.cur, newTurn(c.res.Turns, c.next.clip, c.lateEndFrame(c.next))
	c.cur.dropped, c.droppedEarly = c.droppedEarly, 0
	c.frame, c.next = 0, nil
	c.lis.Disarm()
	c.phase = phaseSpeaking
}

// finished reports whether no further turn may start.
func (c *call) finished(now time.Time) bool {
	return (c.plan.MaxTurns > 0 && c.res.Turns >= c.plan.MaxTurns) ||
		(!c.plan.Until.IsZero() && !now.Before(c.plan.Until))
}

// endTurn closes the current turn's wait and starts the pause before the next.
func (c *call) endTurn(now time.Time, reason string) {
	c.cur.complete, c.cur.err = true, reason
	if c.finished(now) {
		c.end(EndedByCaller, "", nil)
		return
	}
	span := c.plan.PauseMax - c.plan.PauseMin
	c.pauseUntil = now.Add(c.plan.PauseMin + time.Duration(c.ph.Float64()*float64(span)))
	c.next = c.pick()
	c.phase = phasePausing
	c.setState(StatePausing)
}

// onDone ends the call when the far end did: a clean close is the agent hanging up; a refusal
// before any turn was answered means the call never connected.
func (c *call) onDone() {
	err := c.conn.Err()
	if errors.Is(err, ErrRefused) && c.prev == nil && (c.cur == nil || !c.cur.complete) {
		c.res.Connected, c.res.Connect, c.res.SessionStart, c.res.Turns, c.cur = false, nil, nil, 0, nil
	}
	if err == nil {
		if c.cur != nil {
			c.cur.hangup = true
		}
		c.end(EndedByAgent, ReasonHangup, nil)
		return
	}
	c.end(EndedByError, ReasonConnection, err)
}

// end stops the loop; an unfinished turn gets reason.
func (c *call) end(endedBy, reason string, err error) {
	c.phase = phaseDone
	c.res.EndedBy = endedBy
	if err != nil {
		c.res.Error = errorText(err)
	}
	if t := c.cur; t != nil && !t.complete {
		t.complete = true
		if t.err == "" {
			t.err = reason
		}
	}
}

// onReply attributes a reply to the turn under way: it counts if it started after the turn's
// speech began, and it is the turn's reply if it is the first to start after speech_end.
func (c *call) onReply(ev listen.Event) {
	r, t := ev.Reply, c.cur
	switch ev.Kind {
	case listen.EventReplyStarted:
		c.owner = nil
		if t == nil || t.speechStart.IsZero() || r.Start.Before(t.speechStart) {
			return
		}
		c.owner = t
		t.replies++
		if !t.speechEnd.IsZero() && t.replyStart.IsZero() && !t.complete && !r.Start.Before(t.speechEnd) {
			t.replyStart, t.replySeq = r.Start, r.Seq
		}
	case listen.EventReplyEnded:
		o := c.owner
		c.owner = nil
		if o == nil {
			return
		}
		o.underruns += r.Underruns
		o.longestGap = max(o.longestGap, r.LongestGap)
		o.agentAudio += r.AgentAudio
		if r.Seq == o.replySeq {
			o.replyEnd, o.replyDone, o.heardPending = r.End, true, ev.Transcribing
		}
	}
}

// onHeard files the caller's transcription of a reply with the turn it answered, and sends that
// turn if it was only waiting for it.
func (c *call) onHeard(h listen.Heard) {
	for i, t := range c.held {
		if t.replySeq == h.Seq {
			t.hear(h)
			c.held = slices.Delete(c.held, i, i+1)
			c.emit(t)
			return
		}
	}
	for _, t := range []*turn{c.cur, c.prev} {
		if t != nil && t.replySeq == h.Seq {
			t.hear(h)
			return
		}
	}
}

// onEvent files a final server transcript by its arrival: finals arriving while the next turn's
// first words are being spoken are late for the turn before; others belong to the latest turn.
// The agent's own reply text goes to the turn whose reply it is (onAgentText).
func (c *call) onEvent(m rtvi.Message, at time.Time) {
	if bt, ok := m.BotText(); ok {
		c.onAgentText(bt)
		return
	}
	if m.Type != rtvi.TypeUserTranscription {
		return
	}
	tr, err := m.Transcript()
	if err != nil || !tr.Final {
		return
	}
	t := c.cur
	switch {
	case t == nil:
		return // before any phrase: nothing to attribute it to
	case !t.speechStart.IsZero() && !t.lateClosed && c.prev != nil:
		c.prev.late, _ = keepText(c.prev.late, tr.Text)
	case t.speechStart.IsZero() && c.prev != nil:
		c.prev.addServer(tr.Text, at)
	default:
		t.addServer(tr.Text, at)
	}
}

// onAgentText files a piece of the agent's own reply text with the turn it answers: text arriving
// after a turn's speech end is its reply's, until the next turn's speech starts; text while a
// phrase is being spoken (a barge-in, an early reply) or before the first one (a greeting) is
// no turn's.
func (c *call) onAgentText(bt rtvi.BotText) {
	t := c.cur
	switch {
	case t == nil:
	case !t.speechEnd.IsZero():
		t.agent.add(bt)
	case t.speechStart.IsZero() && c.prev != nil:
		c.prev.agent.add(bt)
	}
}
