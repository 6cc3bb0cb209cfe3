package pool

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/tts"
)

// Options say how a pool is built.
type Options struct {
	Size        int     // phrases rendered (default 128)
	Seed        uint64  // the run seed: the same seed renders the same phrases
	Codecs      []Codec // encoded forms kept beside the 16 kHz PCM
	OpusBitrate int     // bits per second (default 24000)
	Noise       []int16 // 16 kHz background noise mixed into every clip, looped; nil for none
	SNR         float64 // speech-to-noise ratio in dB for Noise
	LeadIn      time.Duration
	Workers     int // parallel renderers (default GOMAXPROCS)
}

func (o *Options) defaults() {
	if o.Size <= 0 {
		o.Size = 128
	}
	if o.OpusBitrate <= 0 {
		o.OpusBitrate = 24000
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// Pool is a fixed set of rendered phrases of one source. It is safe for concurrent use once built.
type Pool struct {
	src   Source
	opts  Options
	clips []*Clip

	mu       sync.Mutex
	byDigits map[string]*Clip
	splits   map[splitKey]*Clip
}

type splitKey struct {
	digits string
	pause  time.Duration
}

// Build renders opts.Size random phrases (from opts.Seed) with src, in parallel.
func Build(ctx context.Context, src Source, opts Options) (*Pool, error) {
	opts.defaults()
	p := &Pool{src: src, opts: opts, byDigits: map[string]*Clip{}, splits: map[splitKey]*Clip{}}
	gen := speech.NewPhrases(opts.Seed)
	seen := map[string]bool{}
	var digits []string
	for len(digits) < opts.Size {
		d := gen.Next()
		if !seen[d] {
			seen[d] = true
			digits = append(digits, d)
		}
	}
	clips, err := p.renderAll(ctx, digits)
	if err != nil {
		return nil, err
	}
	p.clips = clips
	for _, c := range clips {
		p.byDigits[c.Digits] = c
	}
	return p, nil
}

func (p *Pool) renderAll(ctx context.Context, digits []string) ([]*Clip, error) {
	clips := make([]*Clip, len(digits))
	errs := make([]error, len(digits))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < p.opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				clips[i], errs[i] = p.render(digits[i])
			}
		}()
	}
	var ctxErr error
feed:
	for i := range digits {
		select {
		case next <- i:
		case <-ctx.Done():
			ctxErr = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctxErr != nil {
		return nil, fmt.Errorf("build pool of %s: %w", p.src.Name(), ctxErr)
	}
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("build pool of %s: %w", p.src.Name(), err)
		}
	}
	return clips, nil
}

// render turns digits into a finished clip: voiced bounds, optional lead-in, noise, codecs.
func (p *Pool) render(digits string) (*Clip, error) {
	pcm, first, last, err := p.voiced(digits)
	if err != nil {
		return nil, err
	}
	lead := int(p.opts.LeadIn.Seconds() * Rate)
	out := make([]int16, lead, lead+len(pcm)+FrameSamples)
	out = append(out, pcm...)
	c := &Clip{Digits: digits, Voice: p.src.Name(), First: first + lead, Last: last + lead}
	return p.finish(c, out)
}

// voiced renders digits and finds their voiced bounds.
func (p *Pool) voiced(digits string) (pcm []int16, first, last int, err error) {
	for _, r := range digits {
		if r < '0' || r > '9' {
			return nil, 0, 0, fmt.Errorf("phrase %q: %w", digits, ErrBadDigits)
		}
	}
	pcm, err = p.src.Render(digits)
	if err != nil {
		return nil, 0, 0, err
	}
	first, last, ok := tts.VoicedBounds(pcm, Rate)
	if !ok {
		return nil, 0, 0, fmt.Errorf("phrase %q from %s: %w", digits, p.src.Name(), ErrSilent)
	}
	return pcm, first, last, nil
}

// finish pads pcm to whole frames, mixes noise in and encodes.
func (p *Pool) finish(c *Clip, pcm []int16) (*Clip, error) {
	if r := len(pcm) % FrameSamples; r != 0 {
		pcm = append(pcm, make([]int16, FrameSamples-r)...)
	}
	if p.opts.Noise != nil {
		mixNoise(pcm, p.opts.Noise, c.First, c.Last, p.opts.SNR, noiseOffset(c.Digits, len(p.opts.Noise)))
	}
	c.PCM = pcm
	if err := c.Encode(p.opts.Codecs, p.opts.OpusBitrate); err != nil {
		return nil, err
	}
	if wire := wireCodecs(p.opts.Codecs); len(wire) == 1 {
		if err := c.boundsAsSent(wire[0]); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// wireCodecs are the encoded forms among codecs (16 kHz PCM is the clip itself).
func wireCodecs(codecs []Codec) []Codec {
	var out []Codec
	for _, c := range codecs {
		if c == CodecMulaw || c == CodecOpus {
			out = append(out, c)
		}
	}
	return out
}

// Len is the number of phrases in the pool.
func (p *Pool) Len() int { return len(p.clips) }

// Clip returns the i-th phrase of the pool.
func (p *Pool) Clip(i int) *Clip { return p.clips[i] }

// Source names what the pool was rendered with.
func (p *Pool) Source() string { return p.src.Name() }

// Pick draws a phrase with the caller's own generator, so a call's phrases follow from its seed.
func (p *Pool) Pick(ph *speech.Phrases) *Clip { return p.clips[ph.IntN(len(p.clips))] }

// Get returns the clip of a given phrase, rendering it once if the pool does not hold it yet
// (a replayed call asks for the phrases it said before).
func (p *Pool) Get(digits string) (*Clip, error) {
	p.mu.Lock()
	c, ok := p.byDigits[digits]
	p.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := p.render(digits)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := p.byDigits[digits]; ok {
		return old, nil
	}
	p.byDigits[digits] = c
	return c, nil
}

// Split returns the pause-probe form of a phrase: its two halves rendered apart and joined so that
// exactly pause separates the last voiced sample of the first half from the first of the second.
func (p *Pool) Split(digits string, pause time.Duration) (*Clip, error) {
	key := splitKey{digits, pause}
	p.mu.Lock()
	c, ok := p.splits[key]
	p.mu.Unlock()
	if ok {
		return c, nil
	}
	a, b := speech.Split(digits)
	pa, fa, la, err := p.voiced(a)
	if err != nil {
		return nil, err
	}
	pb, fb, lb, err := p.voiced(b)
	if err != nil {
		return nil, err
	}
	gap := int(math.Round(pause.Seconds() * Rate))
	lead := int(p.opts.LeadIn.Seconds() * Rate)
	pcm := make([]int16, lead, lead+la+1+gap+len(pb))
	pcm = append(pcm, pa[:la+1]...)
	pcm = append(pcm, make([]int16, gap)...)
	pcm = append(pcm, pb[fb:]...)
	c = &Clip{Digits: digits, Voice: p.src.Name(), First: lead + fa, PauseStart: lead + la + 1}
	c.PauseEnd = c.PauseStart + gap
	c.Last = c.PauseEnd + (lb - fb)
	if c, err = p.finish(c, pcm); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.splits[key] = c
	return c, nil
}
