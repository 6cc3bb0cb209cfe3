package tts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var fliteNames = []string{"kal", "kal16", "awb", "rms", "slt"}

func TestFliteVoices(t *testing.T) {
	wantRate := map[string]int{"kal": 8000, "kal16": 16000, "awb": 16000, "rms": 16000, "slt": 16000}
	for _, name := range fliteNames {
		t.Run(name, func(t *testing.T) {
			v, err := Flite(name)
			if err != nil {
				t.Fatal(err)
			}
			if v.Name() != "flite:"+name || v.Rate() != wantRate[name] {
				t.Errorf("got %s at %d Hz, want flite:%s at %d Hz", v.Name(), v.Rate(), name, wantRate[name])
			}
			again, err := Flite(name)
			if err != nil || again != v {
				t.Errorf("second Flite(%q) = %p, %v; want the registered voice %p", name, again, err, v)
			}
			pcm := checkPhrase(t, v, "seven one three four")
			// Deterministic: clustergen voices reseed their noise per utterance.
			if pcm2, err := v.Synthesize("seven one three four"); err != nil || !slices.Equal(pcm, pcm2) {
				t.Errorf("second synthesis differs (err %v)", err)
			}
		})
	}
}

// A vocoder speed-up is its own voice: same rate, different (but deterministic) audio, and the
// plain voice is untouched by it.
func TestFliteSpeedUp(t *testing.T) {
	plain, err := Flite("rms")
	if err != nil {
		t.Fatal(err)
	}
	fast, err := Flite("rms/10")
	if err != nil {
		t.Fatal(err)
	}
	if fast.Name() != "flite:rms/10" || fast.Rate() != plain.Rate() {
		t.Errorf("got %s at %d Hz, want flite:rms/10 at %d Hz", fast.Name(), fast.Rate(), plain.Rate())
	}
	a := checkPhrase(t, plain, "seven one three four")
	b := checkPhrase(t, fast, "seven one three four")
	if slices.Equal(a, b) {
		t.Error("rms/10 spoke exactly as rms: the speed-up was not applied")
	}
	if again := checkPhrase(t, plain, "seven one three four"); !slices.Equal(a, again) {
		t.Error("rms changed after rms/10 spoke: the speed-up leaked into the shared voice")
	}
	if again := checkPhrase(t, fast, "seven one three four"); !slices.Equal(b, again) {
		t.Error("rms/10 is not deterministic")
	}
	for _, bad := range []string{"kal16/10", "rms/x", "rms/-1", "rms/21", "rms/", "nope/3"} {
		if _, err := Flite(bad); !errors.Is(err, ErrUnknownVoice) {
			t.Errorf("Flite(%q) error = %v, want ErrUnknownVoice", bad, err)
		}
	}
}

func TestFliteEmptyText(t *testing.T) {
	v, err := Flite("kal16")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "   ", "...", "?!"} {
		if _, err := v.Synthesize(text); !errors.Is(err, ErrEmptyText) {
			t.Errorf("Synthesize(%q) error = %v, want ErrEmptyText", text, err)
		}
	}
	if _, err := v.Synthesize("a\x00b"); !errors.Is(err, ErrBadText) {
		t.Errorf("Synthesize with NUL: error = %v, want ErrBadText", err)
	}
	// Symbols flite has no words for give an error or audio, never a crash.
	for _, text := range []string{"…", "— —", "🙂", "\xff\xfe"} {
		if pcm, err := v.Synthesize(text); err != nil && !errors.Is(err, ErrSynthesis) {
			t.Errorf("Synthesize(%q) = %d samples, %v", text, len(pcm), err)
		}
	}
	// Odd but speakable text still yields audio.
	for _, text := range []string{"7", "x", "Dr.", "$3.50", "über"} {
		if pcm, err := v.Synthesize(text); err != nil || len(pcm) == 0 {
			t.Errorf("Synthesize(%q) = %d samples, %v", text, len(pcm), err)
		}
	}
}

func TestFliteUnknown(t *testing.T) {
	for _, name := range []string{"", "KAL", "kal8", "flite:kal", "cmu_us_kal"} {
		if _, err := Flite(name); !errors.Is(err, ErrUnknownVoice) {
			t.Errorf("Flite(%q) error = %v, want ErrUnknownVoice", name, err)
		}
	}
}

