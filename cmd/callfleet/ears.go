package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/speech/stt"
)

// sttKeyEnv names the environment variable holding the --stt-url server's API key: a key on the
// command line would show in ps and in shell history.
const sttKeyEnv = "CALLFLEET_STT_API_KEY"

// registerEars adds the flags that choose the callers' ears, shared by run, probe, replay and demo.
func (rf *runFlags) registerEars(fs *flag.FlagSet) {
	fs.StringVar(&rf.STTURL, "stt-url", "", "hear the agent's replies with this OpenAI-compatible server (whisper.cpp, speaches, LocalAI):\n"+
		"each reply is posted to URL/v1/audio/transcriptions instead of the built-in transcriber, for an agent\n"+
		"whose voice the built-in one does not hear (the report's calibration says when); key in $"+sttKeyEnv)
	fs.BoolVar(&rf.STTAdapted, "stt-adapted", false, "the built-in transcriber with its digit-adapted acoustic model: hears human voices better\n"+
		"(README: accuracy), but adds digits to flite voices now and then, so off by default")
	fs.StringVar(&rf.STTModel, "stt-model", "whisper-1", "with --stt-url: the model field of each request")
	fs.IntVar(&rf.STTConcurrency, "stt-concurrency", listen.DefaultSTTConcurrency, "with --stt-url: requests in flight at once, across all callers (a reply waits for a free one; the wait is its decode_wait)")
	fs.DurationVar(&rf.STTTimeout, "stt-timeout", listen.DefaultSTTTimeout, "with --stt-url: per request; a reply not transcribed in time leaves its turn unjudged, not failed")
}

// earsErrors checks the ears flags.
func (rf *runFlags) earsErrors() []error {
	var errs []error
	if rf.STTURL != "" {
		if u, err := url.Parse(rf.STTURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--stt-url %q: want http(s)://host[:port]", rf.STTURL))
		}
	}
	if rf.STTURL != "" && rf.STTAdapted {
		errs = append(errs, errors.New("--stt-adapted is the built-in transcriber's: not with --stt-url"))
	}
	if rf.STTConcurrency < 0 {
		errs = append(errs, fmt.Errorf("--stt-concurrency %d: must be positive", rf.STTConcurrency))
	}
	if rf.STTTimeout < 0 {
		errs = append(errs, fmt.Errorf("--stt-timeout %v: must be positive", rf.STTTimeout))
	}
	return errs
}

// openEars returns the ears every caller of the run shares, and what closes them: the --stt-url
// server's, or the built-in transcriber with decoders decoding at once.
func (rf *runFlags) openEars(getenv func(string) string, decoders int) (listen.Ears, func() error, error) {
	if errs := rf.earsErrors(); len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	if rf.STTURL != "" {
		o := stt.OpenAI{URL: rf.STTURL, Model: rf.STTModel, APIKey: getenv(sttKeyEnv)}
		return listen.NewOpenAIEars(o, rf.STTConcurrency, rf.STTTimeout), func() error { return nil }, nil
	}
	sc := stt.DefaultConfig()
	// Decoders on low-priority threads (stt.Config.Nice): a burst of reply decodes queues instead
	// of starving the callers' real-time loops, and main keeps spare Ps for them.
	sc.MaxDecoders = decoders
	sc.Adapted = rf.STTAdapted
	model, err := stt.Load(sc)
	if err != nil {
		return nil, nil, fmt.Errorf("load the transcriber: %w", err)
	}
	return listen.NewBuiltinEars(model, listen.BuiltinConfig{Decoders: decoders}), model.Close, nil
}
