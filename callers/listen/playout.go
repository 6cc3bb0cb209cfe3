package listen

import "time"

// DefaultTolerance is how late audio may arrive after the buffer ran out before the shortfall
// counts as an underrun: one frame, what a far end playing 20 ms frames on its own clock can
// absorb without a dropped frame. Without it an agent pacing at exactly real time (pipecat's 40 ms
// chunks, the reference agent's 20 ms frames) would "underrun" on every microsecond of jitter.
const DefaultTolerance = FrameDuration

// Frame is one 20 ms frame the far end played.
type Frame struct {
	// PCM is FrameSamples samples at 16 kHz, valid until the next Push, Tick or Flush.
	PCM []int16
	// At is the far end's play time of the frame's first sample.
	At time.Time
	// Agent is set when the frame holds agent audio; false for the silence the far end plays with
	// nothing queued.
	Agent bool
	// Gap is set on the first frame after the buffer ran dry mid-burst: how long the far end had
	// nothing to play (an underrun, if it falls inside a reply).
	Gap time.Duration

	samples int // agent samples in the frame (fewer than FrameSamples when the buffer ran dry)
}

type playState uint8

const (
	stateIdle    playState = iota // nothing queued
	statePending                  // a burst is queued, waiting for the jitter buffer
	statePlaying                  // frames play every 20 ms from due on
	stateDry                      // the burst ran out; the next audio starts a burst after a gap
)

// Playout models the far end's playout buffer. The caller's loop Pushes agent audio as it arrives
// and calls Tick once per 20 ms tick; Tick returns the frames whose play time has come. It is not
// safe for concurrent use.
type Playout struct {
	// Delay is the jitter-buffer delay: a burst starts playing once Delay of audio is queued or
	// Delay has passed since its first arrival (0: at its first arrival).
	Delay time.Duration
	// Tolerance is how late audio may be, past the moment the buffer ran out, and still count as
	// a slip rather than an underrun.
	Tolerance time.Duration
	// Max bounds the audio queued: what a Push brings beyond it is dropped and counted (Dropped),
	// so an agent flooding faster than real time cannot grow the queue without end; 0: no bound.
	Max time.Duration

	q       []int16 // queued samples are q[head:]
	head    int
	state   playState
	first   time.Time     // first arrival of the pending burst
	due     time.Time     // play time of the next frame while playing
	dryAt   time.Time     // when the last burst ran out, while dry or pending after dry
	gap     time.Duration // underrun gap to put on the next agent frame
	wasDry  bool          // the pending burst follows a dry spell
	played  int
	playing int // samples handed out whose play has not finished by the last Tick
	dropped int // samples dropped over Max, in all
	dropAt  int // played count at which the uncredited drops were queued behind
	dropN   int // dropped samples not yet counted as played
	credit  int // dropped samples counted as played

	out     []Frame
	bufs    [][]int16
	lastEnd time.Time // end of the last frame handed out
	stale   bool      // out holds frames already returned
}

// queueSlack is the room the playout queue has over DefaultMaxAhead: transports bound how far
// ahead audio arrives, and the queue, which drains by whole frames on the caller's tick and waits
// out the jitter buffer, may hold a little more than that without any of it being dropped twice.
const queueSlack = time.Second

// NewPlayout returns a playout buffer with the given jitter-buffer delay, DefaultTolerance and a
// bound of DefaultMaxAhead (plus slack) of queued audio.
func NewPlayout(delay time.Duration) *Playout {
	return &Playout{Delay: delay, Tolerance: DefaultTolerance, Max: DefaultMaxAhead + queueSlack}
}

// Buffered is the number of samples queued and not yet played.
func (p *Playout) Buffered() int { return len(p.q) - p.head }

// Played is the number of agent samples consumed so far whose play had finished by the last
// Tick, or that were flushed: what Twilio counts to echo a mark once the audio queued before it
// is gone. Samples dropped over Max count once the audio queued before them has played.
func (p *Playout) Played() int { return p.played - p.playing + p.credit }

// Dropped is the number of agent samples dropped so far because the queue held Max.
func (p *Playout) Dropped() int { return p.dropped }

// Push queues agent audio that arrived at at. Pushes must come in arrival order.
func (p *Playout) Push(pcm []int16, at time.Time) {
	pcm = p.bound(pcm)
	if len(pcm) == 0 {
		return
	}
	if p.state == statePlaying {
		p.checkLate(at)
	}
	if p.state == stateIdle || p.state == stateDry {
		p.wasDry = p.state == stateDry
		p.state, p.first = statePending, at
	}
	p.compact()
	p.q = append(p.q, pcm...)
	if p.state == statePending && p.Buffered() >= durSamples(p.Delay) {
		p.start(minTime(p.first.Add(p.Delay), at))
	}
}

