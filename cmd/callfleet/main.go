// Command callfleet load-tests voice AI agents with a fleet of synthetic callers, and runs the
// reference agent it is validated against. This package only parses flags and wires packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// Exit codes shared by every subcommand.
const (
	exitOK          = 0
	exitFailure     = 1 // the command ran and the thing it checks failed, or an operation failed
	exitUsage       = 2 // bad flags or unreadable input
	exitInterrupted = 130
)

// state is the process: its streams, environment and the context cancelled on Ctrl-C or SIGTERM.
// Library packages never print or exit; only subcommands here do, through this.
type state struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

type command struct {
	summary string
	run     func(st *state, args []string) int
}

var commands = map[string]command{}

func register(name, summary string, run func(st *state, args []string) int) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	// Twice the cores: a transcriber decode is one long C call, and Go cannot run goroutines on the
	// P a C call holds until its monitor takes the P back (up to 20 ms later when it has been idle).
	// With as many Ps as cores, one decode on a one-core generator stalled every 20 ms sender by
	// ~18 ms; spare Ps keep senders running while decoders (at most one per core) are in C.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(2 * runtime.NumCPU())
	}
	ctx, stop := interrupts(os.Stderr, os.Exit)
	defer stop()
	st := &state{ctx: ctx, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	stopProfile := st.profile(os.Getenv("CALLFLEET_CPUPROFILE"))
	code := st.dispatch(os.Args[1:])
	stopProfile()
	stop()
	os.Exit(code)
}

// interrupts returns a context the first SIGINT or SIGTERM cancels, so a run stops ramping, hangs
// up and writes its report; a second one exits at once (exitInterrupted), for a stop that hangs or
// is not wanted. stop ends the watch and restores the signals' default.
func interrupts(stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, end := watchInterrupts(sigs, stderr, exit)
	return ctx, func() {
		signal.Stop(sigs)
		end()
	}
}

// watchInterrupts is interrupts over a channel of signals, which tests feed themselves.
func watchInterrupts(sigs <-chan os.Signal, stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for n := 1; ; n++ {
			select {
			case s := <-sigs:
				if n == 1 {
					fmt.Fprintf(stderr, "callfleet: %v: stopping (once more to quit at once)\n", s)
					cancel()
					continue
				}
				fmt.Fprintf(stderr, "callfleet: %v again: quitting at once\n", s)
				exit(exitInterrupted)
				return // exit is os.Exit in production; a test's returns
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() { close(done) })
		<-ended
		cancel()
	}
}

// profile writes a CPU profile of the whole command to path (CALLFLEET_CPUPROFILE), to see where a
// generator's or agent's CPU goes; "" does nothing.
func (st *state) profile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(st.stderr, "callfleet: CALLFLEET_CPUPROFILE: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(st.stderr, "callfleet: CALLFLEET_CPUPROFILE: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(st.stderr, "callfleet: CALLFLEET_CPUPROFILE: %v\n", err)
		}
	}
}

func (st *state) dispatch(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		st.usage(st.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(st.stderr, "callfleet: unknown command %q\n\n", args[0])
		st.usage(st.stderr)
		return exitUsage
	}
	return c.run(st, args[1:])
}

func (st *state) usage(w io.Writer) {
	fmt.Fprintln(w, "callfleet — load tests for voice AI agents, with a fleet of synthetic callers.")
	fmt.Fprintln(w, "\nUsage: callfleet COMMAND [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun `callfleet COMMAND -h` for a command's flags.")
}

// newFlags returns a flag set that reports errors instead of exiting, with a usage line.
func (st *state) newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(st.stderr)
	fs.Usage = func() {
		fmt.Fprintf(st.stderr, "Usage: callfleet %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags; it returns an exit code and false when the caller should return it.
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}

// fail prints an error in the one format every subcommand uses and returns the exit code.
func (st *state) fail(code int, format string, a ...any) int {
	fmt.Fprintf(st.stderr, "callfleet: "+format+"\n", a...)
	return code
}

// interleaved moves flags after positional arguments to the front, so both
// `callfleet say 7134 -o x.wav` and `callfleet say -o x.wav 7134` work.
func interleaved(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(flags, pos...)
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