// TestFliteConcurrent synthesises on one shared voice from 4 goroutines (and on all voices at
// once) and checks every output equals the serial one. The race detector cannot see inside C;
// this checks flite's re-entrancy by its results.
func TestFliteConcurrent(t *testing.T) {
	texts := []string{"seven one three four", "two zero nine nine five", "Hello, how can I help you today?", "your number is 4 5 6"}
	want := map[string]map[string][]int16{}
	for _, name := range fliteNames {
		v, err := Flite(name)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = map[string][]int16{}
		for _, text := range texts {
			if want[name][text], err = v.Synthesize(text); err != nil {
				t.Fatal(err)
			}
		}
	}
	run := func(t *testing.T, voices []string, goroutines, rounds int) {
		var wg sync.WaitGroup
		errs := make(chan error, goroutines*rounds)
		for g := range goroutines {
			wg.Go(func() {
				for r := range rounds {
					name := voices[(g+r)%len(voices)]
					text := texts[(g+r)%len(texts)]
					v, err := Flite(name)
					if err != nil {
						errs <- err
						continue
					}
					got, err := v.Synthesize(text)
					if err != nil {
						errs <- err
					} else if !slices.Equal(got, want[name][text]) {
						errs <- fmt.Errorf("%s %q: concurrent output differs from serial", name, text)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	// Diphone voices run unlocked, so they get the most rounds; clustergen ones serialise.
	for _, name := range fliteNames {
		rounds := 20
		if fliteClustergen[name] {
			rounds = 2
		}
		t.Run(name, func(t *testing.T) { run(t, []string{name}, 4, rounds) })
	}
	t.Run("mixed", func(t *testing.T) { run(t, fliteNames, 4, 5) })
}

const longReply = "Thank you for calling. I can see your account here, and the balance is " +
	"forty two dollars and ten cents which is due on the third of next month so " +
	"there is nothing more to pay today. Is there anything else I can help with"

func TestFliteStream(t *testing.T) {
	if n := len(strings.Fields(longReply)); n < 30 {
		t.Fatalf("long reply has %d words, want at least 30", n)
	}
	for _, name := range []string{"kal16", "slt"} {
		t.Run(name, func(t *testing.T) {
			v, err := Flite(name)
			if err != nil {
				t.Fatal(err)
			}
			// Best of 3 runs: other processes on a shared machine can stall any single one.
			var chunks [][]int16
			var firstAt, total time.Duration
			for range 3 {
				if chunks, firstAt, total = streamTimed(t, v.(Streamer)); firstAt*3 < total {
					break
				}
			}
			want := splitChunks(longReply)
			if len(chunks) != len(want) {
				t.Fatalf("%d chunks, want %d", len(chunks), len(want))
			}
			for i, c := range chunks {
				ref, err := v.Synthesize(want[i].text)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 && !slices.Equal(c, ref[:len(c)]) || !within(c, ref) {
					t.Errorf("chunk %d (%q) is not a cut of Synthesize's %d samples", i, want[i].text, len(ref))
				}
				if _, _, ok := VoicedBounds(c, v.Rate()); !ok || len(c) < len(ref)/3 {
					t.Errorf("chunk %d (%q): %d of %d samples kept", i, want[i].text, len(c), len(ref))
				}
			}
			t.Logf("%s: %d chunks, first after %v, all after %v", name, len(chunks), firstAt, total)
			if firstAt*3 > total {
				t.Errorf("first chunk after %v, want well under a third of %v", firstAt, total)
			}
		})
	}
}

// streamTimed streams longReply and returns its chunks and the times to the first and last one.
func streamTimed(t *testing.T, s Streamer) (chunks [][]int16, firstAt, total time.Duration) {
	t.Helper()
	start := time.Now()
	err := s.SynthesizeStream(context.Background(), longReply, func(c []int16) error {
		if chunks == nil {
			firstAt = time.Since(start)
		}
		chunks = append(chunks, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return chunks, firstAt, time.Since(start)
}

// within reports whether part occurs as a contiguous run in whole.
func within(part, whole []int16) bool {
	for off := 0; off+len(part) <= len(whole); off++ {
		if slices.Equal(part, whole[off:off+len(part)]) {
			return true
		}
	}
	return false
}

func TestFliteStreamStops(t *testing.T) {
	v, err := Flite("kal16")
	if err != nil {
		t.Fatal(err)
	}
	s := v.(Streamer)
	stop := errors.New("listener hung up")
	n := 0
	err = s.SynthesizeStream(context.Background(), longReply, func([]int16) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("emit error: got %v after %d chunks, want %v after 1", err, n, stop)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n = 0
	err = s.SynthesizeStream(ctx, longReply, func([]int16) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancel: got %v after %d chunks, want context.Canceled after 1", err, n)
	}
	if err := s.SynthesizeStream(context.Background(), " ... ", func([]int16) error { return nil }); !errors.Is(err, ErrEmptyText) {
		t.Errorf("empty stream error = %v, want ErrEmptyText", err)
	}
}

// BenchmarkFlite reports the cost of one digit phrase per voice, and per second of audio.
func BenchmarkFlite(b *testing.B) {
	for _, name := range append(fliteNames, "rms/10") {
		b.Run(name, func(b *testing.B) {
			v, err := Flite(name)
			if err != nil {
				b.Fatal(err)
			}
			samples, cpu0 := 0, cpuTime(b)
			for b.Loop() {
				pcm, err := v.Synthesize("seven one three four")
				if err != nil {
					b.Fatal(err)
				}
				samples += len(pcm)
			}
			reportCPU(b, cpu0, float64(samples)/float64(v.Rate()))
		})
	}
}

// BenchmarkFliteGoroutines compares throughput with 1 and 2 goroutines on one shared voice
// (ns/op is per phrase, so a halving means the second core is used).
func BenchmarkFliteGoroutines(b *testing.B) {
	for _, name := range []string{"kal", "kal16", "slt"} {
		for _, g := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/g=%d", name, g), func(b *testing.B) {
				v, err := Flite(name)
				if err != nil {
					b.Fatal(err)
				}
				var wg sync.WaitGroup
				b.ResetTimer()
				cpu0 := cpuTime(b)
				for i := range g {
					wg.Go(func() {
						for range b.N/g + min(1, max(0, b.N%g-i)) {
							if _, err := v.Synthesize("seven one three four"); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				reportCPU(b, cpu0, 0)
			})
		}
	}
}
