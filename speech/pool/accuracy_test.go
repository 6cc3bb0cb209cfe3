//go:build accuracy

package pool

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
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
//
// Human rows: three FSDD speakers (fixtures/voices/fsdd) through LoadRecordings, the --voices
// path, 8 kHz takes upsampled to 16 kHz ("clean"), joined with 40–160 ms gaps and 300 ms padding.
// Their floors are regression floors a few points under what was measured, NOT the goal: issue
// 15 asks for >= 97 % on human speech, which PocketSphinx does not reach. They are measured with
// the default model and with the opt-in adapted one (stt.Config.Adapted), which was adapted on
// these same speakers, so its rows overstate unseen voices.
// Perturbed rows put the default caller voice through tempo, level and noise changes.

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

// spec is one row to measure: a source, how it is built, and its floor per path (0: none).
type spec struct {
	label  string
	src    func(t *testing.T) Source
	n      int
	noise  []int16
	snr    float64
	floors []float64
	// adapted decodes with stt.Config.Adapted (opt-in, not the default) instead of DefaultConfig.
	adapted bool
}

func TestAccuracy(t *testing.T) {
	cfg := stt.DefaultConfig()
	if a := os.Getenv("ACCURACY_STT_ARGS"); a != "" { // e.g. "-ds 2": extra decoder flags under trial
		cfg.Args = append(cfg.Args, strings.Fields(a)...)
	}
	if os.Getenv("ACCURACY_STT_ADAPTED") == "1" { // every row with the adapted model, to compare
		cfg.Adapted = true
	}
	model, err := stt.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	acfg := cfg
	acfg.Adapted = true
	adapted, err := stt.Load(acfg)
	if err != nil {
		t.Fatal(err)
	}
	defer adapted.Close()
	defaults := map[string]bool{}
	defaults[speech.DefaultCallerVoice] = true
	defaults[speech.DefaultAgentVoice] = true
	var specs []spec
	for _, name := range []string{"flite:rms", "flite:rms/10", "flite:kal16", "flite:awb", "flite:slt", "flite:kal", "espeak:en-us", "espeak:en+f3"} {
		sp := spec{label: name, src: voiceSource(name), n: 200, floors: make([]float64, len(paths))}
		switch {
		case defaults[name]:
			sp.n = 1000
			for i := range sp.floors {
				sp.floors[i] = 99.5
			}
		case name != "flite:kal" && strings.HasPrefix(name, "flite:"):
			sp.floors[0] = 90 // clean path only; kal is flite's 8 kHz voice, listed for comparison
		}
		specs = append(specs, sp)
	}
	specs = append(specs, perturbedSpecs()...)
	specs = append(specs, humanSpecs()...)
	if v := os.Getenv("ACCURACY_VOICES"); v != "" { // e.g. "flite:rms" while tuning the decoder
		var keep []spec
		for _, sp := range specs {
			for _, want := range strings.Split(v, ",") {
				if sp.label == want || strings.HasPrefix(sp.label, want+" ") {
					keep = append(keep, sp)
				}
			}
		}
		specs = keep
	}
	var rows []row
	// make test runs the table quick (ACCURACY_QUICK=1): half the phrases, same floors; make
	// accuracy, which the README's table comes from, runs it whole.
	quick := os.Getenv("ACCURACY_QUICK") == "1"
	for _, sp := range specs {
		n := sp.n
		if quick {
			n /= 2
		}
		m := model
		if sp.adapted {
			m = adapted
		}
		r := measure(t, m, sp, n)
		rows = append(rows, r)
		for i, p := range r.pct {
			if f := sp.floors[i]; f > 0 && p < f {
				t.Errorf("%s on %s: %.1f %% exactly right, floor %.1f %% (misses: %s)", sp.label, paths[i].name, p, f, strings.Join(r.misses, ", "))
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

func voiceSource(name string) func(t *testing.T) Source {
	return func(t *testing.T) Source {
		v, err := tts.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		return VoiceSource{Voice: v}
	}
}

// perturbedSpecs are the default caller voice slowed, sped up, quieter and in white noise; the
// telephone column is the mu-law round trip.
func perturbedSpecs() []spec {
	rms := voiceSource(speech.DefaultCallerVoice)
	wrap := func(f func(Source) Source) func(t *testing.T) Source {
		return func(t *testing.T) Source { return f(rms(t)) }
	}
	floors := func(f ...float64) []float64 { return f }
	// Measured 100/100/100 (tempo +10 %), 100/99/100 (-10 %), 100/100/100 (-6 dB), 99.5/98/99.5
	// (noise) over 200 phrases; floors a little under.
	return []spec{
		{label: "flite:rms tempo +10 %", src: wrap(func(s Source) Source { return tempoSource{s, 1.1} }), n: 200, floors: floors(98, 98, 98)},
		{label: "flite:rms tempo -10 %", src: wrap(func(s Source) Source { return tempoSource{s, 0.9} }), n: 200, floors: floors(98, 97, 98)},
		{label: "flite:rms -6 dB", src: wrap(func(s Source) Source { return gainSource{s, -6} }), n: 200, floors: floors(98, 98, 98)},
		{label: "flite:rms white noise 30 dB SNR", src: rms, n: 200, noise: whiteNoise(Rate * 3), snr: 30, floors: floors(97, 96, 97)},
	}
}

// humanSpecs are the FSDD dev speakers (fixtures/voices/fsdd/SPEAKER) heard by the default model
// and by the opt-in adapted one; floors are measured less a few points (see the top comment).
func humanSpecs() []spec {
	// Measured (make accuracy, 200 phrases / quick, 100), clean / telephone / Opus:
	// jackson 25.5/21/29.5, 24/21/30; nicolas 5.5/6/7, 4/7/5; theo 45/36/49, 45/34/47;
	// adapted: jackson 73.5/85/72.5, 70/84/70; nicolas 26/26/25, 23/25/26; theo 98/97/96.5, 96/95/94.
	floors := map[string][]float64{
		"jackson":         {20, 17, 25},
		"nicolas":         {2, 3, 2},
		"theo":            {40, 30, 42},
		"jackson adapted": {65, 80, 65},
		"nicolas adapted": {19, 21, 20},
		"theo adapted":    {93, 92, 91},
	}
	var out []spec
	for _, adapted := range []bool{false, true} {
		for _, name := range []string{"jackson", "nicolas", "theo"} {
			label, key := "fsdd:"+name+" (dev speaker)", name
			if adapted {
				label, key = "fsdd:"+name+" adapted model (dev speaker, seen in adaptation)", name+" adapted"
			}
			out = append(out, spec{
				label: label,
				src: func(t *testing.T) Source {
					r, err := LoadRecordings(filepath.Join("..", "..", "fixtures", "voices", "fsdd", name))
					if err != nil {
						t.Fatal(err)
					}
					r.Gap, r.MaxGap, r.Pad = Rate*40/1000, Rate*160/1000, Rate*300/1000
					return r
				},
				n: 200, floors: floors[key], adapted: adapted,
			})
		}
	}
	return out
}

// tempoSource changes a source's tempo, not its pitch (sox tempo -s, tuned for speech).
type tempoSource struct {
	Source
	factor float64
}

func (s tempoSource) Name() string { return fmt.Sprintf("%s tempo×%g", s.Source.Name(), s.factor) }

func (s tempoSource) Render(digits string) ([]int16, error) {
	pcm, err := s.Source.Render(digits)
	if err != nil {
		return nil, err
	}
	raw := []string{"-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", "-L"}
	args := append(append(append([]string{"-q"}, raw...), "-"), raw...)
	args = append(args, "-", "tempo", "-s", fmt.Sprint(s.factor))
	cmd := exec.Command("sox", args...)
	in := new(bytes.Buffer)
	for _, v := range pcm {
		in.WriteByte(byte(v))
		in.WriteByte(byte(uint16(v) >> 8))
	}
	cmd.Stdin = in
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("sox tempo %g: %w", s.factor, err)
	}
	res := make([]int16, len(out)/2)
	for i := range res {
		res[i] = int16(uint16(out[2*i]) | uint16(out[2*i+1])<<8)
	}
	return res, nil
}

// gainSource scales a source by db decibels.
type gainSource struct {
	Source
	db float64
}

func (s gainSource) Name() string { return fmt.Sprintf("%s %+gdB", s.Source.Name(), s.db) }

func (s gainSource) Render(digits string) ([]int16, error) {
	pcm, err := s.Source.Render(digits)
	if err != nil {
		return nil, err
	}
	g := math.Pow(10, s.db/20)
	out := make([]int16, len(pcm))
	for i, v := range pcm {
		out[i] = int16(max(-32768, min(32767, math.Round(float64(v)*g))))
	}
	return out, nil
}

// whiteNoise is n samples of uniform noise, seeded; Options.SNR sets its level.
func whiteNoise(n int) []int16 {
	rng := rand.New(rand.NewPCG(30, 30))
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(rng.IntN(16001) - 8000)
	}
	return out
}

func measure(t *testing.T, model *stt.Model, sp spec, n int) row {
	t.Helper()
	p, err := Build(context.Background(), sp.src(t), Options{Size: n, Seed: 2026, Codecs: []Codec{CodecMulaw, CodecOpus}, Noise: sp.noise, SNR: sp.snr})
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
	r := row{voice: sp.label, n: n}
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
