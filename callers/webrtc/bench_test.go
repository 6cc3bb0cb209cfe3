package webrtc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
)

// The benchmarks run the echoing peer in a child process (this test binary, re-executed), so the
// CPU they report is the caller's alone.
const peerProcessEnv = "CALLFLEET_WEBRTC_TEST_PEER"

// runPeerProcess serves a testPeer, prints its base URL and runs until stdin closes.
func runPeerProcess() int {
	p, err := newTestPeer(0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(p.srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	p.close()
	return 0
}

// startPeerProcess starts the child peer and returns its base URL; it stops at test end.
func startPeerProcess(tb testing.TB) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), peerProcessEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("peer process: %v", err)
	}
	return strings.TrimSpace(line)
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchModes = []struct {
	name string
	api  APIOptions
}{
	{"sockets", APIOptions{}},
	{"mux", APIOptions{UDPMux: true}},
	{"mux-noreports", APIOptions{UDPMux: true, NoRTCPReports: true}},
	{"sockets-ipv6", APIOptions{IncludeIPv6: true}},
}

// BenchmarkDial is one call's setup and hang-up: offer with gathered candidates, answer,
// ICE+DTLS connect, close. cpu-ns/op is the caller process's CPU per call.
func BenchmarkDial(b *testing.B) {
	base := startPeerProcess(b)
	for _, mode := range benchModes {
		b.Run(mode.name, func(b *testing.B) {
			d := newTestDialer(b, Config{URL: base + "/api/offer", APIOptions: mode.api})
			cpu := cpuTime(b)
			b.ResetTimer()
			for i := range b.N {
				c := dial(b, d, i)
				if err := c.Close(testCtx(b, 5*time.Second)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkTick runs 20 concurrent calls (CALLFLEET_BENCH_CALLS to change) at the real 20 ms pace: each op is one tick in which
// every call sends one Opus frame of a tone and receives (and decodes) the peer's echo of an
// earlier one. cpu-ns/call-tick is the caller's CPU per call per tick; callers/core follows.
func BenchmarkTick(b *testing.B) {
	calls := 20
	if n, err := strconv.Atoi(os.Getenv("CALLFLEET_BENCH_CALLS")); err == nil && n > 0 {
		calls = n // e.g. 100 to check scaling
	}
	base := startPeerProcess(b)
	clip := toneClip(b, 1)
	for _, mode := range benchModes {
		b.Run(mode.name, func(b *testing.B) {
			d := newTestDialer(b, Config{URL: base + "/api/offer", APIOptions: mode.api})
			conns := make([]*Conn, calls)
			var received atomic.Int64
			var wg sync.WaitGroup
			for i := range conns {
				conns[i] = dial(b, d, i)
				wg.Add(1)
				go func(c callers.Conn) {
					defer wg.Done()
					for {
						select {
						case _, ok := <-c.Audio():
							if !ok {
								return
							}
							received.Add(1)
						case _, ok := <-c.Events():
							if !ok {
								return
							}
						}
					}
				}(conns[i])
			}
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			cpu := cpuTime(b)
			b.ResetTimer()
			for i := range b.N {
				<-tick.C
				for _, c := range conns {
					if err := c.Send(clip, i%len(clip.Opus)); err != nil {
						b.Fatal(err)
					}
				}
			}
			time.Sleep(60 * time.Millisecond) // the last echoes
			b.StopTimer()
			used := cpuTime(b) - cpu
			perTick := float64(used) / float64(b.N*calls)
			b.ReportMetric(perTick, "cpu-ns/call-tick")
			b.ReportMetric(float64(20*time.Millisecond)/perTick, "callers/core")
			b.ReportMetric(float64(received.Load())/float64(b.N*calls), "recv/sent")
			for _, c := range conns {
				if err := c.Close(testCtx(b, 5*time.Second)); err != nil {
					b.Error(err)
				}
			}
			wg.Wait()
		})
	}
}

// BenchmarkDecode is the receive path's libopus share: one 20 ms packet decoded to 16 kHz.
func BenchmarkDecode(b *testing.B) {
	clip := toneClip(b, 1)
	dec, err := audio.NewOpusDecoderRate(outRate)
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime(b)
	b.ResetTimer()
	for i := range b.N {
		if _, err := dec.Decode(clip.Opus[i%len(clip.Opus)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}
