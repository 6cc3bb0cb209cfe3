package callers

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// Defaults for the zero fields of a Plan.
const (
	DefaultConnect      = 10 * time.Second
	DefaultAnswer       = 8 * time.Second
	DefaultReply        = 15 * time.Second
	DefaultReplySilence = listen.DefaultSilence

	// closeTimeout bounds the hang-up; heardSlack is how much longer than the ears' own Limit a
	// turn waits for its reply's transcription before it is recorded unjudged without one.
	closeTimeout = 2 * time.Second
	heardSlack   = 2 * time.Second
)

// withDefaults fills the zero fields of a plan.
func (p Plan) withDefaults() Plan {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&p.Timeouts.Connect, DefaultConnect)
	def(&p.Timeouts.Answer, DefaultAnswer)
	def(&p.Timeouts.Reply, DefaultReply)
	def(&p.ReplySilence, DefaultReplySilence)
	if p.PauseMax < p.PauseMin {
		p.PauseMax = p.PauseMin
	}
	return p
}

// caller is the Caller of one transport, pool and pair of ears.
type caller struct {
	d    Dialer
	pool *pool.Pool
	ears listen.Ears
}

var _ Caller = (*caller)(nil)

// New returns a Caller that dials with d, speaks phrases from p and hears replies with ears
// (nil: no caller-side transcription; listen.ModelEars adapts an *stt.Model).
func New(d Dialer, p *pool.Pool, ears listen.Ears) Caller { return &caller{d: d, pool: p, ears: ears} }

// Run places one call; see the package Run.
func (c *caller) Run(ctx context.Context, plan Plan, sink Sink) CallResult {
	return Run(ctx, c.d, c.pool, plan, sink, c.ears)
}

// Run places one call over d following plan: dial, wait for the agent, then speak a phrase, wait
// for and time the reply, pause, and again until plan.Until or plan.MaxTurns, then hang up. Each
// turn goes to sink once its late-transcript window has closed (or at the end of the call); the
// result goes to sink before Run returns. It returns early when ctx ends or the agent hangs up;
// every wait is bounded by the plan's timeouts. Replies are heard with ears (nil: none), shared by
// all the callers of a run.
func Run(ctx context.Context, d Dialer, p *pool.Pool, plan Plan, sink Sink, ears listen.Ears) CallResult {
	if sink == nil {
		sink = nopSink{}
	}
	c := &call{d: d, pool: p, plan: plan.withDefaults(), sink: sink, ears: ears, ph: speech.ForCall(plan.Seed, plan.Call)}
	res := c.run(ctx)
	if res.EndedBy == EndedByCaller || res.EndedBy == EndedByAgent {
		sink.State(plan.Call, StateDone)
	} else {
		sink.State(plan.Call, StateFailed)
	}
	sink.Call(res)
	return res
}

// call is one call's state, owned by the goroutine running it.
type call struct {
	d    Dialer
	pool *pool.Pool
	plan Plan
	sink Sink
	ears listen.Ears
	ph   *speech.Phrases

	t0   time.Time
	res  CallResult
	conn Conn
	lis  *listen.Listener

	audio   <-chan Chunk
	events  <-chan rtvi.Message
	flush   <-chan struct{}
	hasText bool // the target exposes server transcripts

	phase      phase
	state      State
	readyBy    time.Time
	cur, prev  *turn // the turn under way, and the one before while its late window is open
	frame      int   // next frame of cur's clip to send
	next       *clipFuture
	pauseUntil time.Time
	owner      *turn         // the turn the reply in progress counts for
	held       []*turn       // turns past their late window, waiting for their transcription
	heardWait  time.Duration // how long a turn waits for its transcription (the ears' Limit + heardSlack)

	dropped      int // agent samples the transport dropped, since the last tick
	droppedSeen  int // the listener's drop count at the last tick
	droppedEarly int // samples dropped before the first turn, for the first
	wg           sync.WaitGroup
}

func (c *call) run(ctx context.Context) CallResult {
	c.t0 = time.Now()
	c.res = CallResult{Schema: Schema, Call: c.plan.Call, Step: c.plan.Step, Transport: c.d.Name(),
		Seed: c.plan.Seed, Wall: c.t0.Round(0)}
	c.setState(StateDialing)
	if err := c.checkCodec(); err != nil {
		return c.failed(EndedByError, err)
	}
	c.next = c.pick()
	conn, err := c.dial(ctx)
	if err != nil {
		c.wg.Wait()
		endedBy := EndedByError
		if ctx.Err() != nil {
			endedBy = EndedByCancelled
		}
		return c.failed(endedBy, err)
	}
	c.conn, c.res.Connected, c.res.CallID = conn, true, conn.ID()
	c.res.Connect = c.mark(time.Now())
	c.audio, c.events, c.flush, c.hasText = conn.Audio(), conn.Events(), conn.Flush(), conn.Events() != nil
	c.lis = listen.NewListener(ctx, listen.Config{Delay: c.d.JitterBuffer(), Silence: c.plan.ReplySilence,
		MaxAhead: maxAhead(c.d)}, c.ears)
	c.heardWait = c.lis.Limit() + heardSlack
	c.loop(ctx)
	c.hangUp(ctx)
	return c.res
}

