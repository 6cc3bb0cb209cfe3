package turn

import (
	"fmt"
	"slices"
	"testing"
)

// onsetCase is speech starting at sample s0 of x.
type onsetCase struct {
	name string
	x    []int16
	s0   int
}

// onsetCases builds speech onsets after silence or noise, at every position inside a frame, at
// the start of a call and after an earlier turn and 2.5 s of agent reply (the caller is silent
// then; the detector keeps running).
func onsetCases() []onsetCase {
	const longest = 600 + 1800 + 4000 + 20 + 1500 + 2000 // ms
	backgrounds := []struct {
		name     string
		speechDB float64
		noise    []float64
		mulaw    bool
	}{
		{"silence", -20, silence(longest), false},
		{"white -55, speech -35", -35, whiteNoise(longest*msSamples, -55, 1), false},
		{"white -40, speech -20", -20, whiteNoise(longest*msSamples, -40, 2), false},
		{"brown -40, speech -20", -20, brownNoise(longest*msSamples, -40, 3), false},
		{"mulaw, white -40, speech -20", -20, whiteNoise(longest*msSamples, -40, 4), true},
	}
	var cases []onsetCase
	for bi, bg := range backgrounds {
		phrase, earlier := speechLike(1500, bg.speechDB, uint64(10+bi)), speechLike(1800, bg.speechDB, uint64(20+bi))
		for _, off := range []int{0, 1, 80, 160, 240, 319} {
			for _, afterReply := range []bool{false, true} {
				lead := silence(600)
				if afterReply {
					lead = cat(lead, earlier, silence(1500+2500))
				}
				lead = append(lead, make([]float64, off)...)
				x := cat(lead, phrase, silence(2000))
				x = mixed(x, bg.noise)
				if bg.mulaw {
					x = mulawRoundTrip(x)
				}
				name := fmt.Sprintf("%s, +%d samples, after reply %v", bg.name, off, afterReply)
				cases = append(cases, onsetCase{name, pcm(x), len(lead)})
			}
		}
	}
	return cases
}

// TestOnsetLatency: SpeechStarted is out within 60 ms of the first sample of speech, and its At
// is the frame the speech begins in (or the next, if it begins too late in its frame to count).
func TestOnsetLatency(t *testing.T) {
	t.Parallel()
	var lat []int
	for _, c := range onsetCases() {
		evs := detect(t, DefaultConfig(), c.x)
		var start fired
		for _, e := range evs {
			if e.Kind == SpeechStarted && e.At >= c.s0/FrameSamples-1 {
				start = e
				break
			}
		}
		if start.Kind != SpeechStarted {
			t.Errorf("%s: no onset in %v", c.name, evs)
			continue
		}
		ms := ((start.Push+1)*FrameSamples - c.s0) / msSamples
		lat = append(lat, ms)
		if f0 := c.s0 / FrameSamples; ms > 60 || start.At < f0 || start.At > f0+1 {
			t.Errorf("%s: %v: %d ms after the first sample (frame %d)", c.name, start, ms, f0)
		}
		if n := countKind(evs, TurnEnd); n != countKind(evs, SpeechStarted) {
			t.Errorf("%s: %v", c.name, evs)
		}
	}
	slices.Sort(lat)
	t.Logf("onset latency over %d onsets: min %d ms, median %d ms, max %d ms", len(lat), lat[0], lat[len(lat)/2], lat[len(lat)-1])
}
