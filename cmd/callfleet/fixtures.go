package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/tts"
)

func init() {
	register("fixtures", "re-render the committed audio fixtures (digit-word recordings for --voices)", cmdFixtures)
}

// fixtureVoices render one folder of digit words each, in the layout --voices DIR reads: a file per
// digit word, a second take for some, at the voice's own rate (the loader resamples).
var fixtureVoices = []string{"espeak:en-us"}

func cmdFixtures(st *state, args []string) int {
	fs := st.newFlags("fixtures", "[-o DIR]")
	out := fs.String("o", "fixtures", "folder to write into")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	for _, name := range fixtureVoices {
		v, err := tts.ByName(name)
		if err != nil {
			return st.fail(exitFailure, "fixtures: %v", err)
		}
		dir := filepath.Join(*out, "voices", filepath.Base(sanitize(name)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return st.fail(exitFailure, "fixtures: %v", err)
		}
		for d := 0; d < 10; d++ {
			word := speech.Words(fmt.Sprint(d))
			takes := []string{word}
			if d%3 == 0 {
				takes = append(takes, word+".") // a second, differently phrased take
			}
			for i, text := range takes {
				pcm, err := v.Synthesize(text)
				if err != nil {
					return st.fail(exitFailure, "fixtures: %s %q: %v", name, text, err)
				}
				file := filepath.Join(dir, fmt.Sprintf("%s-%d.wav", word, i+1))
				if err := audio.WriteWAVFile(file, &audio.Clip{Rate: v.Rate(), Channels: 1, Samples: pcm}); err != nil {
					return st.fail(exitFailure, "fixtures: %v", err)
				}
			}
		}
		fmt.Fprintf(st.stdout, "wrote %s\n", dir)
	}
	return exitOK
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == ':' || c == '+' || c == '/' {
			b[i] = '-'
		}
	}
	return string(b)
}
