// Package tts holds the voices callers and the reference agent speak with: flite voices via cgo
// (kal, kal16, awb, rms, slt) and espeak-ng voices via its command-line binary, plus the helpers
// that turn digit strings into speakable text and find where speech starts and ends in a clip.
package tts

import (
	"context"
	"fmt"
	"strings"
)

// Voice synthesises text to mono PCM16 at Rate() samples per second.
type Voice interface {
	Name() string
	Rate() int
	Synthesize(text string) ([]int16, error)
}

// Streamer synthesises a long text piece by piece, calling emit with each chunk as soon as it is
// ready, so the first audio does not wait for the whole reply. An emit error stops the stream and
// is returned as is.
type Streamer interface {
	SynthesizeStream(ctx context.Context, text string, emit func(chunk []int16) error) error
}

// Family prefixes accepted by ByName.
const (
	familyFlite  = "flite"
	familyEspeak = "espeak"
)

// builtin lists the voices Names reports, in the order callers should prefer them.
var builtin = []string{
	"flite:kal16", "flite:awb", "flite:rms", "flite:slt", "flite:kal",
	"espeak:en-us", "espeak:en+f3",
}

// Names lists the built-in voice names in the "family:voice" form ByName accepts.
func Names() []string {
	return append([]string(nil), builtin...)
}

// ByName returns the voice for "flite:NAME", "espeak:VOICE" or a bare flite NAME (flite is the
// default family).
func ByName(name string) (Voice, error) {
	family, voice, ok := strings.Cut(name, ":")
	if !ok {
		family, voice = familyFlite, name
	}
	switch family {
	case familyFlite:
		return Flite(voice)
	case familyEspeak:
		return Espeak(voice)
	default:
		return nil, fmt.Errorf("voice %q: family %q: %w", name, family, ErrUnknownVoice)
	}
}

// TextStyle selects how DigitText joins the digit words.
type TextStyle int

const (
	// PlainWords joins digits with spaces ("seven one three four"): one breath group, which the
	// recogniser hears best (flite turns full stops into long sentence pauses).
	PlainWords TextStyle = iota
	// FullStops ends every digit with a full stop ("seven. one. three. four."): slow, separated.
	FullStops
	// PlainWordsOh is PlainWords with zero spoken as "oh".
	PlainWordsOh
	// FullStopsOh is FullStops with zero spoken as "oh".
	FullStopsOh
)

var digitWords = [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// DigitText spells a digit string as words in the given style ("7134" -> "seven one three four");
// characters other than ASCII digits are skipped.
func DigitText(digits string, style TextStyle) string {
	stops := style == FullStops || style == FullStopsOh
	oh := style == PlainWordsOh || style == FullStopsOh
	var sb strings.Builder
	for _, r := range digits {
		if r < '0' || r > '9' {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		w := digitWords[r-'0']
		if r == '0' && oh {
			w = "oh"
		}
		sb.WriteString(w)
		if stops {
			sb.WriteByte('.')
		}
	}
	return sb.String()
}
