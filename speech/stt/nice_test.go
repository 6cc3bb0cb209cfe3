package stt

import (
	"context"
	"testing"
)

// A niced decoder hears what a plain one hears.
func TestNiceDecodes(t *testing.T) {
	pcm := synth(t, "rms", accuracyPhrases[0].text, wideband)
	for _, nice := range []int{0, 7} {
		cfg := DefaultConfig()
		cfg.Nice = nice
		m, err := Load(cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Transcribe(context.Background(), pcm)
		if err != nil || got != accuracyPhrases[0].digits {
			t.Errorf("nice %d: heard %q (%v), want %q", nice, got, err, accuracyPhrases[0].digits)
		}
		m.Close()
	}
}
