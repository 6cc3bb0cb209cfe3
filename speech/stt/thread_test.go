package stt

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// threadNices reads every thread's nice value (field 19 of /proc/self/task/TID/stat).
func threadNices(t *testing.T) map[int]int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no /proc/self/task: %v", err)
	}
	out := map[int]int{}
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // field 3 onwards
		nice, _ := strconv.Atoi(fields[16])
		out[nice]++
	}
	return out
}

// With Nice set, decodes run on threads at that nice value and still hear the phrase; with it
// off, no thread is reniced.
func TestNiceDecoderThreads(t *testing.T) {
	pcm := synth(t, "rms", accuracyPhrases[0].text, wideband)
	for _, nice := range []int{0, 7} {
		cfg := DefaultConfig()
		cfg.Nice, cfg.MaxDecoders = nice, 2
		m, err := Load(cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Transcribe(context.Background(), pcm)
		if err != nil || got != accuracyPhrases[0].digits {
			t.Errorf("nice %d: heard %q (%v), want %q", nice, got, err, accuracyPhrases[0].digits)
		}
		n := threadNices(t)[7]
		if nice == 7 && n != 1 {
			t.Errorf("nice 7: %d threads at nice 7, want 1 (one decoder built)", n)
		}
		if nice == 0 && n != 0 {
			t.Errorf("nice 0: %d threads at nice 7, want none", n)
		}
		m.Close()
		if n := threadNices(t)[7]; n != 0 {
			t.Errorf("nice %d: %d threads still at nice 7 after Close", nice, n)
		}
	}
}
