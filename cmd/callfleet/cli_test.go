package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/callfleet/callfleet/audio"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "callfleet-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "callfleet")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build callfleet: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func callfleet(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestSayTranscribe(t *testing.T) {
	dir := t.TempDir()
	for _, rate := range []string{"8000", "16000", "48000"} {
		wav := filepath.Join(dir, rate+".wav")
		if _, stderr, code := callfleet(t, "say", "71345", "-o", wav, "--rate", rate); code != 0 {
			t.Fatalf("say at %s: exit %d: %s", rate, code, stderr)
		}
		out, stderr, code := callfleet(t, "transcribe", wav)
		if code != 0 || out != "71345\n" || stderr != "" {
			t.Errorf("transcribe %s Hz: %q, %q, exit %d", rate, out, stderr, code)
		}
	}
}

func TestTranscribeBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.wav")
	os.WriteFile(empty, nil, 0o644)
	text := filepath.Join(dir, "text.wav")
	os.WriteFile(text, []byte("this is not a wav file at all, not even close"), 0o644)
	stereo := filepath.Join(dir, "stereo.wav")
	audio.WriteWAVFile(stereo, &audio.Clip{Rate: 16000, Channels: 2, Samples: make([]int16, 3200)})
	silent := filepath.Join(dir, "silent.wav")
	audio.WriteWAVFile(silent, &audio.Clip{Rate: 16000, Channels: 1, Samples: make([]int16, 16000)})
	cases := []struct {
		name, file string
		code       int
		out, err   string
	}{
		{"missing", filepath.Join(dir, "nope.wav"), 1, "", "no such file"},
		{"empty", empty, 1, "", "empty"},
		{"not wav", text, 1, "", "callfleet: transcribe"},
		{"stereo", stereo, 1, "", "channel"},
		{"silence", silent, 0, "\n", ""},
	}
	for _, c := range cases {
		out, stderr, code := callfleet(t, "transcribe", c.file)
		if code != c.code || out != c.out || !strings.Contains(stderr, c.err) {
			t.Errorf("%s: stdout %q stderr %q exit %d; want %q, %q, %d", c.name, out, stderr, code, c.out, c.err, c.code)
		}
	}
}

func TestScenarioFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("target: ws://127.0.0.1:1/twilio/ws\ntransport: twilio\nsteps: \"4,2\"\nstep_duration: 2m\n"), 0o644)
	unknown := filepath.Join(dir, "unknown.yaml")
	os.WriteFile(unknown, []byte("target: ws://x\nbogus: 1\n"), 0o644)
	for file, want := range map[string]string{bad: "steps must grow", unknown: `unknown field "bogus"`} {
		if _, stderr, code := callfleet(t, "run", "--scenario", file); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", filepath.Base(file), code, stderr, want)
		}
	}
	// A flag on the command line wins over the file.
	if _, stderr, code := callfleet(t, "run", "--scenario", bad, "--steps", "1,2", "--ramp", "-1s"); code != 2 || strings.Contains(stderr, "steps must grow") || !strings.Contains(stderr, "ramp") {
		t.Errorf("command-line --steps did not win: exit %d, %q", code, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"nonsense"}, 2, "unknown command"},
		{[]string{"say", "12a4", "-o", "/tmp/x.wav"}, 2, "not a digit string"},
		{[]string{"say", "1234", "-o", "/tmp/x.wav", "--rate", "11025"}, 2, "--rate"},
		{[]string{"say", "1234", "-o", "/tmp/x.wav", "--voice", "nobody"}, 2, "voice"},
		{[]string{"run", "--steps", "4,2", "--transport", "carrier-pigeon"}, 2, "steps must grow"},
		{[]string{"run", "--target", "ws://127.0.0.1:1/x", "--step-duration", "0s"}, 2, "step duration"},
		{[]string{"agent", "--max-calls", "-3"}, 2, "max calls"},
		{[]string{"report", "/nonexistent/report.json"}, 2, "no such file"},
	}
	for _, c := range cases {
		_, stderr, code := callfleet(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.err)
		}
	}
	if out, _, code := callfleet(t, "version"); code != 0 || !strings.HasPrefix(out, "callfleet ") {
		t.Errorf("version: %q exit %d", out, code)
	}
	if _, stderr, code := callfleet(t, "run", "-h"); code != 0 || !strings.Contains(stderr, "--target") {
		t.Errorf("run -h: exit %d, %q", code, stderr)
	}
}
