package twilio

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTick is one caller's work per 20 ms tick on the loop goroutine: a pool frame sent as a
// Twilio media message over a real websocket (to a child process, so its reading is not counted),
// 20 ms of agent audio through the playout model and reply detector, and the mark check. The
// agent speaks a phrase, is silent 1.2 s, and again. "with transcription" adds the transcriber,
// whose decodes run on their own goroutines; cpu-ns/tick counts them, ns/op does not.
func BenchmarkTick(b *testing.B) {
	p, model := fixtures(b)
	url := startHelper(b, "sink")
	clip := p.Clip(0)
	reply := decodeAsCaller(clip.Mulaw)
	for _, tc := range []struct {
		name string
		ears listen.Ears
	}{{"send+playout+detect", nil}, {"with transcription", model}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			conn, err := (&Dialer{URL: url}).Dial(ctx, callers.CallInfo{})
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close(ctx)
			lis := listen.NewListener(ctx, listen.Config{}, tc.ears)
			defer lis.Close()
			cycle := len(reply) + 60
			t0, pending := time.Now(), 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				now := t0.Add(time.Duration(i) * 20 * time.Millisecond)
				if err := conn.Send(clip, i%clip.Frames()); err != nil {
					b.Fatal(err)
				}
				if k := i % cycle; k < len(reply) {
					lis.Push(reply[k], now.Add(-time.Millisecond))
				}
				for _, ev := range lis.Tick(now) {
					if ev.Kind == listen.EventReplyEnded && ev.Transcribing {
						pending++
					}
					if ev.Kind == listen.EventReplyStarted {
						lis.Arm(ev.Reply.Start)
					}
				}
				conn.Played(lis.Played())
				pending -= drainHeard(lis, false)
			}
			for pending > 0 {
				pending -= drainHeard(lis, true)
			}
			b.StopTimer()
			perTick := float64(cpuTime()-cpu0) / float64(b.N)
			b.ReportMetric(perTick, "cpu-ns/tick")
			b.ReportMetric(float64(20*time.Millisecond)/perTick, "callers/core")
		})
	}
}

func drainHeard(lis *listen.Listener, wait bool) int {
	n := 0
	for {
		if wait && n == 0 {
			<-lis.Heard()
			n++
			continue
		}
		select {
		case <-lis.Heard():
			n++
		default:
			return n
		}
	}
}

// BenchmarkReceive is the reader goroutine's work per 20 ms media message from the agent:
// decode, base64, mu-law and 8 -> 16 kHz resampling, handing the chunk over.
func BenchmarkReceive(b *testing.B) {
	p, _ := fixtures(b)
	c := &Conn{audio: make(chan callers.Chunk, 1), hangup: make(chan struct{}), d: &Dialer{}}
	up, err := newUpsampler()
	if err != nil {
		b.Fatal(err)
	}
	r := reader{c: c, up: up}
	msg := tw.AppendAgentMedia(nil, "MZ00000000000000000000000000000000", p.Clip(0).Mulaw[10])
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := tw.Decode(msg)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.handle(&m, now); err != nil {
			b.Fatal(err)
		}
		<-c.audio
	}
}

// TestLoad runs CALLFLEET_LOAD callers for CALLFLEET_LOAD_SECONDS (default 20) against an agent
// in a child process and reports the caller process's CPU per caller, which is what bounds the
// callers one core drives. CALLFLEET_LOAD_STT=1 adds caller-side transcription.
func TestLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CALLFLEET_LOAD"))
	if n <= 0 {
		t.Skip("set CALLFLEET_LOAD=<callers> to run")
	}
	secs, _ := strconv.Atoi(os.Getenv("CALLFLEET_LOAD_SECONDS"))
	if secs <= 0 {
		secs = 20
	}
	p, model := fixtures(t)
	if os.Getenv("CALLFLEET_LOAD_STT") == "" {
		model = nil
	}
	url := startHelper(t, "agent")
	d := &Dialer{URL: url}
	until := time.Now().Add(time.Duration(secs) * time.Second)
	s := &sink{}
	var wg sync.WaitGroup
	cpu0, wall0 := cpuTime(), time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * time.Second / time.Duration(n)) // spread the starts
			plan := callers.Plan{Call: i, Seed: 1, Until: until, PauseMin: 500 * time.Millisecond, PauseMax: 1500 * time.Millisecond}
			callers.Run(context.Background(), d, p, plan, s, model)
		}()
	}
	wg.Wait()
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	reportLoad(t, n, cpu, wall, s)
}

func reportLoad(t *testing.T, n int, cpu, wall time.Duration, s *sink) {
	var late, p99s []float64
	answered, heard, underruns := 0, 0, 0
	for _, tr := range s.turns {
		late = append(late, float64(tr.LatenessMax))
		p99s = append(p99s, float64(tr.LatenessP99))
		if tr.Marks.ReplyStart != nil {
			answered++
		}
		if tr.Heard != "" {
			heard++
		}
		underruns += tr.Underruns
	}
	slices.Sort(late)
	slices.Sort(p99s)
	var gaps []string
	for _, tr := range s.turns {
		if tr.Underruns > 0 {
			gaps = append(gaps, fmt.Sprintf("t%d:%d/%.0fms", tr.Turn, tr.Underruns, float64(tr.LongestGap)))
		}
	}
	t.Logf("underruns (turn:count/longest): %v", gaps)
	perCaller := cpu.Seconds() / (wall.Seconds() * float64(n))
	t.Logf("%d callers for %v: %v CPU = %.2f %% of a core per caller -> %.0f callers per core",
		n, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), 100*perCaller, 1/perCaller)
	if len(late) > 0 {
		t.Logf("%d turns, %d answered, %d transcribed, %d underruns; per-turn send lateness: p99 %.1f ms (median turn), %.1f ms (worst); max %.1f ms (median turn), %.1f ms (worst)",
			len(s.turns), answered, heard, underruns, p99s[len(p99s)/2], p99s[len(p99s)-1], late[len(late)/2], late[len(late)-1])
	}
}
