package tts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/callfleet/callfleet/audio"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// espeakBinary is the program Espeak runs; espeakTimeout caps one run so a wedged process cannot
// stall a render.
var (
	espeakBinary  = "espeak-ng"
	espeakTimeout = 10 * time.Second
)

var (
	espeakMu     sync.Mutex
	espeakVoices = map[string]*espeakVoice{}
)

// espeakVoice speaks by running `espeak-ng -v VOICE --stdout --stdin` once per text. Each run is
// its own process, so the voice is safe for concurrent use.
type espeakVoice struct {
	bin   string
	voice string
	rate  int
}

// Espeak returns the espeak-ng voice VOICE ("en-us", "en+f3", ...). It runs the binary once to
// check the voice exists and learn its rate (22050 Hz for espeak-ng's own voices); the result is
// cached per process.
func Espeak(voice string) (Voice, error) {
	if !validEspeakVoice(voice) {
		return nil, fmt.Errorf("espeak voice %q: %w", voice, ErrUnknownVoice)
	}
	espeakMu.Lock()
	defer espeakMu.Unlock()
	if ev, ok := espeakVoices[voice]; ok {
		return ev, nil
	}
	bin, err := exec.LookPath(espeakBinary)
	if err != nil {
		return nil, fmt.Errorf("espeak voice %q: %w", voice, errors.Join(ErrEspeakMissing, err))
	}
	ev := &espeakVoice{bin: bin, voice: voice}
	_, rate, err := ev.run("a")
	if err != nil {
		return nil, fmt.Errorf("espeak voice %q: probe: %w", voice, err)
	}
	ev.rate = rate
	espeakVoices[voice] = ev
	return ev, nil
}

// validEspeakVoice accepts espeak-ng voice names and variants, and refuses anything that could be
// read as an option.
func validEspeakVoice(v string) bool {
	if v == "" || v[0] == '-' || v[0] == '+' {
		return false
	}
	for _, r := range v {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-+_/", r)
		if !ok {
			return false
		}
	}
	return true
}

// Name returns "espeak:VOICE".
func (e *espeakVoice) Name() string { return "espeak:" + e.voice }

// Rate returns the rate espeak-ng wrote when the voice was probed.
func (e *espeakVoice) Rate() int { return e.rate }

// Synthesize runs espeak-ng on text and returns its audio at the native rate.
func (e *espeakVoice) Synthesize(text string) ([]int16, error) {
	text = strings.TrimSpace(text)
	if !speakable(text) {
		return nil, fmt.Errorf("%s: %w", e.Name(), ErrEmptyText)
	}
	pcm, rate, err := e.run(text)
	if err != nil {
		return nil, fmt.Errorf("%s: synthesise %q: %w", e.Name(), text, err)
	}
	if rate != e.rate {
		return nil, fmt.Errorf("%s: synthesise %q: rate %d, want %d: %w", e.Name(), text, rate, e.rate, ErrBadWAV)
	}
	if len(pcm) == 0 {
		return nil, fmt.Errorf("%s: synthesise %q: no audio: %w", e.Name(), text, ErrSynthesis)
	}
	return pcm, nil
}

// SynthesizeStream speaks text clause by clause, one espeak-ng run per chunk.
func (e *espeakVoice) SynthesizeStream(ctx context.Context, text string, emit func([]int16) error) error {
	return streamChunks(ctx, e, text, emit)
}

// run feeds text on stdin (never through a shell or argv, so no text is read as an option) and
// parses the WAV espeak-ng writes to stdout.
func (e *espeakVoice) run(text string) ([]int16, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), espeakTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, "-v", e.voice, "--stdout", "--stdin")
	cmd.Stdin = strings.NewReader(text)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("espeak-ng timed out after %v: %w", espeakTimeout, ctx.Err())
		}
		if strings.Contains(msg, "does not exist") {
			return nil, 0, fmt.Errorf("espeak-ng: %s: %w", msg, ErrUnknownVoice)
		}
		return nil, 0, fmt.Errorf("espeak-ng: %s: %w", msg, err)
	}
	clip, err := audio.ReadWAV(&stdout)
	if err != nil {
		return nil, 0, fmt.Errorf("espeak-ng output: %w: %w", ErrBadWAV, err)
	}
	pcm, err := clip.Mono()
	if err != nil {
		return nil, 0, fmt.Errorf("espeak-ng output: %w: %w", ErrBadWAV, err)
	}
	return pcm, clip.Rate, nil
}
