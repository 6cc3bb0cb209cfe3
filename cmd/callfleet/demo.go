package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"time"
)

func init() {
	register("demo", "start the reference agent on loopback and run a short ramp against it, both transports", cmdDemo)
}

func cmdDemo(st *state, args []string) int {
	fs := st.newFlags("demo", "[--transports twilio,webrtc] [--steps 1,2,4] [--step-duration 12s]\n\n"+
		"Starts the bundled agent on 127.0.0.1 (a free port), runs a short ramp over each transport,\n"+
		"prints the summaries and writes results/demo-<time>/. Exits 1 unless every turn was understood.")
	transports := fs.String("transports", "twilio,webrtc", "transports to ramp, in order")
	var rf runFlags
	rf.register(fs)
	var af agentFlags
	af.register(fs, "agent-")
	fs.Set("steps", "1,2,4")
	fs.Set("step-duration", "12s")
	fs.Set("ramp", "3s")
	fs.Set("warmup", "3s")
	fs.Set("seed", "2026")
	fs.Set("pool-size", "48")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	log := slog.New(slog.NewTextHandler(st.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, closeAgent, err := af.build(st, log)
	if err != nil {
		return st.fail(exitUsage, "demo: %v", err)
	}
	defer closeAgent()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return st.fail(exitFailure, "demo: listen: %v", err)
	}
	hs := srv.HTTPServer() // the agent's own timeouts, as `callfleet agent` serves it
	go hs.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		hs.Shutdown(ctx)
	}()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(st.stderr, "reference agent on %s\n", base)
	out := rf.Out
	if out == "" {
		out = filepath.Join("results", "demo-"+time.Now().Format("20060102-150405"))
	}
	all, understood, code := 0, 0, exitOK
	for _, tr := range strings.Split(*transports, ",") {
		run := rf
		run.Transport = strings.TrimSpace(tr)
		run.Out = filepath.Join(out, run.Transport)
		// The agent shares this process with the callers, so its CPU and RSS are not its own.
		run.Scrape = "none"
		switch run.Transport {
		case "twilio":
			run.Target = "ws://" + ln.Addr().String() + "/twilio/ws"
			run.EventsURL = base + "/calls/{callSid}/events"
		case "webrtc":
			run.Target = base + "/api/offer"
		default:
			return st.fail(exitUsage, "demo: --transports: %q is not twilio or webrtc", tr)
		}
		fmt.Fprintf(st.stdout, "\n== %s ==\n", run.Transport)
		r, c := st.executeReport(&run, run.Target, "demo "+run.Transport)
		if c != exitOK {
			return c
		}
		for _, s := range r.Steps {
			all += s.Turns.Total
			understood += s.Turns.Understood
		}
		if run.stopped {
			break // q in the live view: the summary of what ran, and no more transports
		}
	}
	fmt.Fprintf(st.stdout, "\ndemo: %d of %d turns understood; results in %s\n", understood, all, out)
	fmt.Fprintln(st.stdout, "(agent CPU and RSS are not measured here: the agent shares this process with the callers;\n run `callfleet agent` and `callfleet run --target ...` apart to measure them)")
	// The demo passes on understanding; step verdicts (latency, a busy generator) are reported above.
	if understood != all || all == 0 {
		return exitFailure
	}
	return code
}
