package turn

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// fired is an event with the index of the Push that returned it.
type fired struct {
	Event
	Push int
}

func (f fired) String() string { return fmt.Sprintf("%v#%d", f.Event, f.Push) }

// runFrames pushes x in FrameSamples frames (a short tail is dropped) and collects the events.
func runFrames(tb testing.TB, d *Detector, x []int16) []fired {
	tb.Helper()
	var out []fired
	for i := 0; i+FrameSamples <= len(x); i += FrameSamples {
		n := d.NextFrame()
		if e := d.Push(x[i : i+FrameSamples]); e.Kind != None {
			out = append(out, fired{e, n})
		}
	}
	return out
}

// detect runs a fresh Detector with cfg over x.
func detect(tb testing.TB, cfg Config, x []int16) []fired {
	tb.Helper()
	d, err := NewDetector(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return runFrames(tb, d, x)
}

// classesOf is the VAD's per-frame verdict over x (the same VAD a Detector runs).
func classesOf(cfg VADConfig, x []int16) []Class {
	v := NewVAD(cfg)
	var cs []Class
	for i := 0; i+FrameSamples <= len(x); i += FrameSamples {
		c, _ := v.Classify(x[i : i+FrameSamples])
		cs = append(cs, c)
	}
	return cs
}

// speechMask is the package doc's definition of speech frames, computed offline with the whole
// stream in view (the Detector decides online): voiced runs of at least k, plus up to fringe
// unbroken non-Quiet frames on each side.
func speechMask(cs []Class, k, fringe int) []bool {
	s := make([]bool, len(cs))
	for i := 0; i < len(cs); {
		j := i
		for j < len(cs) && cs[j] == Voiced {
			j++
		}
		if j-i >= k {
			for n := i; n < j; n++ {
				s[n] = true
			}
			markFringe(s, cs, i-1, -1, fringe)
			markFringe(s, cs, j, 1, fringe)
		}
		i = max(j, i+1)
	}
	return s
}

// markFringe marks up to fringe non-Quiet frames from from in direction dir.
func markFringe(s []bool, cs []Class, from, dir, fringe int) {
	for n, left := from, fringe; n >= 0 && n < len(cs) && left > 0 && cs[n] != Quiet; n, left = n+dir, left-1 {
		s[n] = true
	}
}

// speechOf is speechMask for x under cfg.
func speechOf(cfg Config, x []int16) []bool {
	k := cfg.OnsetFrames
	if k == 0 {
		k = DefaultOnsetFrames
	}
	return speechMask(classesOf(cfg.VAD, x), k, Frames(cfg.Fringe))
}

// gapAround is the silence run (in speech frames) containing frame f: its length and the last
// speech frame before it (-1 if none).
func gapAround(speech []bool, f int) (gap, last int) {
	lo, hi := f, f
	for lo > 0 && !speech[lo-1] {
		lo--
	}
	for hi < len(speech) && !speech[hi] {
		hi++
	}
	return hi - lo, lo - 1
}

func kinds(evs []fired) string {
	var b strings.Builder
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.Kind.String())
	}
	return b.String()
}

// countKind counts events of kind k.
func countKind(evs []fired, k Kind) int {
	n := 0
	for _, e := range evs {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// checkGrammar asserts the event order a Detector promises: Started (Stopped Resumed)* Stopped
// TurnEnd per turn (no Stopped when GateHold is 0), At/Start/LastSpeech consistent.
func checkGrammar(tb testing.TB, evs []fired, noHold bool) {
	tb.Helper()
	next := map[Kind][]Kind{
		None: {SpeechStarted}, SpeechStarted: {SpeechStopped}, SpeechResumed: {SpeechStopped},
		SpeechStopped: {SpeechResumed, TurnEnd}, TurnEnd: {SpeechStarted},
	}
	if noHold {
		next[SpeechStarted] = []Kind{TurnEnd}
	}
	prev := None
	for _, e := range evs {
		ok := false
		for _, k := range next[prev] {
			ok = ok || k == e.Kind
		}
		if !ok {
			tb.Fatalf("%v after %v in %v", e, prev, evs)
		}
		if e.Start > e.LastSpeech || e.At > e.Push || (e.Kind != SpeechStarted && e.Start > e.At) {
			tb.Fatalf("inconsistent %v", e)
		}
		prev = e.Kind
	}
}

func nan() float64 { return math.NaN() }

// cfgMs is DefaultConfig with MinSilence/GateHold in ms.
func cfgMs(minSilence, hold int) Config {
	c := DefaultConfig()
	c.MinSilence = time.Duration(minSilence) * time.Millisecond
	c.GateHold = time.Duration(hold) * time.Millisecond
	return c
}
