package stt

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// Test audio is synthesised at test time, never committed (sox -R keeps its dither repeatable).
// Needs Debian packages flite, espeak-ng and sox (plus pocketsphinx-en-us for the model).

var (
	fixtureDir string
	fixtureMu  sync.Mutex
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stt-fixtures-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixtures:", err)
		os.Exit(2)
	}
	fixtureDir = dir
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// voice names: flite voices (rms, slt, awb, kal16, kal) or "espeak" for espeak-ng en-us.
type channel int

const (
	wideband channel = iota // 16 kHz straight from the synthesiser
	phone                   // 8 kHz mu-law round trip, back up to 16 kHz
)

func (c channel) String() string { return [...]string{"16k", "8k-ulaw"}[c] }

func needTool(tb testing.TB, name, pkg string) {
	tb.Helper()
	if _, err := exec.LookPath(name); err != nil {
		tb.Fatalf("%s not found; install Debian package %s", name, pkg)
	}
}

func run(tb testing.TB, name string, args ...string) {
	tb.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// synth returns 16 kHz samples of text spoken by voice, cached for the test binary's run.
func synth(tb testing.TB, voice, text string, ch channel) []int16 {
	tb.Helper()
	sum := sha1.Sum([]byte(voice + "|" + text + "|" + ch.String()))
	base := filepath.Join(fixtureDir, hex.EncodeToString(sum[:8]))
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	raw := base + ".raw"
	if _, err := os.Stat(raw); err != nil {
		needTool(tb, "sox", "sox")
		wav := base + ".wav"
		if voice == "espeak" {
			needTool(tb, "espeak-ng", "espeak-ng")
			out, err := exec.Command("espeak-ng", "-v", "en-us", "--stdout", text).Output()
			if err != nil {
				tb.Fatalf("espeak-ng %q: %v", text, err)
			}
			if err := os.WriteFile(wav, out, 0o600); err != nil {
				tb.Fatal(err)
			}
		} else {
			needTool(tb, "flite", "flite")
			run(tb, "flite", "-voice", voice, "-t", text, "-o", wav)
		}
		src := wav
		if ch == phone {
			src = base + ".ulaw.wav"
			run(tb, "sox", "-R", wav, "-r", "8000", "-c", "1", "-e", "mu-law", src)
		}
		run(tb, "sox", "-R", src, "-t", "raw", "-r", "16000", "-c", "1", "-e", "signed", "-b", "16", "-L", raw)
	}
	b, err := os.ReadFile(raw)
	if err != nil {
		tb.Fatal(err)
	}
	pcm := make([]int16, len(b)/2)
	for i := range pcm {
		pcm[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return pcm
}

var digitWords = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// speak spells digits as words; zero is "oh" when useOh, as people often say it.
func speak(digits string, useOh bool) string {
	w := make([]string, len(digits))
	for i, c := range digits {
		w[i] = digitWords[c-'0']
		if c == '0' && useOh {
			w[i] = "oh"
		}
	}
	return strings.Join(w, " ")
}

type phrase struct {
	digits string
	text   string
}

// accuracyPhrases are hand-picked: every digit, zero and oh, repeats, and 5-digit phrases.
var accuracyPhrases = []phrase{
	{"7134", "seven one three four"}, {"2580", "two five eight zero"}, {"9061", "nine oh six one"},
	{"4444", "four four four four"}, {"1029", "one zero two nine"}, {"3857", "three eight five seven"},
	{"6203", "six two oh three"}, {"8912", "eight nine one two"}, {"5076", "five zero seven six"},
	{"0415", "oh four one five"}, {"0000", "zero zero zero zero"}, {"1111", "one one one one"},
	{"98765", "nine eight seven six five"}, {"10293", "one oh two nine three"},
	{"45018", "four five zero one eight"}, {"73307", "seven three three oh seven"},
	{"20468", "two zero four six eight"}, {"31579", "three one five seven nine"},
	{"86420", "eight six four two oh"}, {"60606", "six oh six oh six"},
}

// randomPhrases draws n reproducible 4–5 digit phrases.
func randomPhrases(seed uint64, n int) []phrase {
	r := rand.New(rand.NewPCG(seed, 0x5717))
	out := make([]phrase, n)
	for i := range out {
		b := make([]byte, 4+r.IntN(2))
		for j := range b {
			b[j] = byte('0' + r.IntN(10))
		}
		out[i] = phrase{string(b), speak(string(b), r.IntN(2) == 0)}
	}
	return out
}
