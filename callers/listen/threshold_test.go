package listen

import (
	"context"
	"slices"
	"testing"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/tts"
)

// TestThresholdOnVoices checks the default speech threshold against the voiced bounds the pool
// records, on what a caller hears of agent voices through Twilio (8 kHz mu-law, back to 16 kHz):
// the first voiced frame is never before the clip's first voiced sample's frame, and is at most
// one frame after it for the median phrase.
func TestThresholdOnVoices(t *testing.T) {
	for _, name := range []string{"rms", "kal16"} {
		v, err := tts.Flite(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := pool.Build(context.Background(), pool.VoiceSource{Voice: v}, pool.Options{Size: 20, Seed: 3, Codecs: []pool.Codec{pool.CodecMulaw}})
		if err != nil {
			t.Fatal(err)
		}
		d := NewDetector(0, 0)
		var offsets []int
		for i := 0; i < p.Len(); i++ {
			c := p.Clip(i)
			var mu []byte
			for _, f := range c.Mulaw {
				mu = append(mu, f...)
			}
			pcm := audio.Resample(audio.MulawDecode(nil, mu), 8000, Rate)
			first := -1
			for f := 0; f+FrameSamples <= len(pcm) && first < 0; f += FrameSamples {
				if d.Voiced(pcm[f : f+FrameSamples]) {
					first = f / FrameSamples
				}
			}
			offsets = append(offsets, first-c.StartFrame())
		}
		slices.Sort(offsets)
		t.Logf("%s: first voiced frame minus the clip's start frame: %v", name, offsets)
		if offsets[0] < 0 || offsets[len(offsets)/2] > 1 {
			t.Errorf("%s: onset offsets %v frames, want none negative and a median of at most 1", name, offsets)
		}
	}
}
