// Package tui is callfleet's live terminal view of a run: a header (target, transport, step k of
// n, elapsed and remaining), a lane per call with its state and last verdicts, the current step's
// live figures and latency sparkline, the finished steps with their verdicts and the capacity so
// far, and the latest failures. It is a scenarios.Output: Handle only enqueues, so a slow terminal
// never slows a caller; the program takes the events in batches at most ~10 times a second.
package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"

	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/scenarios"
)

// Config is what the view shows besides the events, and where it draws.
type Config struct {
	Target     string
	Transport  string
	Seed       uint64 // 0: the plan's
	Plan       scenarios.Plan
	Thresholds checks.Thresholds // the step verdicts' limits; zero: checks.DefaultThresholds()
	Out        io.Writer         // the terminal; nil: stdout
	In         io.Reader         // the keys; nil: the terminal
	Now        func() time.Time  // the clock for elapsed and remaining; nil: time.Now
	// Probe, for `callfleet probe`, shows its pauses (or its barge-in or idle calls) as the
	// steps; Plan is then unused.
	Probe *Probe
}

// fallbackWidth and fallbackHeight are the frame's size when Out is not a terminal.
const fallbackWidth, fallbackHeight = 120, 40

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// UI is the live view of one run. Handle, Done, Quit and EndStep are safe from any goroutine.
type UI struct {
	cfg         Config
	q           *queue
	quit        chan struct{}
	quitOnce    sync.Once
	interrupted atomic.Bool
	ends        chan struct{}
}

var _ scenarios.Output = (*UI)(nil)

// New makes the view; Run shows it.
func New(cfg Config) *UI {
	if cfg.Out == nil {
		cfg.Out = os.Stdout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Thresholds == (checks.Thresholds{}) {
		cfg.Thresholds = checks.DefaultThresholds()
	}
	return &UI{cfg: cfg, q: newQueue(), quit: make(chan struct{}), ends: make(chan struct{})}
}

// Handle enqueues an event and returns at once, whatever the terminal is doing.
func (u *UI) Handle(e scenarios.Event) { u.q.push(e) }

// Done says the run is over: the view shows the last events and Run returns.
func (u *UI) Done() { u.q.finish() }

// Quit is closed when the user asks to stop (q, or ctrl+c): the runner should cancel the run,
// which hangs up and writes the report from what finished. The view stays until Done.
func (u *UI) Quit() <-chan struct{} { return u.quit }

// Interrupted reports whether the stop was ctrl+c rather than q (the exit status differs).
func (u *UI) Interrupted() bool { return u.interrupted.Load() }

// EndStep receives when the user presses s; hand it to scenarios.Spec.EndStep.
func (u *UI) EndStep() <-chan struct{} { return u.ends }

func (u *UI) stop(interrupt bool) {
	u.quitOnce.Do(func() {
		u.interrupted.Store(interrupt)
		close(u.quit)
	})
}

// endStep hands the controller its signal if a step is waiting on it, never blocking: between
// steps there is no one to receive, so a stale press cannot end the next step.
func (u *UI) endStep() bool {
	select {
	case u.ends <- struct{}{}:
		return true
	default:
		return false
	}
}

// Run shows the view on the terminal's alternate screen until Done has been called and its events
// shown, ctx ends, or the user presses q twice. Events arriving afterwards are dropped.
func (u *UI) Run(ctx context.Context) error {
	opts := []tea.ProgramOption{tea.WithOutput(u.cfg.Out), tea.WithAltScreen(), tea.WithFPS(10),
		tea.WithoutSignalHandler()} // signals are the command's: it cancels the run and we see Done
	if u.cfg.In != nil {
		opts = append(opts, tea.WithInput(u.cfg.In))
	}
	m := newModel(u)
	if !isTerminal(u.cfg.Out) {
		// No terminal, no size messages: draw at a fixed size (tests, a captured log).
		m.c.Width, m.c.Height = fallbackWidth, fallbackHeight
		m.layout()
	}
	p := tea.NewProgram(m, opts...)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-ctx.Done():
			p.Quit()
		case <-stop:
		}
	}()
	_, err := p.Run()
	u.q.close()
	if err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}