func (c *call) checkCodec() error {
	if c.pool == nil || c.pool.Len() == 0 {
		return fmt.Errorf("%w: empty pool", ErrPhrase)
	}
	cl := c.pool.Clip(0)
	ok := true
	switch c.d.Codec() {
	case pool.CodecMulaw:
		ok = len(cl.Mulaw) == cl.Frames()
	case pool.CodecOpus:
		ok = len(cl.Opus) == cl.Frames()
	}
	if !ok {
		return fmt.Errorf("%w: %s needs %v", ErrCodec, c.d.Name(), c.d.Codec())
	}
	return nil
}

// dial connects within the connect timeout.
func (c *call) dial(ctx context.Context) (Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, c.plan.Timeouts.Connect)
	defer cancel()
	conn, err := c.d.Dial(dctx, CallInfo{Call: c.plan.Call})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConnect, c.d.Name(), err)
	}
	return conn, nil
}

func (c *call) failed(endedBy string, err error) CallResult {
	c.res.EndedBy, c.res.Error = endedBy, errorText(err)
	c.res.Duration = D(time.Since(c.t0))
	return c.res
}

// hangUp closes the call, collects the last transcriptions and sends the held turns.
func (c *call) hangUp(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	if err := c.conn.Close(cctx); err != nil && c.res.Error == "" && c.res.EndedBy == EndedByCaller {
		c.res.Error = errorText(fmt.Errorf("hang up: %w", err))
	}
	c.awaitHeard(ctx)
	c.lis.Close()
	c.wg.Wait()
	rest := append(c.held, c.prev, c.cur)
	slices.SortFunc(rest, func(a, b *turn) int { return turnNumber(a) - turnNumber(b) })
	for _, t := range rest {
		if t != nil && t.heardPending {
			t.giveUpHeard(ctx.Err() != nil)
		}
		c.emit(t)
	}
	c.held, c.prev, c.cur = nil, nil, nil
	c.res.Duration = D(time.Since(c.t0))
}

func turnNumber(t *turn) int {
	if t == nil {
		return 0
	}
	return t.n
}

// awaitHeard waits, boundedly, for the transcriptions the turns still wait for.
func (c *call) awaitHeard(ctx context.Context) {
	if !c.heardPending() || ctx.Err() != nil {
		return
	}
	t := time.NewTimer(c.heardWait)
	defer t.Stop()
	for c.heardPending() {
		select {
		case h := <-c.lis.Heard():
			c.onHeard(h)
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (c *call) heardPending() bool {
	for _, t := range append([]*turn{c.prev, c.cur}, c.held...) {
		if t != nil && t.heardPending {
			return true
		}
	}
	return false
}

func (c *call) setState(s State) {
	if s != c.state {
		c.state = s
		c.sink.State(c.plan.Call, s)
	}
}

// mark is t as an offset from dial; nil for the zero time.
func (c *call) mark(t time.Time) *Ms {
	if t.IsZero() {
		return nil
	}
	m := D(t.Sub(c.t0))
	return &m
}

// clipFuture is the next phrase's clip: ready at once, or rendered off the loop (split clips).
type clipFuture struct {
	ch   chan clipResult
	clip *pool.Clip
	err  error
	done bool
}

type clipResult struct {
	clip *pool.Clip
	err  error
}

// pick draws the next phrase with the call's own generator, so a call's phrases follow from its
// seed; a split form is rendered on a goroutine since it may take tens of milliseconds.
func (c *call) pick() *clipFuture {
	base := c.pool.Pick(c.ph)
	if c.plan.Split <= 0 {
		return &clipFuture{clip: base, done: true}
	}
	f := &clipFuture{ch: make(chan clipResult, 1)}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		cl, err := c.pool.Split(base.Digits, c.plan.Split)
		f.ch <- clipResult{cl, err}
	}()
	return f
}

// ready reports whether the clip is available, without blocking.
func (f *clipFuture) ready() bool {
	if f.done {
		return true
	}
	select {
	case r := <-f.ch:
		f.clip, f.err, f.done = r.clip, r.err, true
	default:
	}
	return f.done
}

type nopSink struct{}

func (nopSink) Turn(Turn)        {}
func (nopSink) Call(CallResult)  {}
func (nopSink) State(int, State) {}
