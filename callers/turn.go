package callers

import (
	"time"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/speech/pool"
)

// turn is one turn's state while it runs and until its record is sent.
type turn struct {
	n       int
	clip    *pool.Clip
	lateEnd int // frame whose sending closes the previous turn's late-transcript window
	wall    time.Time

	speechStart, speechEnd time.Time
	replyStart, replyEnd   time.Time
	replySeq               int
	replyDone              bool
	heardPending           bool      // its reply is being transcribed
	heldSince              time.Time // when it was held back for its transcription
	replies                int
	underruns              int
	longestGap, agentAudio time.Duration
	dropped                int // agent samples dropped for arriving too far ahead, while it was the latest turn

	server   []string
	serverAt []time.Time
	late     []string
	agent    agentText // the agent's own text for its reply

	heard                  string
	decodeWait, decodeTime time.Duration
	unjudged               string // why the caller's ears could not hear the reply (Turn.Unjudged)
	heardCut               bool   // the call was stopped before the reply was heard

	lateness   []time.Duration
	lateClosed bool
	complete   bool
	hangup     bool
	err        string
}

func newTurn(n int, clip *pool.Clip, lateEnd int) *turn {
	return &turn{n: n, clip: clip, lateEnd: lateEnd, lateness: make([]time.Duration, 0, 4*clip.Frames())}
}

// lateEndFrame is the frame whose sending closes the previous turn's late window: the end of the
// phrase's first words (the first half of a split phrase), before which the agent cannot have
// finished hearing this turn.
func (c *call) lateEndFrame(f *clipFuture) int {
	cl := f.clip
	if cl == nil {
		return 0
	}
	if cl.PauseStart > cl.First {
		return (cl.PauseStart - 1) / pool.FrameSamples
	}
	return cl.EndFrame()
}

// sendFrame sends the current clip's next frame and sets the speech marks it carries.
func (c *call) sendFrame(now time.Time) error {
	t, i := c.cur, c.frame
	if i == 0 {
		t.wall = now.Round(0)
		c.setState(StateSpeaking)
	}
	if err := c.conn.Send(t.clip, i); err != nil {
		return err
	}
	if i == t.clip.StartFrame() {
		t.speechStart = now
	}
	if i == t.lateEnd && !t.lateClosed {
		t.lateClosed = true
		c.release(c.prev, now)
		c.prev = nil
	}
	if i == t.clip.EndFrame() {
		t.speechEnd = now
		c.lis.Arm(now)
	}
	c.frame++
	if c.frame == t.clip.Frames() {
		c.phase = phaseAwait
		c.setState(StateWaiting)
	}
	return nil
}

// addServer keeps a final server transcript and its arrival, up to maxTranscripts.
func (t *turn) addServer(text string, at time.Time) {
	var ok bool
	if t.server, ok = keepText(t.server, text); ok {
		t.serverAt = append(t.serverAt, at)
	}
}

// transcriptAt is the transcript mark: the first final after speech_end (the one that closes the
// turn), else the first one.
func (t *turn) transcriptAt() time.Time {
	for _, at := range t.serverAt {
		if !t.speechEnd.IsZero() && !at.Before(t.speechEnd) {
			return at
		}
	}
	if len(t.serverAt) > 0 {
		return t.serverAt[0]
	}
	return time.Time{}
}

// release sends a turn whose late window has closed, or holds it until its reply's
// transcription arrives: decodes queue when the transcriber is busy.
func (c *call) release(t *turn, now time.Time) {
	if t == nil {
		return
	}
	if t.heardPending {
		t.heldSince = now
		c.held = append(c.held, t)
		return
	}
	c.emit(t)
}

// expireHeld sends the turns whose transcription has not come within heardWait: the ears bound
// their own wait, so this is a backstop, and the turn is the generator's shortfall.
func (c *call) expireHeld(now time.Time) {
	for len(c.held) > 0 && now.Sub(c.held[0].heldSince) >= c.heardWait {
		t := c.held[0]
		c.held = c.held[1:]
		t.giveUpHeard(false)
		c.emit(t)
	}
}

// hear files the caller's transcription of the turn's reply.
func (t *turn) hear(h listen.Heard) {
	t.heard, t.heardPending = h.Digits, false
	t.decodeWait, t.decodeTime = h.Wait, h.Time
	switch {
	case h.Unjudged != "":
		t.unjudged = h.Unjudged
	case h.Err != nil:
		t.heardCut = true // an error without a reason is the call's end (Heard)
	}
}

// giveUpHeard ends the wait for a transcription that has not come: cut short when the call was
// stopped, else unjudged (the ears fell behind their own bound, or could not be waited for).
func (t *turn) giveUpHeard(cancelled bool) {
	t.heardPending = false
	if cancelled {
		t.heardCut = true
		return
	}
	t.unjudged = listen.UnjudgedTimeout
}

// overrunExplains reports whether a flood of agent audio is the likelier cause of how a turn
// ended: a reply that never seemed to start or end, or could not be transcribed, follows from
// audio dropped for arriving too far ahead; a hang-up, a lost connection or a cancel does not.
func overrunExplains(reason string) bool {
	switch reason {
	case "", ReasonNoAnswer, ReasonReplyTimeout, ReasonTranscribe:
		return true
	}
	return false
}

// emit sends a turn's record to the sink.
func (c *call) emit(t *turn) {
	if t == nil {
		return
	}
	c.sink.Turn(c.record(t))
}

func (c *call) record(t *turn) Turn {
	rec := Turn{
		Schema: Schema, Call: c.plan.Call, CallID: c.res.CallID, Step: c.plan.Step, Turn: t.n,
		Transport: c.d.Name(), Phrase: t.clip.Digits, Voice: t.clip.Voice, Wall: t.wall,
		Marks: Marks{
			SpeechStart: c.mark(t.speechStart),
			SpeechEnd:   c.mark(t.speechEnd),
			Transcript:  c.mark(t.transcriptAt()),
			ReplyStart:  c.mark(t.replyStart),
			ReplyEnd:    c.mark(t.replyEnd),
		},
		ServerTranscripts: t.server, LateTranscripts: t.late, TranscriptChannel: c.hasText,
		AgentText: t.agent.list(),
		Heard:     t.heard, Replies: t.replies,
		DecodeWait: D(t.decodeWait), DecodeTime: D(t.decodeTime), Unjudged: t.unjudged,
		AgentAudio: D(t.agentAudio), Underruns: t.underruns, LongestGap: D(t.longestGap),
		Dropped: D(time.Duration(t.dropped) * time.Second / listen.Rate),
		Error:   t.err, Hangup: t.hangup,
	}
	if c.plan.Split > 0 {
		p := D(c.plan.Split)
		rec.Pause = &p
	}
	rec.LatenessP99, rec.LatenessMax, rec.LatenessHist = latenessStats(t.lateness)
	switch {
	case t.dropped > 0 && overrunExplains(rec.Error):
		rec.Error = ReasonOverrun
	case rec.Error == "" && t.heardCut:
		rec.Error = ReasonCancelled // the turn was in flight when the run was stopped
	}
	return rec
}
