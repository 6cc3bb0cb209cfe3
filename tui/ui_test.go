package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"go.uber.org/goleak"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/scenarios"
)

// teatestLeak is teatest's own SIGINT watcher, which lives as long as the test binary.
var teatestLeak = goleak.IgnoreAnyFunction("github.com/charmbracelet/x/exp/teatest.NewTestModel.func2")

// TestFrame drives the whole program with the scripted stream and keeps its last frame per size;
// -update rewrites testdata/TestFrame/*.golden.
func TestFrame(t *testing.T) {
	for _, size := range [][2]int{{160, 50}, {120, 40}, {90, 44}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			u := New(withOut(scriptConfig()))
			tm := teatest.NewTestModel(t, newModel(u), teatest.WithInitialTermSize(size[0], size[1]))
			for _, e := range script() {
				u.Handle(e)
			}
			u.Done()
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
			u.q.close()
			frame := fm.View()
			checkFrame(t, frame, size[0], size[1])
			golden.RequireEqual(t, []byte(frame))
		})
	}
}

func withOut(c Config) Config { c.Out = io.Discard; return c }

// checkFrame holds what the issue asks of every frame, whatever the golden says.
func checkFrame(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w {
			t.Errorf("line %d is %d cells wide, want <= %d: %q", i, n, w, l)
		}
	}
	for _, want := range []string{"ws://127.0.0.1:8765/twilio/ws", "twilio", "seed 2026", "step 2 of 3", "4 calls",
		"elapsed 00:31", "remaining 00:29", "c3", "underrun", "no_answer", "capacity so far: 2 calls", "steps",
		"last failures (2)", "said 7134", `heard "seven one three"`, "running", "pending"} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q", want)
		}
	}
}

// update feeds the model directly, for the keys.
func update(m *model, msgs ...tea.Msg) {
	for _, msg := range msgs {
		m.Update(msg)
	}
}

func scripted(w, h int) (*UI, *model) {
	u := New(withOut(scriptConfig()))
	m := newModel(u)
	for _, e := range script() {
		u.Handle(e)
	}
	b, _, _ := u.q.take()
	update(m, tea.WindowSizeMsg{Width: w, Height: h}, eventsMsg(b))
	return u, m
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func TestHelpToggles(t *testing.T) {
	_, m := scripted(120, 40)
	update(m, keyMsg("?"))
	if v := m.View(); !strings.Contains(v, "end the current step now") || !strings.Contains(v, "◀ listening") {
		t.Errorf("help screen lacks the keys or the legend:\n%s", v)
	}
	update(m, keyMsg("?"))
	if v := m.View(); !strings.Contains(v, "capacity so far") {
		t.Errorf("? again did not go back:\n%s", v)
	}
}

func TestLanesScroll(t *testing.T) {
	u := New(withOut(scriptConfig()))
	m := newModel(u)
	s := scenarios.Schedule(scenarios.Plan{Steps: []int{64}, Duration: time.Minute})[0]
	b := batch{events: []scenarios.Event{{Kind: scenarios.EventStepStart, At: t0, Step: s}},
		states: map[int]callers.State{63: callers.StateListening}}
	update(m, tea.WindowSizeMsg{Width: 90, Height: 40}, eventsMsg(b))
	if v := m.View(); !strings.Contains(v, "calls 1–") || strings.Contains(v, "c63 ") {
		t.Fatalf("64 calls should scroll, the last out of sight:\n%s", v)
	}
	update(m, keyMsg("G"))
	if v := m.View(); !strings.Contains(v, "c63 ") || !strings.Contains(v, "of 64") {
		t.Errorf("G should show the last call:\n%s", v)
	}
	update(m, keyMsg("g"), keyMsg("down"), keyMsg("j")) // two lanes a row at this width
	if v := m.View(); strings.Contains(v, "c2 ") || !strings.Contains(v, "c4 ") {
		t.Errorf("two rows down should hide c2 and show c4:\n%s", v)
	}
}

func TestResize(t *testing.T) {
	_, m := scripted(160, 50)
	for _, size := range [][2]int{{70, 20}, {200, 60}, {40, 10}} {
		update(m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(m.View(), "\n")
		if len(lines) != size[1] {
			t.Errorf("%v: %d lines", size, len(lines))
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > size[0] {
				t.Errorf("%v: a line of %d cells: %q", size, n, l)
			}
		}
	}
}

func TestStopKeys(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		u, m := scripted(120, 40)
		update(m, keyMsg(k))
		select {
		case <-u.Quit():
		default:
			t.Fatalf("%s did not close Quit", k)
		}
		if u.Interrupted() != (k == "ctrl+c") {
			t.Errorf("%s: Interrupted %v", k, u.Interrupted())
		}
		if !strings.Contains(m.View(), "hanging up") {
			t.Errorf("%s: no stopping note", k)
		}
		if _, cmd := m.Update(keyMsg(k)); cmd == nil {
			t.Errorf("%s twice should quit the program", k)
		} else if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s twice: %T, want tea.QuitMsg", k, cmd())
		}
	}
}

// TestEndStepKey hands s to a controller-like receiver, and drops it when no step waits.
func TestEndStepKey(t *testing.T) {
	u, m := scripted(120, 40)
	got := make(chan struct{})
	go func() { <-u.EndStep(); close(got) }()
	deadline := time.After(5 * time.Second)
	for m.ending == 0 {
		update(m, keyMsg("s"))
		select {
		case <-deadline:
			t.Fatal("s never reached EndStep")
		case <-time.After(5 * time.Millisecond):
		}
	}
	select {
	case <-got:
	case <-deadline:
		t.Fatal("EndStep never received")
	}
	if !strings.Contains(m.View(), "ending step 2") {
		t.Error("no ending note")
	}
	m.ending = 0
	update(m, keyMsg("s")) // nobody receives: no stale token
	if m.ending != 0 {
		t.Error("s with no step waiting should do nothing")
	}
}

// TestRunQuitAndDone runs the real program: q closes Quit, Done ends Run, and nothing leaks.
func TestRunQuitAndDone(t *testing.T) {
	defer goleak.VerifyNone(t, teatestLeak)
	in, keys := io.Pipe()
	defer keys.Close()
	var out bytes.Buffer // read only after Run returns, when the renderer has stopped
	cfg := scriptConfig()
	cfg.Out, cfg.In = &out, in
	u := New(cfg)
	ran := make(chan error, 1)
	go func() { ran <- u.Run(context.Background()) }()
	for _, e := range script() {
		u.Handle(e)
	}
	go keys.Write([]byte("q"))
	select {
	case <-u.Quit():
	case <-time.After(10 * time.Second):
		t.Fatal("q did not close Quit")
	}
	u.Done()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Done")
	}
	keys.Close()
	if !strings.Contains(out.String(), "callfleet") || !strings.Contains(out.String(), "stopping") {
		t.Errorf("the program drew no header or no stopping note: %q", out.String())
	}
}

// TestRunEndsWithContext: a cancelled context ends Run even without Done.
func TestRunEndsWithContext(t *testing.T) {
	defer goleak.VerifyNone(t, teatestLeak)
	ctx, cancel := context.WithCancel(context.Background())
	cfg := scriptConfig()
	cfg.Out, cfg.In = io.Discard, strings.NewReader("")
	u := New(cfg)
	ran := make(chan error, 1)
	go func() { ran <- u.Run(ctx) }()
	u.Handle(script()[0])
	cancel()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the context ended")
	}
	u.Handle(script()[1]) // after the program: dropped, not blocked
}
