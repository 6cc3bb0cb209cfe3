package tts

import (
	"errors"
	"slices"
	"testing"
)

func TestDigitText(t *testing.T) {
	tests := []struct {
		digits string
		style  TextStyle
		want   string
	}{
		{"7134", PlainWords, "seven one three four"},
		{"7134", FullStops, "seven. one. three. four."},
		{"0", PlainWords, "zero"},
		{"2005", PlainWordsOh, "two oh oh five"},
		{"2005", FullStopsOh, "two. oh. oh. five."},
		{"0123456789", PlainWords, "zero one two three four five six seven eight nine"},
		{"71-34 x", PlainWords, "seven one three four"},
		{"", PlainWords, ""},
		{"abc", FullStops, ""},
		{"٣4", PlainWords, "four"}, // non-ASCII digits are skipped, not spelled
	}
	for _, tc := range tests {
		if got := DigitText(tc.digits, tc.style); got != tc.want {
			t.Errorf("DigitText(%q, %d) = %q, want %q", tc.digits, tc.style, got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	names := Names()
	for _, want := range []string{"flite:kal16", "flite:awb", "flite:rms", "flite:slt", "flite:kal", "espeak:en-us", "espeak:en+f3"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, missing %q", names, want)
		}
	}
	names[0] = "mutated"
	if Names()[0] == "mutated" {
		t.Error("Names() returns the package's own slice")
	}
}

func TestByName(t *testing.T) {
	tests := []struct {
		name     string
		wantName string
		wantRate int
		wantErr  error
	}{
		{"flite:rms", "flite:rms", 16000, nil},
		{"rms", "flite:rms", 16000, nil},
		{"kal", "flite:kal", 8000, nil},
		{"flite:kal16", "flite:kal16", 16000, nil},
		{"espeak:en-us", "espeak:en-us", 22050, nil},
		{"nosuch", "", 0, ErrUnknownVoice},
		{"flite:nosuch", "", 0, ErrUnknownVoice},
		{"festival:kal", "", 0, ErrUnknownVoice},
		{"espeak:nosuchvoice", "", 0, ErrUnknownVoice}, // espeak-ng falls back on a language prefix ("no-such" speaks Norwegian), so the name has none
		{"espeak:--help", "", 0, ErrUnknownVoice},
		{"espeak:", "", 0, ErrUnknownVoice},
		{"", "", 0, ErrUnknownVoice},
	}
	for _, tc := range tests {
		v, err := ByName(tc.name)
		if errors.Is(err, ErrEspeakMissing) {
			t.Logf("ByName(%q): %v (skipped)", tc.name, err)
			continue
		}
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("ByName(%q) error = %v, want %v", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ByName(%q): %v", tc.name, err)
			continue
		}
		if v.Name() != tc.wantName || v.Rate() != tc.wantRate {
			t.Errorf("ByName(%q) = %s at %d Hz, want %s at %d Hz", tc.name, v.Name(), v.Rate(), tc.wantName, tc.wantRate)
		}
	}
}

func TestEveryBuiltinVoice(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			v, err := ByName(name)
			if errors.Is(err, ErrEspeakMissing) {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := v.(Streamer); !ok {
				t.Errorf("%s does not implement Streamer", name)
			}
			checkPhrase(t, v, "seven one three four")
		})
	}
}

// checkPhrase synthesises text and checks the audio is a plausible 1–4 s phrase with silence
// around the speech.
func checkPhrase(t *testing.T, v Voice, text string) []int16 {
	t.Helper()
	pcm, err := v.Synthesize(text)
	if err != nil {
		t.Fatalf("%s: %v", v.Name(), err)
	}
	secs := float64(len(pcm)) / float64(v.Rate())
	if secs < 1 || secs > 4 {
		t.Errorf("%s: %q lasts %.2f s, want 1–4 s", v.Name(), text, secs)
	}
	first, last, ok := VoicedBounds(pcm, v.Rate())
	if !ok || first <= 0 || last >= len(pcm)-1 || last-first < v.Rate()/2 {
		t.Errorf("%s: voiced bounds %d..%d ok=%v in %d samples", v.Name(), first, last, ok, len(pcm))
	}
	return pcm
}

func TestSplitChunks(t *testing.T) {
	// "+" after a chunk marks that its clause goes on in the next chunk.
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"seven one three four", []string{"seven one three four"}},
		{"seven one three four five", []string{"seven one three four five"}},
		{"one two three four five six seven eight nine", []string{"one two three four+", "five six seven eight nine"}},
		{"one two three four five six seven eight nine ten eleven twelve thirteen", []string{"one two three four+", "five six seven eight+", "nine ten eleven twelve thirteen"}},
		{"Hello. How can I help you today?", []string{"Hello.", "How can I help you today?"}},
		{"Yes, sir; done.) Next!", []string{"Yes,", "sir;", "done.)", "Next!"}},
		{"  spaced\n\tout  words ", []string{"spaced out words"}},
		{"3.5 percent", []string{"3.5 percent"}},
	}
	for _, tc := range tests {
		var got []string
		for _, c := range splitChunks(tc.text) {
			if c.joined {
				c.text += "+"
			}
			got = append(got, c.text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("splitChunks(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
