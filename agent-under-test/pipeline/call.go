package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/callfleet/callfleet/agent-under-test/turn"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// preRoll is how much audio before the detected onset goes to the transcriber: the debounced
// onset starts a few frames after the first sound.
const preRoll = 25

// Call is one conversation. Push is called from the transport's reader goroutine; Run owns the
// responder and the pacer. Nothing else is needed to end it but cancelling Run's context.
type Call struct {
	id   string
	cfg  Config
	deps Deps
	out  Output
	ev   Events
	rec  Recorder
	log  *slog.Logger

	// Inbound side, owned by the goroutine that calls Push.
	det     *turn.Detector
	ring    [preRoll][]int16
	ringN   int
	turnBuf []int16
	// voicedLen is turnBuf's length at the last voiced frame: echo mode replays no more.
	voicedLen int
	stream    *stt.Stream
	ctx       context.Context // set by Run before Push may use it
	ctxSet    chan struct{}

	replies chan reply
	spk     speaker

	callerInTurn atomic.Bool
	lastCaller   atomic.Int64 // unix nanos of the caller's last speech
	turns        atomic.Int64
}

type reply struct {
	text     string
	pcm      []int16   // echo mode: the audio to say, instead of text
	idle     bool      // the idle prompt, not an answer
	eotAt    time.Time // end of turn (for the stage timings)
	heardAt  time.Time // final transcript
	greeting bool
}

// New builds a call; Run starts it.
func New(id string, cfg Config, deps Deps, out Output, ev Events, rec Recorder) (*Call, error) {
	det, err := turn.NewDetector(cfg.Turn)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", id, err)
	}
	if deps.Observer == nil {
		deps.Observer = nopObserver{}
	}
	if deps.Log == nil {
		deps.Log = slog.New(slog.DiscardHandler)
	}
	c := &Call{id: id, cfg: cfg, deps: deps, out: out, ev: ev, rec: rec, log: deps.Log.With("call", id),
		det: det, replies: make(chan reply, 4), ctxSet: make(chan struct{})}
	for i := range c.ring {
		c.ring[i] = make([]int16, FrameSamples)
	}
	c.lastCaller.Store(time.Now().UnixNano())
	return c, nil
}

// ID is the call's id.
func (c *Call) ID() string { return c.id }

// Turns is the number of turns the agent heard.
func (c *Call) Turns() int { return int(c.turns.Load()) }

// Run speaks until ctx ends or the idle guard hangs up (ErrIdle). It returns nil on ctx's end.
func (c *Call) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c.ctx = ctx
	close(c.ctxSet)
	c.ev.Publish(rtvi.BotReady("", rtvi.About{Library: "callfleet-agent"}))
	if c.cfg.Greeting != "" {
		c.replies <- reply{text: c.cfg.Greeting, greeting: true}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.respond(ctx) }()
	go func() { defer wg.Done(); c.pace(ctx, cancel) }()
	wg.Wait()
	if err := context.Cause(ctx); err != ErrIdle {
		return nil
	}
	return ErrIdle
}

// Close frees what the inbound side holds; call it after the transport stops calling Push.
func (c *Call) Close() {
	if c.stream != nil {
		c.stream.Close()
		c.stream = nil
	}
}

// Push takes one 20 ms frame of the caller's audio at 16 kHz. Frames pushed before Run are
// dropped (the call is not up yet).
func (c *Call) Push(frame []int16) {
	select {
	case <-c.ctxSet:
	default:
		return
	}
	if c.rec != nil {
		c.rec.Caller(frame)
	}
	ev := c.det.Push(frame)
	c.remember(frame)
	switch ev.Kind {
	case turn.SpeechStarted:
		c.startTurn(ev)
	case turn.SpeechResumed:
		c.ev.Publish(rtvi.Event(rtvi.TypeUserStartedSpeaking))
		c.touch()
	case turn.SpeechStopped:
		c.ev.Publish(rtvi.Event(rtvi.TypeUserStoppedSpeaking))
		if !c.cfg.Echo {
			c.openStream()
		}
		// The speech stopped at its last voiced frame, MinSilence ago; keep 700 ms after it: a word's
		// fading end is quieter than the VAD's voicing, and cut at 100 ms a final "six" was heard as
		// "two eight", at 300 ms "nine eight" as "nine".
		silent := max(0, int(ev.At-ev.LastSpeech)-35)
		c.voicedLen = max(0, len(c.turnBuf)-silent*FrameSamples)
		return
	case turn.TurnEnd:
		c.feed(frame)
		c.endTurn()
		return
	}
	if c.det.InTurn() && ev.Kind != turn.SpeechStarted {
		c.feed(frame)
	}
}

