package stt

import (
	"bufio"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadDefault(t testing.TB, mut func(*Config)) *Model {
	t.Helper()
	cfg := DefaultConfig()
	if mut != nil {
		mut(&cfg)
	}
	m, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestDictMatchesCMUDict guards the embedded dictionary against drift from the Debian model.
func TestDictMatchesCMUDict(t *testing.T) {
	const path = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (install Debian package pocketsphinx-en-us)", err)
	}
	defer f.Close()
	want := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(digitsDict), "\n") {
		want[l] = true
	}
	base := func(w string) string { return strings.SplitN(w, "(", 2)[0] }
	found := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		word := strings.SplitN(line, " ", 2)[0]
		if _, ok := grammarDigits[base(word)]; !ok {
			continue
		}
		if !want[line] {
			t.Errorf("cmudict has %q, not in embedded digitsDict", line)
		}
		found++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if found != len(want) {
		t.Errorf("cmudict has %d digit lines, embedded %d", found, len(want))
	}
}

func TestLoadErrors(t *testing.T) {
	emptyDir := t.TempDir()
	tests := []struct {
		name    string
		mut     func(*Config)
		wantErr error
		wantMsg []string
	}{
		{"missing hmm", func(c *Config) { c.HMM = emptyDir }, ErrModelMissing,
			[]string{filepath.Join(emptyDir, "mdef"), "pocketsphinx-en-us"}},
		{"missing dict", func(c *Config) { c.Dict = filepath.Join(emptyDir, "x.dict") }, ErrModelMissing,
			[]string{"x.dict", "pocketsphinx-en-us"}},
		{"empty hmm", func(c *Config) { c.HMM = "" }, ErrBadConfig, nil},
		{"zero lw", func(c *Config) { c.LW = 0 }, ErrBadConfig, []string{"LW"}},
		{"wip > 1", func(c *Config) { c.WIP = 2 }, ErrBadConfig, []string{"WIP"}},
		{"nice > 19", func(c *Config) { c.Nice = 20 }, ErrBadConfig, []string{"Nice"}},
		{"odd args", func(c *Config) { c.Args = []string{"-beam"} }, ErrBadConfig, nil},
		{"unknown flag", func(c *Config) { c.Args = []string{"-nosuchflag", "1"} }, ErrDecoder, []string{"arguments"}},
		{"word not in dict", func(c *Config) {
			c.Grammar = "#JSGF V1.0;\ngrammar g;\npublic <g> = hello;\n"
		}, ErrDecoder, []string{"grammar"}},
		{"not jsgf", func(c *Config) { c.Grammar = "not a grammar" }, ErrBadConfig, []string{"#JSGF"}},
		{"bad jsgf", func(c *Config) {
			c.Grammar = "#JSGF V1.0;\ngrammar g;\npublic <g> = ( one ;\n"
		}, ErrDecoder, []string{"grammar"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.mut(&cfg)
			m, err := Load(cfg)
			if err == nil {
				m.Close()
				t.Fatal("Load succeeded")
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			for _, s := range tt.wantMsg {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err %q lacks %q", err, s)
				}
			}
		})
	}
}

// transcribeStream feeds pcm in 20 ms frames, as a call would.
func transcribeStream(t testing.TB, m *Model, pcm []int16) string {
	t.Helper()
	s, err := m.NewStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for off := 0; off < len(pcm); off += 320 {
		if err := s.Feed(pcm[off:min(off+320, len(pcm))]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestAccuracyFliteRMS(t *testing.T) {
	m := loadDefault(t, nil)
	exact := 0
	for _, p := range accuracyPhrases {
		pcm := synth(t, "rms", p.text, wideband)
		whole, err := m.Transcribe(context.Background(), pcm)
		if err != nil {
			t.Fatalf("%q: %v", p.text, err)
		}
		stream := transcribeStream(t, m, pcm)
		if whole != stream {
			t.Errorf("%q: whole %q != stream %q", p.text, whole, stream)
		}
		if whole == p.digits {
			exact++
		} else {
			t.Logf("%q: heard %q, want %q", p.text, whole, p.digits)
		}
	}
	rate := float64(exact) / float64(len(accuracyPhrases))
	t.Logf("exact %d/%d = %.0f%%", exact, len(accuracyPhrases), 100*rate)
	if rate < 0.95 {
		t.Errorf("accuracy %.0f%% < 95%%", 100*rate)
	}
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func TestOddInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func(n int, f func(i int) int16) []int16 {
		p := make([]int16, n)
		for i := range p {
			p[i] = f(i)
		}
		return p
	}
	tests := []struct {
		name string
		pcm  []int16
	}{
		{"nil", nil},
		{"empty", []int16{}},
		{"one sample", []int16{1000}},
		{"5 ms", gen(80, func(int) int16 { return 500 })},
		{"25 ms", gen(400, func(i int) int16 { return int16(8000 * math.Sin(float64(i)/5)) })},
		{"silence 1s", make([]int16, SampleRate)},
		{"white noise 1s", gen(SampleRate, func(int) int16 { return int16(r.IntN(20000) - 10000) })},
		{"full-scale square 2s", gen(2*SampleRate, func(i int) int16 {
			if i/40%2 == 0 {
				return math.MaxInt16
			}
			return math.MinInt16
		})},
		{"dc 1s", gen(SampleRate, func(int) int16 { return math.MaxInt16 })},
	}
	m := loadDefault(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole, err := m.Transcribe(context.Background(), tt.pcm)
			if err != nil {
				t.Fatalf("Transcribe: %v", err)
			}
			stream := transcribeStream(t, m, tt.pcm)
			if !isDigits(whole) || !isDigits(stream) {
				t.Fatalf("non-digit output whole=%q stream=%q", whole, stream)
			}
			if len(tt.pcm) == 0 && whole != "" {
				t.Errorf("empty input gave %q", whole)
			}
			t.Logf("whole=%q stream=%q", whole, stream)
		})
	}
}

func TestWordsToDigits(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"seven one three four", "7134"},
		{"nine oh six one(2)", "9061"},
		{"<s> zero <sil> zero(2) [NOISE] one </s>", "001"},
		{"Seven-one three, four.", "7134"},
		{"7 1 3 4", "7134"},
		{"The code is 7134.", "7134"},
		{"hello there", ""},
	}
	for _, tt := range tests {
		if got := wordsToDigits(tt.in); got != tt.want {
			t.Errorf("wordsToDigits(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNoStateBetweenUtterances: a pooled decoder must hear an utterance the same whatever
// it decoded before (PocketSphinx otherwise carries CMN and noise estimates across).
func TestNoStateBetweenUtterances(t *testing.T) {
	m := loadDefault(t, func(c *Config) { c.MaxDecoders = 1 })
	var pcms [][]int16
	for i, p := range randomPhrases(7, 8) {
		voice, ch := []string{"rms", "slt", "espeak", "awb"}[i%4], channel(i%2)
		pcms = append(pcms, synth(t, voice, p.text, ch))
	}
	first := make([]string, len(pcms))
	for i, pcm := range pcms {
		first[i], _ = m.Transcribe(context.Background(), pcm)
	}
	for i := len(pcms) - 1; i >= 0; i-- {
		if got, _ := m.Transcribe(context.Background(), pcms[i]); got != first[i] {
			t.Errorf("utterance %d: %q, earlier %q", i, got, first[i])
		}
	}
}
