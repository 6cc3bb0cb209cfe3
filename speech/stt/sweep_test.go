//go:build sweep

package stt

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestSweep prints exact-match accuracy per decoder setting, voice and channel; DefaultConfig
// comes from its best row. Run: go test -tags 'nolibopusfile sweep' -run TestSweep -v ./speech/stt/

var sweepVoices = []string{"rms", "slt", "awb", "kal16", "espeak"}

const anyDigitsGrammar = `#JSGF V1.0;
grammar digits;
public <digits> = <d>+;
<d> = zero | oh | one | two | three | four | five | six | seven | eight | nine;
`

type sweepCase struct {
	name string
	cfg  Config
}

type utterance struct {
	voice  string
	ch     channel
	digits string
	pcm    []int16
}

func sweepCases(t *testing.T) []sweepCase {
	var cs []sweepCase
	// STT_SWEEP_ARGS="-ds 2;-topn 2" replaces the grid with the default plus each set of extra flags:
	// the cost side of the table (the cpu column) for cheaper decoders.
	if g := os.Getenv("STT_SWEEP_ARGS"); g != "" {
		cs = append(cs, sweepCase{"default", DefaultConfig()})
		for _, set := range strings.Split(g, ";") {
			c := DefaultConfig()
			c.Args = strings.Fields(set)
			cs = append(cs, sweepCase{"default, " + set, c})
		}
		return cs
	}
	// STT_SWEEP_GRID="2:1e-5,6:0.03" replaces the default grid with those lw:wip points.
	if g := os.Getenv("STT_SWEEP_GRID"); g != "" {
		for _, pt := range strings.Split(g, ",") {
			lw, wip, _ := strings.Cut(pt, ":")
			c := DefaultConfig()
			var err1, err2 error
			c.LW, err1 = strconv.ParseFloat(lw, 64)
			c.WIP, err2 = strconv.ParseFloat(wip, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("bad STT_SWEEP_GRID point %q", pt)
			}
			cs = append(cs, sweepCase{fmt.Sprintf("lw=%g wip=%g", c.LW, c.WIP), c})
		}
		return cs
	}
	for _, lw := range []float64{1, 2, 4, 6} {
		for _, wip := range []float64{1e-2, 1e-4, 1e-6} {
			c := DefaultConfig()
			c.LW, c.WIP = lw, wip
			cs = append(cs, sweepCase{fmt.Sprintf("lw=%g wip=%g", lw, wip), c})
		}
	}
	for _, pt := range [][2]float64{{2, 1e-5}, {2, 1e-7}, {3, 1e-4}, {4, 1e-3}, {5, 1e-2}, {6, 3e-2}, {8, 3e-2}} {
		c := DefaultConfig()
		c.LW, c.WIP = pt[0], pt[1]
		cs = append(cs, sweepCase{fmt.Sprintf("lw=%g wip=%g", c.LW, c.WIP), c})
	}
	extra := func(name string, f func(*Config)) {
		c := DefaultConfig()
		f(&c)
		cs = append(cs, sweepCase{name, c})
	}
	extra("default, any-length grammar", func(c *Config) { c.Grammar = anyDigitsGrammar })
	for _, a := range [][]string{
		{"-silprob", "0.05"}, {"-silprob", "0.5"}, {"-fillprob", "1e-4"}, {"-fillprob", "1e-2"},
		{"-remove_noise", "no"}, {"-remove_silence", "no"}, {"-dither", "yes"},
		{"-beam", "1e-60", "-wbeam", "1e-50"},
	} {
		extra("default, "+strings.Join(a, " "), func(c *Config) { c.Args = a })
	}
	return cs
}

func TestSweep(t *testing.T) {
	phrases := randomPhrases(2024, 60)
	var utts []utterance
	// STT_SWEEP_VOICES="rms,awb" narrows the table to those voices.
	if v := os.Getenv("STT_SWEEP_VOICES"); v != "" {
		sweepVoices = strings.Split(v, ",")
	}
	for _, v := range sweepVoices {
		for _, ch := range []channel{wideband, phone} {
			for _, p := range phrases {
				utts = append(utts, utterance{v, ch, p.digits, synth(t, v, p.text, ch)})
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| setting | %s | 16k | 8k-ulaw | all | empty | cpu-s/audio-s |\n|---|", strings.Join(sweepVoices, " | "))
	b.WriteString(strings.Repeat("---|", len(sweepVoices)+5) + "\n")
	var audio int
	for _, u := range utts {
		audio += len(u.pcm)
	}
	for _, sc := range sweepCases(t) {
		start := cpuTime(t)
		ok, empty := sweepRun(t, sc.cfg, utts)
		cpu := (cpuTime(t) - start).Seconds() / (float64(audio) / SampleRate)
		row := func(keep func(utterance) bool) string {
			n, k := 0, 0
			for i, u := range utts {
				if keep(u) {
					n++
					if ok[i] {
						k++
					}
				}
			}
			return fmt.Sprintf("%.1f", 100*float64(k)/float64(n))
		}
		fmt.Fprintf(&b, "| %s |", sc.name)
		for _, v := range sweepVoices {
			fmt.Fprintf(&b, " %s |", row(func(u utterance) bool { return u.voice == v }))
		}
		fmt.Fprintf(&b, " %s | %s | %s | %d | %.4f |\n",
			row(func(u utterance) bool { return u.ch == wideband }),
			row(func(u utterance) bool { return u.ch == phone }),
			row(func(utterance) bool { return true }), empty, cpu)
	}
	t.Log(b.String())
}

// sweepRun decodes every utterance with cfg and reports which were exact and how many were empty.
func sweepRun(t *testing.T, cfg Config, utts []utterance) (ok []bool, empty int) {
	cfg.MaxDecoders = runtime.GOMAXPROCS(0)
	m, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ok = make([]bool, len(utts))
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range cfg.MaxDecoders {
		wg.Go(func() {
			for i := range next {
				got, err := m.Transcribe(context.Background(), utts[i].pcm)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				ok[i] = got == utts[i].digits
				if got == "" {
					empty++
				}
				mu.Unlock()
			}
		})
	}
	for i := range utts {
		next <- i
	}
	close(next)
	wg.Wait()
	return ok, empty
}
