package audio

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

func TestWAVWriterClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "call.wav")
	w, err := CreateWAV(path, 16000, 2)
	if err != nil {
		t.Fatal(err)
	}
	left, right := tone(1600, 16000, 440, 9000), tone(1600, 16000, 660, 7000)
	all := Interleave(left, right)
	for i := 0; i < len(all); i += 640 { // 20 ms stereo frames
		if err := w.Write(all[i : i+640]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := ReadWAVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rate != 16000 || c.Channels != 2 || !slices.Equal(c.Samples, all) {
		t.Errorf("read back %d Hz %d ch %d samples, want 16000 Hz 2 ch %d", c.Rate, c.Channels, len(c.Samples), len(all))
	}
	if err := w.Write(all[:2]); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
}

// TestWAVWriterUnclosed reads the file through another handle while the
// writer is still open, as after a crash.
func TestWAVWriterUnclosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.wav")
	w, err := CreateWAV(path, 8000, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c, err := ReadWAVFile(path)
	if err != nil || len(c.Samples) != 0 {
		t.Fatalf("fresh file: %v, %v", c, err)
	}
	in := tone(8000, 8000, 1000, 12000)
	for i := 0; i < len(in); i += 160 {
		if err := w.Write(in[i : i+160]); err != nil {
			t.Fatal(err)
		}
		if i%1600 != 0 {
			continue
		}
		c, err := ReadWAVFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Samples, in[:i+160]) {
			t.Fatalf("after %d samples: read %d", i+160, len(c.Samples))
		}
	}
}

func TestWAVWriterErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := CreateWAV(filepath.Join(dir, "a.wav"), 8000, 0); !errors.Is(err, ErrChannels) {
		t.Errorf("0 channels: %v", err)
	}
	if _, err := CreateWAV(filepath.Join(dir, "b.wav"), 10, 1); !errors.Is(err, ErrRate) {
		t.Errorf("10 Hz: %v", err)
	}
	if _, err := CreateWAV(filepath.Join(dir, "no", "c.wav"), 8000, 1); err == nil {
		t.Error("CreateWAV in a missing directory succeeded")
	}
	w, err := CreateWAV(filepath.Join(dir, "d.wav"), 8000, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write([]int16{1, 2, 3}); !errors.Is(err, ErrPartialFrame) {
		t.Errorf("odd stereo write: %v", err)
	}
}

const killEnv = "AUDIO_WAV_KILL_PATH"

// TestWAVWriterSurvivesKill runs a child that writes one second of audio
// and then SIGKILLs itself; the file must still read back whole.
func TestWAVWriterSurvivesKill(t *testing.T) {
	if path := os.Getenv(killEnv); path != "" {
		writeThenDie(path)
		return
	}
	path := filepath.Join(t.TempDir(), "killed.wav")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWAVWriterSurvivesKill$")
	cmd.Env = append(os.Environ(), killEnv+"="+path)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v", err)
	}
	c, err := ReadWAVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := tone(8000, 8000, 1000, 12000); !slices.Equal(c.Samples, want) {
		t.Errorf("read %d samples after kill, want %d", len(c.Samples), len(want))
	}
}

func writeThenDie(path string) {
	w, err := CreateWAV(path, 8000, 1)
	if err != nil {
		os.Exit(3)
	}
	in := tone(8000, 8000, 1000, 12000)
	for i := 0; i < len(in); i += 160 {
		if w.Write(in[i:i+160]) != nil {
			os.Exit(4)
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // wait for the signal
}

func BenchmarkWAVWriterFrame(b *testing.B) {
	w, err := CreateWAV(filepath.Join(b.TempDir(), "bench.wav"), 8000, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	frame := tone(160, 8000, 1000, 12000)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(frame); err != nil {
			b.Fatal(err)
		}
	}
}
