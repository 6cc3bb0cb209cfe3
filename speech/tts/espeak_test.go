package tts

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func mustEspeak(t testing.TB, voice string) Voice {
	t.Helper()
	v, err := Espeak(voice)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEspeak(t *testing.T) {
	for _, voice := range []string{"en-us", "en+f3"} {
		t.Run(voice, func(t *testing.T) {
			v := mustEspeak(t, voice)
			if v.Name() != "espeak:"+voice || v.Rate() != 22050 {
				t.Errorf("got %s at %d Hz, want espeak:%s at 22050 Hz", v.Name(), v.Rate(), voice)
			}
			pcm := checkPhrase(t, v, "seven one three four")
			// Text that looks like options goes in on stdin, so it is spoken, not parsed.
			if got, err := v.Synthesize("--help -v xx"); err != nil || len(got) == 0 {
				t.Errorf("option-like text: %d samples, %v", len(got), err)
			}
			if again, err := v.Synthesize("seven one three four"); err != nil || !slices.Equal(pcm, again) {
				t.Errorf("espeak-ng output not deterministic (err %v)", err)
			}
			if _, err := v.Synthesize(" . "); !errors.Is(err, ErrEmptyText) {
				t.Errorf("empty text error = %v, want ErrEmptyText", err)
			}
		})
	}
}

func TestEspeakStream(t *testing.T) {
	v := mustEspeak(t, "en-us")
	n := 0
	err := v.(Streamer).SynthesizeStream(context.Background(), "Hello there. Seven one three four five six seven", func(c []int16) error {
		if len(c) == 0 {
			t.Error("empty chunk")
		}
		n++
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("stream: %d chunks, %v; want 3 chunks", n, err)
	}
}

func TestEspeakMissing(t *testing.T) {
	saved := espeakBinary
	espeakBinary = "espeak-ng-not-installed-here"
	defer func() { espeakBinary = saved }()
	// en-gb is never cached by other tests, so this run looks the binary up.
	if _, err := Espeak("en-gb"); !errors.Is(err, ErrEspeakMissing) {
		t.Errorf("Espeak with no binary: error = %v, want ErrEspeakMissing", err)
	}
}

// wavBytes builds a WAV header and data; dataSize < 0 writes the streaming placeholder.
func BenchmarkEspeak(b *testing.B) {
	v := mustEspeak(b, "en-us")
	samples, cpu0 := 0, cpuTime(b)
	for b.Loop() {
		pcm, err := v.Synthesize("seven one three four")
		if err != nil {
			b.Fatal(err)
		}
		samples += len(pcm)
	}
	reportCPU(b, cpu0, float64(samples)/float64(v.Rate()))
}
