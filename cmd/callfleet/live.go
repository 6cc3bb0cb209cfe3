package main

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/term"

	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/scenarios"
	"github.com/callfleet/callfleet/tui"
)

// viewStop says how the user ended a run from the live view.
type viewStop int

const (
	viewNotStopped  viewStop = iota
	viewStopped              // q: a normal stop, exit 0
	viewInterrupted          // ctrl+c: the terminal is in raw mode, so it arrives as a key, not SIGINT
)

// runSpec runs spec with the live view when stdout is a terminal and --no-tui is not given, else
// with plain progress lines on stderr. The view owns the terminal only while the run lasts: the
// caller prints the report after.
func (st *state) runSpec(rf *runFlags, spec scenarios.Spec) (*report.Report, viewStop, error) {
	v, ctx := st.startView(rf.NoTUI, tui.Config{Target: spec.Target, Transport: spec.Dialer.Name(), Plan: spec.Plan,
		Thresholds: spec.Thresholds})
	if v == nil {
		spec.Outputs = []scenarios.Output{newProgress(st.stderr, spec.Plan)}
		r, err := scenarios.Execute(st.ctx, spec)
		return r, viewNotStopped, err
	}
	spec.Outputs, spec.EndStep = []scenarios.Output{v.ui}, v.ui.EndStep()
	r, err := scenarios.Execute(ctx, spec)
	return r, v.finish(st), err
}

// liveView is the live view of one run, on the terminal while the run lasts.
type liveView struct {
	ui     *tui.UI
	shown  chan error
	cancel context.CancelFunc
}

// startView shows the view of cfg when stdout is a terminal and noTUI is not set (nil, st.ctx
// otherwise). The run goes under the context it returns, which q in the view ends: the run then
// hangs up and writes its report from what finished.
func (st *state) startView(noTUI bool, cfg tui.Config) (*liveView, context.Context) {
	f, ok := st.stdout.(*os.File)
	if noTUI || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, st.ctx
	}
	cfg.Out = f
	v := &liveView{ui: tui.New(cfg), shown: make(chan error, 1)}
	ctx, cancel := context.WithCancel(st.ctx)
	v.cancel = cancel
	go func() { v.shown <- v.ui.Run(st.ctx) }() // st.ctx, not ctx: after q the view stays to say it is hanging up
	go func() {
		select {
		case <-v.ui.Quit():
			cancel()
		case <-ctx.Done():
		}
	}()
	return v, ctx
}

// finish tells the view the run is over (its events all handed in), waits for it to leave the
// terminal and says how the user stopped the run, if they did.
func (v *liveView) finish(st *state) viewStop {
	defer v.cancel()
	v.ui.Done()
	if err := <-v.shown; err != nil {
		fmt.Fprintf(st.stderr, "callfleet: live view: %v\n", err)
	}
	select {
	case <-v.ui.Quit():
		if v.ui.Interrupted() {
			return viewInterrupted
		}
		return viewStopped
	default:
		return viewNotStopped
	}
}
