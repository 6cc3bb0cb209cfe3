package agent

import (
	"os"
	"path/filepath"
	"testing"
)

func TestClaimFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing []string
		want     string
	}{
		{"free", nil, "CA1.wav"},
		{"taken", []string{"CA1.wav"}, "CA1-1.wav"},
		{"taken twice", []string{"CA1.wav", "CA1-1.wav"}, "CA1-2.wav"},
		{"a gap is filled", []string{"CA1.wav", "CA1-2.wav"}, "CA1-1.wav"},
	} {
		dir := t.TempDir()
		for _, f := range tc.existing {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := claimFile(dir, "CA1", ".wav")
		if err != nil || got != filepath.Join(dir, tc.want) {
			t.Errorf("%s: claimed %q (%v), want %s", tc.name, got, err, tc.want)
		}
		for _, f := range tc.existing {
			if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != "precious" {
				t.Errorf("%s: %s was overwritten", tc.name, f)
			}
		}
	}
}

// TestRecordingNeverOverwrites: a call whose id has a recording already (a callSid reused, an
// agent restarted on the same directory) records beside it; ids cannot leave the directory.
func TestRecordingNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "CA-rec.wav")
	if err := os.WriteFile(old, []byte("an earlier call"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ id, want string }{
		{"CA-rec", "CA-rec-1.wav"},
		{"CA-rec", "CA-rec-2.wav"},
		{"../CA-rec", "___CA-rec.wav"},
	} {
		rec, err := newRecorder(dir, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		rec.Caller(make([]int16, 320))
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, tc.want)); err != nil {
			t.Errorf("call %q: %v", tc.id, err)
		}
	}
	if b, _ := os.ReadFile(old); string(b) != "an earlier call" {
		t.Errorf("the earlier recording was overwritten: %q", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("files outside the recording dir: %v", entries)
	}
}
