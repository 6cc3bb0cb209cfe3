package listen

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Config sets up a Listener; zero fields take the defaults.
type Config struct {
	Delay     time.Duration // far end's jitter buffer (Dialer.JitterBuffer)
	Tolerance time.Duration // slip allowed before an underrun (DefaultTolerance)
	Threshold float64       // speech level in dBFS (DefaultThreshold)
	Silence   time.Duration // reply-silence window (DefaultSilence)
	PreRoll   time.Duration // audio before a reply's start given to the transcriber (200 ms)
	PostRoll  time.Duration // audio after its last voiced frame given to the transcriber (200 ms)
	MaxAhead  time.Duration // how far ahead agent audio may arrive (DefaultMaxAhead); the queue holds that plus slack
}

const defaultRoll = 200 * time.Millisecond

// Event is a reply starting or ending.
type Event struct {
	Kind  EventKind
	Reply Reply
	// Transcribing is set on a start when this reply is being transcribed (see Arm), and on its
	// end when the transcription is under way; its Heard result carries the same Reply.Seq.
	Transcribing bool
}

// Heard is the caller's transcription of one reply.
type Heard struct {
	Seq    int
	Digits string
	// Wait and Time are the reply's wait for a decoder and its decode time (Hearing).
	Wait, Time time.Duration
	// Unjudged says why the ears could not hear the reply (Hearing.Unjudged); Err has the detail.
	// An Err without Unjudged is the call's end.
	Unjudged string
	Err      error
}

// Listener plays agent audio out, detects replies and transcribes the ones it is armed for. Its
// methods are for the caller's loop goroutine; transcriptions finish on their own goroutine, one
// per reply, and are read from Heard.
type Listener struct {
	play *Playout
	det  *Detector
	ears Ears

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	heard  chan Heard

	armed   bool
	armFrom time.Time
	sess    Session // the reply being transcribed
	seq     int
	pre     ring // frames before a reply, for pre-roll
	tail    ring // unvoiced frames since the last voiced one, held back until speech resumes
	post    int  // frames of tail fed after the reply's end
	events  []Event
}

// NewListener returns a listener hearing replies with ears, which may be nil to skip
// transcription. Transcriptions stop when ctx ends or Close is called.
func NewListener(ctx context.Context, cfg Config, ears Ears) *Listener {
	if cfg.Tolerance <= 0 {
		cfg.Tolerance = DefaultTolerance
	}
	if cfg.PreRoll <= 0 {
		cfg.PreRoll = defaultRoll
	}
	if cfg.PostRoll <= 0 {
		cfg.PostRoll = defaultRoll
	}
	p := NewPlayout(cfg.Delay)
	p.Tolerance = cfg.Tolerance
	if cfg.MaxAhead > 0 {
		p.Max = cfg.MaxAhead + queueSlack
	}
	det := NewDetector(cfg.Threshold, cfg.Silence)
	lctx, cancel := context.WithCancel(ctx)
	l := &Listener{play: p, det: det, ears: ears, ctx: lctx, cancel: cancel, heard: make(chan Heard, 8)}
	if ears != nil {
		l.pre = newRing(frames(cfg.PreRoll))
		l.tail = newRing(frames(det.silence) + 1)
		l.post = frames(cfg.PostRoll)
	}
	return l
}

func frames(d time.Duration) int { return int((d + FrameDuration - 1) / FrameDuration) }

// Push queues agent audio that arrived at at.
func (l *Listener) Push(pcm []int16, at time.Time) { l.play.Push(pcm, at) }

// Flush drops queued agent audio (Twilio clear).
func (l *Listener) Flush() { l.play.Flush() }

// Played is the agent audio consumed so far, in samples (for Conn.Played).
func (l *Listener) Played() int { return l.play.Played() }

// Dropped is the agent audio dropped so far, in samples, because it arrived too far ahead.
func (l *Listener) Dropped() int { return l.play.Dropped() }

// InReply reports whether a reply is under way; Current is that reply (or the last one).
func (l *Listener) InReply() bool  { return l.det.InReply() }
func (l *Listener) Current() Reply { return l.det.Current() }

// Arm asks for the next reply that starts at or after from to be transcribed; Disarm withdraws it.
func (l *Listener) Arm(from time.Time) { l.armed, l.armFrom = true, from }
func (l *Listener) Disarm()            { l.armed = false }

// Heard delivers transcriptions, one per transcribed reply.
func (l *Listener) Heard() <-chan Heard { return l.heard }

