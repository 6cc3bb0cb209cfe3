package main

import (
	"strings"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/tts"
)

func init() {
	register("say", "speak a digit phrase into a WAV file", cmdSay)
}

func cmdSay(st *state, args []string) int {
	fs := st.newFlags("say", "DIGITS -o out.wav [--voice NAME] [--rate 8000|16000|48000]")
	out := fs.String("o", "", "output WAV file (required)")
	voice := fs.String("voice", speech.DefaultCallerVoice, "voice: "+strings.Join(tts.Names(), ", "))
	rate := fs.Int("rate", 16000, "sample rate of the file: 8000, 16000, 24000 or 48000")
	code, ok := parse(fs, interleaved(fs, args))
	if !ok {
		return code
	}
	if fs.NArg() != 1 || *out == "" {
		fs.Usage()
		return exitUsage
	}
	digits := fs.Arg(0)
	if d := speech.Normalize(digits); d != digits || d == "" {
		return st.fail(exitUsage, "say: %q is not a digit string (e.g. 71345)", digits)
	}
	if !audio.SupportedRate(*rate) {
		return st.fail(exitUsage, "say: --rate %d: want 8000, 16000, 24000 or 48000", *rate)
	}
	v, err := tts.ByName(*voice)
	if err != nil {
		return st.fail(exitUsage, "say: %v", err)
	}
	pcm, err := v.Synthesize(speech.Words(digits))
	if err != nil {
		return st.fail(exitFailure, "say: %v", err)
	}
	if v.Rate() != *rate {
		pcm = audio.Resample(pcm, v.Rate(), *rate)
	}
	if err := audio.WriteWAVFile(*out, &audio.Clip{Rate: *rate, Channels: 1, Samples: pcm}); err != nil {
		return st.fail(exitFailure, "say: %v", err)
	}
	return exitOK
}
