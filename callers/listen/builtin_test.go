package listen

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

func loadModel(t *testing.T) *stt.Model {
	t.Helper()
	m, err := stt.Load(stt.DefaultConfig())
	if err != nil {
		t.Fatalf("the PocketSphinx model (run `make deps`): %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// speechLike is at least secs of digits spoken by flite kal16, which keep the decoder's search
// busy (noise or silence it prunes at once).
func speechLike(t *testing.T, secs float64) []int16 {
	t.Helper()
	v, err := tts.Flite("kal16")
	if err != nil || v.Rate() != Rate {
		t.Fatalf("flite kal16 at 16 kHz (run `make deps`): %v", err)
	}
	words, err := v.Synthesize("seven one three four five six eight nine")
	if err != nil {
		t.Fatal(err)
	}
	var pcm []int16
	for float64(len(pcm)) < secs*Rate {
		pcm = append(pcm, words...)
	}
	return pcm[:len(pcm)/FrameSamples*FrameSamples]
}

// TestBuiltinEars: the built-in ears time each decode and bound the decoders at work and the
// replies waiting for one: with one decoder busy and one reply waiting, the next is refused.
func TestBuiltinEars(t *testing.T) {
	m := loadModel(t)
	if ModelEars(nil) != nil {
		t.Fatal("ModelEars(nil) is not nil")
	}
	e := NewBuiltinEars(m, BuiltinConfig{Decoders: 1, MaxQueue: 1})
	if e.Limit() != DefaultMaxWait+decodeBound {
		t.Errorf("Limit = %v", e.Limit())
	}
	long := speechLike(t, 20)
	open := func() Session {
		s, err := e.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < len(long); off += FrameSamples {
			s.Feed(long[off : off+FrameSamples])
		}
		return s
	}
	sessions := []Session{open(), open(), open()} // fed first, so they finish back to back
	hs := make([]Hearing, 3)
	var wg sync.WaitGroup
	for i, ready := range []func(EarsStats) bool{
		func(s EarsStats) bool { return s.Busy == 1 },    // the first decodes
		func(s EarsStats) bool { return s.Waiting == 1 }, // the second waits for it
		func(s EarsStats) bool { return s.QueueFull == 1 },
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs[i] = sessions[i].Finish()
		}()
		waitFor(t, func() bool { return ready(e.Stats()) }, func() string { return fmt.Sprintf("reply %d: stats %+v", i, e.Stats()) })
	}
	wg.Wait()
	if hs[0].Unjudged != "" || hs[0].Err != nil || hs[0].Time <= 0 || hs[0].Wait > 50*time.Millisecond {
		t.Errorf("first reply: %+v", hs[0])
	}
	if hs[1].Unjudged != "" || hs[1].Wait < hs[0].Time/2 {
		t.Errorf("second reply waited %v behind a %v decode: %+v", hs[1].Wait, hs[0].Time, hs[1])
	}
	if hs[2].Unjudged != UnjudgedQueueFull {
		t.Errorf("third reply: %+v", hs[2])
	}
	s := e.Stats()
	if s.Requests != 3 || s.Heard != 2 || s.QueueFull != 1 || s.Started != 2 || s.Audio != 2*samplesDur(len(long)) ||
		s.DecodeTime != hs[0].Time+hs[1].Time || s.Cost() <= 0 || s.Slots != 1 {
		t.Errorf("stats %+v", s)
	}
	t.Logf("decode of %v: %v (%.3f s per audio second)", samplesDur(len(long)), hs[0].Time, s.Cost())
}

func TestBuiltinEarsTooLongAndClosed(t *testing.T) {
	m := loadModel(t)
	e := NewBuiltinEars(m, BuiltinConfig{})
	s, err := e.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.Feed(make([]int16, int(stt.DefaultMaxUtterance.Seconds()*Rate)+1))
	if h := s.Finish(); h.Unjudged != UnjudgedTooLong || h.Err == nil {
		t.Errorf("Hearing %+v", h)
	}
	m.Close()
	if _, err := e.Open(context.Background()); err == nil {
		t.Error("Open on a closed model")
	}
}
