package callers

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// script is what the fake agent does; times are after the caller's speech_end frame.
type script struct {
	delay      time.Duration // reply audio arrives (whole reply at once)
	silent     bool
	greeting   time.Duration // a greeting of this length right after ready
	noReady    bool
	transcript time.Duration // final transcript after speech_end; 0: none
	halfFinal  bool          // also a final after the first half of a split phrase
	lateFirst  bool          // hold the first phrase's final until the next phrase is under way
	dialErr    error
	flood      time.Duration // reply with this much tone at once instead of the phrase
	dropped    int           // report this many samples dropped by the transport on each reply
	finals     []string      // send these finals too, at the transcript's time
	// botText, if set, gives the agent's own text events for a phrase, sent with its reply audio.
	botText func(digits string) []rtvi.Message
}

// fakeDialer dials fakeConns: an in-memory agent that replies with the caller's own clip.
type fakeDialer struct {
	s     script
	mu    sync.Mutex
	conns []*fakeConn
}

func (d *fakeDialer) Name() string                { return "fake" }
func (d *fakeDialer) Codec() pool.Codec           { return pool.CodecPCM16k }
func (d *fakeDialer) JitterBuffer() time.Duration { return 0 }

func (d *fakeDialer) Dial(ctx context.Context, info CallInfo) (Conn, error) {
	if d.s.dialErr != nil {
		<-ctx.Done() // a dial that hangs until its deadline
		return nil, errors.Join(d.s.dialErr, ctx.Err())
	}
	c := &fakeConn{s: d.s, audio: make(chan Chunk, 64), events: make(chan rtvi.Message, 16),
		ready: make(chan struct{}), done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if !d.s.noReady {
		close(c.ready)
		if d.s.greeting > 0 {
			c.audio <- Chunk{PCM: tone(d.s.greeting), At: time.Now()}
		}
	}
	d.mu.Lock()
	d.conns = append(d.conns, c)
	d.mu.Unlock()
	return c, nil
}

type fakeConn struct {
	s      script
	audio  chan Chunk
	events chan rtvi.Message
	ready  chan struct{}
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	frames  int
	closed  bool
	phrases []string
	held    []string // finals held for lateFirst
}

func (c *fakeConn) Send(cl *pool.Clip, i int) error {
	c.mu.Lock()
	c.frames++
	if i == 0 {
		c.phrases = append(c.phrases, cl.Digits)
	}
	c.mu.Unlock()
	now := time.Now()
	c.mu.Lock()
	held := c.held
	if i == cl.StartFrame()+2 {
		c.held = nil
	} else {
		held = nil
	}
	late := c.s.lateFirst && len(c.phrases) == 1
	c.mu.Unlock()
	for _, text := range held {
		c.final(text)
	}
	if cl.PauseStart > 0 && c.s.halfFinal && i == (cl.PauseStart-1)/pool.FrameSamples {
		c.later(200*time.Millisecond, func() { c.final(speech.Words(cl.Digits[:len(cl.Digits)/2])) })
	}
	if i != cl.EndFrame() {
		return nil
	}
	switch {
	case c.s.transcript > 0 && late:
		c.mu.Lock()
		c.held = append(c.held, speech.Words(cl.Digits))
		c.mu.Unlock()
	case c.s.transcript > 0:
		c.later(c.s.transcript, func() {
			c.final(speech.Words(cl.Digits))
			for _, text := range c.s.finals {
				c.final(text)
			}
		})
	}
	if !c.s.silent {
		reply := cl.PCM[cl.StartFrame()*pool.FrameSamples:]
		if c.s.flood > 0 {
			reply = tone(c.s.flood)
		}
		c.later(c.s.delay-time.Since(now), func() {
			if c.s.botText != nil {
				for _, m := range c.s.botText(cl.Digits) {
					c.event(m)
				}
			}
			select {
			case c.audio <- Chunk{PCM: reply, At: time.Now(), Dropped: c.s.dropped}:
			case <-c.ctx.Done():
			}
		})
	}
	return nil
}

// later runs fn after d on a goroutine that Close stops.
func (c *fakeConn) later(d time.Duration, fn func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			fn()
		case <-c.ctx.Done():
		}
	}()
}

func (c *fakeConn) final(text string) { c.event(rtvi.UserTranscription(text, true, time.Now())) }

func (c *fakeConn) event(m rtvi.Message) {
	select {
	case c.events <- m:
	case <-c.ctx.Done():
	}
}

func (c *fakeConn) SendSilence() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frames++
	return nil
}

func (c *fakeConn) Audio() <-chan Chunk { return c.audio }
func (c *fakeConn) Events() <-chan rtvi.Message {
	if c.s.transcript == 0 && c.s.botText == nil {
		return nil
	}
	return c.events
}
func (c *fakeConn) Ready() <-chan struct{} { return c.ready }
func (c *fakeConn) Played(int)             {}
func (c *fakeConn) Flush() <-chan struct{} { return nil }
func (c *fakeConn) Done() <-chan struct{}  { return c.done }
func (c *fakeConn) Err() error             { return nil }
func (c *fakeConn) ID() string             { return "fake-1" }

func (c *fakeConn) Close(context.Context) error {
	c.cancel()
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

// tone is d of a loud 440 Hz square-ish wave at 16 kHz.
func tone(d time.Duration) []int16 {
	out := make([]int16, int(d.Seconds()*16000))
	for i := range out {
		if (i/18)%2 == 0 {
			out[i] = 6000
		} else {
			out[i] = -6000
		}
	}
	return out
}

// recorder is a Sink that keeps everything.
type recorder struct {
	mu     sync.Mutex
	turns  []Turn
	calls  []CallResult
	states []State
}

func (r *recorder) Turn(t Turn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turns = append(r.turns, t)
}

func (r *recorder) Call(c CallResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

func (r *recorder) State(_ int, s State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, s)
}

var (
	poolOnce sync.Once
	kalPool  *pool.Pool
	poolErr  error
)

// testPool is a small kal16 pool (the fastest voice); these tests never transcribe.
func testPool(t testing.TB) *pool.Pool {
	t.Helper()
	poolOnce.Do(func() {
		v, err := ttsVoice("kal16")
		if err != nil {
			poolErr = err
			return
		}
		kalPool, poolErr = pool.Build(context.Background(), pool.VoiceSource{Voice: v}, pool.Options{Size: 6, Seed: 11})
	})
	if poolErr != nil {
		t.Fatalf("pool: %v", poolErr)
	}
	return kalPool
}