// defaultLimit is Limit without ears: nothing is transcribed, so nothing is waited for.
const defaultLimit = 5 * time.Second

// Limit is the longest a transcription takes to come after its reply ended (Ears.Limit).
func (l *Listener) Limit() time.Duration {
	if l.ears == nil {
		return defaultLimit
	}
	return l.ears.Limit()
}

// Tick plays out the frames due at now and returns the reply events they caused; the slice is
// reused by the next call.
func (l *Listener) Tick(now time.Time) []Event {
	l.events = l.events[:0]
	for _, f := range l.play.Tick(now) {
		voiced, ev := l.det.Frame(f)
		switch ev {
		case EventReplyStarted:
			l.events = append(l.events, Event{Kind: ev, Reply: l.det.Current(), Transcribing: l.open(f)})
		case EventReplyEnded:
			l.events = append(l.events, Event{Kind: ev, Reply: l.det.Current(), Transcribing: l.finish()})
		}
		l.keep(f, voiced, ev)
	}
	return l.events
}

// open starts transcribing a reply that starts with f, if armed for it.
func (l *Listener) open(f Frame) bool {
	if !l.armed || l.ears == nil || f.At.Before(l.armFrom) {
		return false
	}
	l.armed = false
	st, err := l.ears.Open(l.ctx)
	if err != nil {
		h := Heard{Seq: l.det.Current().Seq, Err: fmt.Errorf("open reply transcription: %w", err)}
		if l.ctx.Err() == nil {
			h.Unjudged = UnjudgedClosed // only closed ears refuse a live call
		}
		select { // non-blocking: this is the loop goroutine, the only reader of heard
		case l.heard <- h:
		default:
		}
		return false
	}
	l.sess, l.seq = st, l.det.Current().Seq
	l.pre.each(st.Feed)
	l.tail.reset()
	return true
}

// keep feeds f to the open stream, holding unvoiced frames back until speech resumes so a
// reply's trailing silence is not transcribed, and remembers f for the next pre-roll.
func (l *Listener) keep(f Frame, voiced bool, ev EventKind) {
	if l.ears == nil {
		return
	}
	if l.sess != nil && ev != EventReplyEnded {
		if voiced {
			l.tail.each(l.sess.Feed)
			l.tail.reset()
			l.sess.Feed(f.PCM) // errors are sticky; Finish reports them
		} else {
			l.tail.push(f.PCM)
		}
	}
	l.pre.push(f.PCM)
}

// finish feeds the post-roll and decodes the reply on its own goroutine; false if the reply was
// not being transcribed.
func (l *Listener) finish() bool {
	st := l.sess
	if st == nil {
		return false
	}
	l.sess = nil
	n := 0
	l.tail.each(func(pcm []int16) {
		if n < l.post {
			st.Feed(pcm)
		}
		n++
	})
	l.tail.reset()
	seq := l.seq
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		h := st.Finish()
		if h.Err != nil {
			h.Err = fmt.Errorf("transcribe reply %d: %w", seq, h.Err)
		}
		l.deliver(Heard{Seq: seq, Digits: h.Digits, Wait: h.Wait, Time: h.Time, Unjudged: h.Unjudged, Err: h.Err})
	}()
	return true
}

// deliver hands a result to Heard, or drops it once the listener is closed.
func (l *Listener) deliver(h Heard) {
	select {
	case l.heard <- h:
	case <-l.ctx.Done():
	}
}

// Close abandons an open transcription and waits for running ones to end.
func (l *Listener) Close() {
	if l.sess != nil {
		l.sess.Close()
		l.sess = nil
	}
	l.cancel()
	l.wg.Wait()
}

// ring keeps the last n frames, copied.
type ring struct {
	bufs  [][]int16
	start int
	n     int
}

func newRing(n int) ring {
	r := ring{bufs: make([][]int16, max(n, 1))}
	for i := range r.bufs {
		r.bufs[i] = make([]int16, FrameSamples)
	}
	return r
}

func (r *ring) push(pcm []int16) {
	if len(r.bufs) == 0 {
		return
	}
	i := (r.start + r.n) % len(r.bufs)
	copy(r.bufs[i], pcm)
	if r.n < len(r.bufs) {
		r.n++
	} else {
		r.start = (r.start + 1) % len(r.bufs)
	}
}

func (r *ring) each(fn func([]int16)) {
	for k := 0; k < r.n; k++ {
		fn(r.bufs[(r.start+k)%len(r.bufs)])
	}
}

func (r *ring) reset() { r.start, r.n = 0, 0 }