func (c *Call) remember(frame []int16) {
	copy(c.ring[c.ringN%preRoll], frame)
	c.ringN++
}

func (c *Call) startTurn(ev turn.Event) {
	c.callerInTurn.Store(true)
	c.touch()
	c.ev.Publish(rtvi.Event(rtvi.TypeUserStartedSpeaking))
	if c.spk.interrupt() {
		// Barge-in: tell the transport now, not at the pacer's next tick, to stay inside 60 ms.
		c.deps.Observer.BargeIn()
		if err := c.out.Clear(); err != nil {
			c.log.Warn("clear", "err", err)
		}
		c.ev.Publish(rtvi.Event(rtvi.TypeBotStoppedSpeaking))
	}
	c.turnBuf, c.voicedLen = c.turnBuf[:0], 0
	// The frames since the onset (and a little before) are in the ring, the current one last.
	back := min(c.ringN, preRoll)
	for i := c.ringN - back; i < c.ringN; i++ {
		c.turnBuf = append(c.turnBuf, c.ring[i%preRoll]...)
	}
}

// feed keeps a turn's audio until the speech stops, then streams it to the transcriber: a decoder
// is held only through the gate hold, not the whole utterance.
func (c *Call) feed(frame []int16) {
	if c.stream == nil {
		if len(c.turnBuf) < int(c.cfg.MaxTurn.Seconds()*Rate) {
			c.turnBuf = append(c.turnBuf, frame...)
		}
		return
	}
	if err := c.stream.Feed(frame); err != nil {
		c.log.Warn("transcriber feed", "err", err)
	}
}

func (c *Call) openStream() {
	if c.stream != nil {
		return
	}
	s, err := c.deps.STT.NewStream(c.ctx)
	if err != nil {
		c.log.Warn("transcriber stream", "err", err)
		return
	}
	c.stream = s
	if err := s.Feed(c.turnBuf); err != nil {
		c.log.Warn("transcriber feed", "err", err)
	}
	c.turnBuf = c.turnBuf[:0]
}

func (c *Call) endTurn() {
	eot := time.Now()
	if c.cfg.Echo {
		c.echo(eot)
		return
	}
	c.openStream()
	text := ""
	if c.stream != nil {
		var err error
		text, err = c.stream.Finish()
		c.stream.Close()
		c.stream = nil
		if err != nil {
			c.log.Warn("transcriber finish", "err", err)
		}
	}
	c.callerInTurn.Store(false)
	c.touch()
	c.turns.Add(1)
	now := time.Now()
	c.ev.Publish(rtvi.UserTranscription(text, true, now))
	select {
	case c.replies <- reply{text: text, eotAt: eot, heardAt: now}:
	default:
		c.log.Warn("responder busy, turn dropped")
	}
}

// echo answers a turn with its own audio (Config.Echo); no transcript is published.
func (c *Call) echo(eot time.Time) {
	pcm := append([]int16(nil), c.turnBuf[:min(c.voicedLen, len(c.turnBuf))]...)
	c.turnBuf = c.turnBuf[:0]
	c.callerInTurn.Store(false)
	c.touch()
	c.turns.Add(1)
	select {
	case c.replies <- reply{pcm: pcm, eotAt: eot, heardAt: eot}:
	default:
		c.log.Warn("responder busy, turn dropped")
	}
}

func (c *Call) touch() { c.lastCaller.Store(time.Now().UnixNano()) }
