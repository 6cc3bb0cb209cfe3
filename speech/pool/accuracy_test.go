//go:build accuracy

package pool

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

// The accuracy table: how often the digit transcriber hears each voice's phrases exactly right on
// every transport path. The default voices are held to 99.5 % over 1,000 phrases per path, every
// other flite voice to 90 % on the clean path over 200 (half of each in `make test`). Run with
// `make accuracy`.

type path struct {
	name string
	via  func(c *Clip, dec16 func([]byte) []int16) []int16
}

var paths = []path{
	{"clean 16 kHz", func(c *Clip, _ func([]byte) []int16) []int16 { return c.PCM }},
	{"telephone (8 kHz mu-law)", func(c *Clip, _ func([]byte) []int16) []int16 {
		var pcm8 []int16
		for _, f := range c.Mulaw {
			pcm8 = audio.MulawDecode(pcm8, f)
		}
		return audio.Widen(pcm8)
	}},
	{"Opus 48 kHz round trip", func(c *Clip, _ func([]byte) []int16) []int16 {
		dec, err := audio.NewOpusDecoder()
		if err != nil {
			panic(err)
		}
		var pcm48 []int16
		for _, p := range c.Opus {
			out, err := dec.Decode(p)
			if err != nil {
				panic(err)
			}
			pcm48 = append(pcm48, out...)
		}
		return audio.Resample(pcm48, audio.OpusRate, Rate)
	}},
}

type row struct {
	voice  string
	n      int
	pct    []float64
	misses []string
}

func TestAccuracy(t *testing.T) {
	cfg := stt.DefaultConfig()
	if a := os.Getenv("ACCURACY_STT_ARGS"); a != "" { // e.g. "-ds 2": extra decoder flags under trial
		cfg.Args = append(cfg.Args, strings.Fields(a)...)
	}
	model, err := stt.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	defaults := map[string]bool{}
	defaults[speech.DefaultCallerVoice] = true
	defaults[speech.DefaultAgentVoice] = true
	voices := []string{"flite:rms", "flite:rms/10", "flite:kal16", "flite:awb", "flite:slt", "flite:kal", "espeak:en-us", "espeak:en+f3"}
	if v := os.Getenv("ACCURACY_VOICES"); v != "" { // e.g. "flite:rms" while tuning the decoder
		voices = strings.Split(v, ",")
	}
	var rows []row
	// make test runs the table quick (ACCURACY_QUICK=1): half the phrases, same floors; make
	// accuracy, which the README's table comes from, runs it whole.
	quick := os.Getenv("ACCURACY_QUICK") == "1"
	for _, name := range voices {
		n := 200
		if defaults[name] {
			n = 1000
		}
		if quick {
			n /= 2
		}
		r := measure(t, model, name, n)
		rows = append(rows, r)
		floor := 0.0
		switch {
		case defaults[name]:
			floor = 99.5
		case name != "flite:kal" && strings.HasPrefix(name, "flite:"):
			floor = 90 // clean path only; kal is flite's 8 kHz voice, listed for comparison
		}
		for i, p := range r.pct {
			if floor > 0 && (defaults[name] || i == 0) && p < floor {
				t.Errorf("%s on %s: %.1f %% exactly right, floor %.1f %% (misses: %s)", name, paths[i].name, p, floor, strings.Join(r.misses, ", "))
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("\n| voice | phrases per path |")
	for _, p := range paths {
		sb.WriteString(" " + p.name + " |")
	}
	sb.WriteString("\n| --- | --- |" + strings.Repeat(" --- |", len(paths)) + "\n")
	for _, r := range rows {
		mark := ""
		if defaults[r.voice] {
			mark = " (default)"
		}
		fmt.Fprintf(&sb, "| %s%s | %d |", r.voice, mark, r.n)
		for _, p := range r.pct {
			fmt.Fprintf(&sb, " %.1f |", p)
		}
		sb.WriteString("\n")
	}
	fmt.Print(sb.String())
}

func measure(t *testing.T, model *stt.Model, name string, n int) row {
	t.Helper()
	v, err := tts.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(context.Background(), VoiceSource{Voice: v}, Options{Size: n, Seed: 2026, Codecs: []Codec{CodecMulaw, CodecOpus}})
	if err != nil {
		t.Fatal(err)
	}
	ok := make([]atomic.Int64, len(paths))
	var mu sync.Mutex
	var misses []string
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := p.Clip(i)
				for k, pa := range paths {
					got, err := model.Transcribe(context.Background(), pa.via(c, nil))
					if err != nil {
						t.Error(err)
						continue
					}
					if got == c.Digits {
						ok[k].Add(1)
					} else {
						mu.Lock()
						misses = append(misses, fmt.Sprintf("%s→%s (%s)", c.Digits, got, pa.name))
						mu.Unlock()
					}
				}
			}
		}()
	}
	for i := 0; i < p.Len(); i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	r := row{voice: name, n: n}
	for k := range paths {
		r.pct = append(r.pct, 100*float64(ok[k].Load())/float64(n))
	}
	sort.Strings(misses)
	if len(misses) > 10 {
		misses = misses[:10]
	}
	r.misses = misses
	return r
}
