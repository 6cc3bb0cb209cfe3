package main

import (
	"fmt"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech/stt"
)

func init() {
	register("transcribe", "print the digits heard in a mono WAV file", cmdTranscribe)
}

func cmdTranscribe(st *state, args []string) int {
	fs := st.newFlags("transcribe", "FILE.wav [--stt-url URL]\n\nPrints the digit string heard on stdout and nothing else.")
	sttURL := fs.String("stt-url", "", "OpenAI-compatible server (base URL) to transcribe with instead of the built-in PocketSphinx")
	sttModel := fs.String("stt-model", "whisper-1", "model name sent to --stt-url")
	code, ok := parse(fs, interleaved(fs, args))
	if !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	path := fs.Arg(0)
	clip, err := audio.ReadWAVFile(path)
	if err != nil {
		return st.fail(exitFailure, "transcribe: %v", err)
	}
	pcm, err := clip.Mono()
	if err != nil {
		return st.fail(exitFailure, "transcribe %s: %v", path, err)
	}
	if len(pcm) == 0 {
		return st.fail(exitFailure, "transcribe %s: %v", path, audio.ErrEmpty)
	}
	switch {
	case !audio.SupportedRate(clip.Rate):
		return st.fail(exitFailure, "transcribe %s: %v: %d Hz", path, audio.ErrRate, clip.Rate)
	case clip.Rate <= 8000:
		// Telephone-band audio: widen it so the wideband model hears its fricatives.
		pcm = audio.Widen(audio.Resample(pcm, clip.Rate, 8000))
	case clip.Rate != 16000:
		pcm = audio.Resample(pcm, clip.Rate, 16000)
	}
	var tr stt.Transcriber
	if *sttURL != "" {
		tr = &stt.OpenAI{URL: *sttURL, Model: *sttModel}
	} else {
		m, err := stt.Load(stt.DefaultConfig())
		if err != nil {
			return st.fail(exitFailure, "transcribe: %v", err)
		}
		defer m.Close()
		tr = m
	}
	digits, err := tr.Transcribe(st.ctx, pcm)
	if err != nil {
		return st.fail(exitFailure, "transcribe %s: %v", path, err)
	}
	fmt.Fprintln(st.stdout, digits)
	return exitOK
}
