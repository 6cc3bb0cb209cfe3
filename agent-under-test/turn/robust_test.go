package turn

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"
)

// stateChecker follows the events and checks InSpeech/InTurn, At order and frame counting.
type stateChecker struct {
	tb       testing.TB
	d        *Detector
	evs      []fired
	inSpeech bool
	inTurn   bool
	frames   int
}

func (s *stateChecker) push(pcm []int16) {
	n := s.d.NextFrame()
	e := s.d.Push(pcm)
	if len(pcm) > 0 {
		s.frames++
	}
	if s.d.NextFrame() != s.frames {
		s.tb.Fatalf("NextFrame %d after %d non-empty pushes", s.d.NextFrame(), s.frames)
	}
	if e.Kind != None {
		if len(s.evs) > 0 && e.At <= s.evs[len(s.evs)-1].At {
			s.tb.Fatalf("%v does not come after %v", e, s.evs[len(s.evs)-1])
		}
		s.evs = append(s.evs, fired{e, n})
	}
	switch e.Kind {
	case SpeechStarted, SpeechResumed:
		s.inSpeech, s.inTurn = true, true
	case SpeechStopped:
		s.inSpeech = false
	case TurnEnd:
		s.inSpeech, s.inTurn = false, false
	}
	if s.d.InSpeech() != s.inSpeech || s.d.InTurn() != s.inTurn {
		s.tb.Fatalf("after %v: InSpeech %v InTurn %v, events say %v %v", e, s.d.InSpeech(), s.d.InTurn(), s.inSpeech, s.inTurn)
	}
}

// finish pushes silence until the turn is over and checks the whole event list.
func (s *stateChecker) finish(noHold bool) {
	for i := 0; s.d.InTurn() && i < 10000; i++ {
		s.push(make([]int16, FrameSamples))
	}
	if s.d.InTurn() {
		s.tb.Fatal("the turn never ended")
	}
	checkGrammar(s.tb, s.evs, noHold)
	if countKind(s.evs, SpeechStarted) != countKind(s.evs, TurnEnd) {
		s.tb.Fatalf("unbalanced: %v", s.evs)
	}
}

// TestRandomFrames throws frames of random length (0 to 1000 samples) and content at the
// detector: nothing panics, the event grammar holds, every turn ends.
func TestRandomFrames(t *testing.T) {
	t.Parallel()
	speech := pcm(speechLike(3000, -12, 1))
	noise := pcm(whiteNoise(48000, -30, 2))
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 1))
		cfg := DefaultConfig()
		cfg.GateHold = []time.Duration{0, 20 * time.Millisecond, 400 * time.Millisecond, time.Second}[seed]
		d, err := NewDetector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := &stateChecker{tb: t, d: d}
		for range 20000 {
			s.push(randomFrame(r, speech, noise))
		}
		s.finish(cfg.GateHold == 0)
		t.Logf("seed %d: %d frames, %d events, %d turns", seed, s.frames, len(s.evs), countKind(s.evs, TurnEnd))
	}
}

// randomFrame is one of many frame shapes: empty, a single sample, extremes, noise, speech.
func randomFrame(r *rand.Rand, speech, noise []int16) []int16 {
	n := r.IntN(1001)
	if r.IntN(3) > 0 {
		n = FrameSamples
	}
	f := make([]int16, n)
	switch r.IntN(7) {
	case 0: // digital silence
	case 1:
		for i := range f {
			f[i] = int16(r.Uint32())
		}
	case 2:
		for i := range f {
			f[i] = -32768
		}
	case 3:
		for i := range f {
			f[i] = int16(32767 - 65535*(i%2))
		}
	case 4:
		copy(f, noise[r.IntN(len(noise)-1000):])
	default:
		copy(f, speech[r.IntN(len(speech)-1000):])
	}
	return f
}

// TestFrameSizes: any length is one frame; empty frames are no-ops.
func TestFrameSizes(t *testing.T) {
	x := pcm(cat(silence(500), speechLike(1500, -20, 4), silence(3000)))
	for _, size := range []int{160, 320, 480, 640} {
		d, err := NewDetector(DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		s := &stateChecker{tb: t, d: d}
		for i := 0; i+size <= len(x); i += size {
			s.push(nil)
			s.push(x[i : i+size])
		}
		s.finish(false)
		if countKind(s.evs, TurnEnd) != 1 {
			t.Errorf("%d-sample frames: %v", size, s.evs)
		}
	}
	d, _ := NewDetector(DefaultConfig())
	if e := d.Push(nil); e.Kind != None || d.NextFrame() != 0 {
		t.Fatalf("empty push: %v, next %d", e, d.NextFrame())
	}
	if e := d.Push([]int16{32767}); e.Kind != None || d.NextFrame() != 1 {
		t.Fatalf("one-sample push: %v, next %d", e, d.NextFrame())
	}
}

// FuzzDetector: bytes become samples; the first byte of each chunk sets its length.
func FuzzDetector(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, 4000))
	f.Add(binary.LittleEndian.AppendUint16(nil, 0x8000))
	for _, seed := range []uint64{1, 2} {
		var b []byte
		for _, s := range pcm(speechLike(600, -10, seed)) {
			b = binary.LittleEndian.AppendUint16(b, uint16(s))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := NewDetector(cfgMs(100, 60))
		if err != nil {
			t.Fatal(err)
		}
		s := &stateChecker{tb: t, d: d}
		for len(b) > 0 {
			n := min(len(b)-1, 2*int(b[0])*3)
			chunk := b[1 : 1+n]
			b = b[1+n:]
			frame := make([]int16, len(chunk)/2)
			for i := range frame {
				frame[i] = int16(binary.LittleEndian.Uint16(chunk[2*i:]))
			}
			for range 3 { // repeat, so short inputs still make runs
				s.push(frame)
			}
		}
		s.finish(false)
	})
}