// bound returns the part of pcm that fits under Max, counting the rest as dropped.
func (p *Playout) bound(pcm []int16) []int16 {
	if p.Max <= 0 {
		return pcm
	}
	keep := max(0, min(len(pcm), durSamples(p.Max)-p.Buffered()))
	if n := len(pcm) - keep; n > 0 {
		if p.dropN == 0 {
			p.dropAt = p.played + p.Buffered() + keep // behind what this push keeps
		}
		p.dropped += n
		p.dropN += n
	}
	return pcm[:keep]
}

// creditDrops counts the pending dropped samples as played once what was queued before them has
// played: for Twilio, a mark after dropped audio is echoed when it would have been reached.
func (p *Playout) creditDrops() {
	if p.dropN > 0 && p.played-p.playing >= p.dropAt {
		p.credit += p.dropN
		p.dropN = 0
	}
}

// checkLate handles audio arriving after the queued audio ran out at end: a short slip delays
// the rest of the burst, a longer one ends it dry (an underrun candidate).
func (p *Playout) checkLate(at time.Time) {
	end := p.due.Add(samplesDur(p.Buffered()))
	late := at.Sub(end)
	switch {
	case late <= 0:
	case late < p.Tolerance:
		p.due = p.due.Add(late)
	default:
		p.runDry(end)
	}
}

// start begins playing the pending burst at t.
func (p *Playout) start(t time.Time) {
	p.state, p.due = statePlaying, t
	if p.wasDry {
		p.gap = t.Sub(p.dryAt)
		p.wasDry = false
	}
}

// runDry ends the burst at end, handing out what is left as a last frame padded with silence.
func (p *Playout) runDry(end time.Time) {
	if n := p.Buffered(); n > 0 {
		p.emit(p.q[p.head:], p.due, true)
		p.consume(n)
	}
	p.state, p.dryAt = stateDry, end
}

// Tick returns the frames whose play time is at or before now, in play order: normally one per
// 20 ms, none while a late frame might still arrive in time, and a silence frame when nothing
// plays. The slice is reused by the next call.
func (p *Playout) Tick(now time.Time) []Frame {
	p.reset()
	if p.state == statePending && !now.Before(p.first.Add(p.Delay)) {
		p.start(p.first.Add(p.Delay))
	}
	for p.state == statePlaying && !p.due.After(now) {
		if p.Buffered() >= FrameSamples {
			p.emit(p.q[p.head:p.head+FrameSamples], p.due, true)
			p.consume(FrameSamples)
			p.due = p.due.Add(FrameDuration)
			continue
		}
		end := p.due.Add(samplesDur(p.Buffered()))
		if now.Sub(end) < p.Tolerance {
			break // the rest may still arrive in time
		}
		p.runDry(end)
	}
	if len(p.out) == 0 && p.state != statePlaying {
		p.silence(now)
	}
	p.playing = 0
	for _, f := range p.out {
		if f.Agent && f.At.Add(FrameDuration).After(now) {
			p.playing += f.samples
		}
	}
	p.creditDrops()
	p.stale = true
	return p.out
}

// silence hands out one frame of nothing playing, continuing from the last frame handed out.
func (p *Playout) silence(now time.Time) {
	at := now.Add(-FrameDuration)
	if at.Before(p.lastEnd) {
		if p.lastEnd.After(now) {
			return // the last frame is still playing
		}
		at = p.lastEnd
	}
	p.emit(nil, at, false)
}

// Flush drops everything queued (Twilio clear). The dropped audio counts as consumed.
func (p *Playout) Flush() {
	p.reset()
	p.played += p.Buffered()
	p.playing = 0
	p.credit, p.dropN = p.credit+p.dropN, 0 // dropped audio queued before the clear is gone too
	p.q, p.head = p.q[:0], 0
	p.state, p.gap, p.wasDry = stateIdle, 0, false
}

func (p *Playout) consume(n int) {
	p.head += n
	p.played += n
}

// compact reclaims the consumed front of the queue before it grows.
func (p *Playout) compact() {
	switch {
	case p.head == len(p.q):
		p.q, p.head = p.q[:0], 0
	case p.head >= 4*FrameSamples && p.head >= len(p.q)/2:
		p.q = p.q[:copy(p.q, p.q[p.head:])]
		p.head = 0
	}
}

// reset forgets frames already handed out, so out can be refilled.
func (p *Playout) reset() {
	if p.stale {
		p.out, p.stale = p.out[:0], false
	}
}

// emit copies pcm (zero-padded to a frame) into a frame playing at at.
func (p *Playout) emit(pcm []int16, at time.Time, agent bool) {
	p.reset()
	i := len(p.out)
	if i == len(p.bufs) {
		p.bufs = append(p.bufs, make([]int16, FrameSamples))
	}
	buf := p.bufs[i]
	clear(buf[copy(buf, pcm):])
	f := Frame{PCM: buf, At: at, Agent: agent, samples: len(pcm)}
	if agent {
		f.Gap, p.gap = p.gap, 0
	}
	p.out = append(p.out, f)
	p.lastEnd = at.Add(FrameDuration)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
