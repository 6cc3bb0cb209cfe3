package pool

import (
	"fmt"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/tts"
)

// Rate is the pool's canonical sample rate: the transcriber's and the flite voices' own.
const Rate = 16000

// Source renders the words of a digit string as 16 kHz mono speech, silence around it allowed.
type Source interface {
	Name() string
	Render(digits string) ([]int16, error)
}

// VoiceSource speaks digits with a TTS voice as continuous digit words ("seven one three four"),
// the text style the transcriber hears best (full stops make flite pause between words).
type VoiceSource struct {
	Voice tts.Voice
}

var _ Source = VoiceSource{}

// Name is the voice's name.
func (s VoiceSource) Name() string { return s.Voice.Name() }

// Render synthesises the digits and resamples the result to 16 kHz.
func (s VoiceSource) Render(digits string) ([]int16, error) {
	pcm, err := s.Voice.Synthesize(speech.Words(digits))
	if err != nil {
		return nil, fmt.Errorf("render %q with %s: %w", digits, s.Voice.Name(), err)
	}
	if len(pcm) == 0 {
		return nil, fmt.Errorf("render %q with %s: %w", digits, s.Voice.Name(), ErrSilent)
	}
	if r := s.Voice.Rate(); r != Rate {
		pcm = audio.Resample(pcm, r, Rate)
	}
	return pcm, nil
}
