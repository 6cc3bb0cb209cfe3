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
	f, ok := st.stdout.(*os.File)
	if rf.NoTUI || !ok || !term.IsTerminal(int(f.Fd())) {
		spec.Outputs = []scenarios.Output{newProgress(st.stderr, spec.Plan)}
		r, err := scenarios.Execute(st.ctx, spec)
		return r, viewNotStopped, err
	}
	ui := tui.New(tui.Config{Target: spec.Target, Transport: spec.Dialer.Name(), Plan: spec.Plan,
		Thresholds: spec.Thresholds, Out: f})
	ctx, cancel := context.WithCancel(st.ctx)
	defer cancel()
	shown := make(chan error, 1)
	go func() { shown <- ui.Run(st.ctx) }() // st.ctx, not ctx: after q the view stays to say it is hanging up
	go func() {
		select {
		case <-ui.Quit():
			cancel() // the runner hangs up and writes the report from what finished
		case <-ctx.Done():
		}
	}()
	spec.Outputs, spec.EndStep = []scenarios.Output{ui}, ui.EndStep()
	r, err := scenarios.Execute(ctx, spec)
	ui.Done()
	if verr := <-shown; verr != nil {
		fmt.Fprintf(st.stderr, "callfleet: live view: %v\n", verr)
	}
	stop := viewNotStopped
	select {
	case <-ui.Quit():
		stop = viewStopped
		if ui.Interrupted() {
			stop = viewInterrupted
		}
	default:
	}
	return r, stop, err
}
