package twilio

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/tts"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// The cost measurements run the far end in a child process (this test binary re-run with
// helperEnv set) so the caller process's CPU time is the callers' alone.
const helperEnv = "CALLFLEET_TWILIO_HELPER"

// runHelper serves as a helper process when asked to and exits; it returns otherwise.
func runHelper() {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	h := sinkHandler
	if mode == "agent" {
		h = newLoadAgent().serve
	}
	go http.Serve(ln, http.HandlerFunc(h))
	fmt.Printf("ADDR %s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin) // the parent closes stdin when done
	if n := lateFrames.Load(); n > 0 {
		fmt.Fprintf(os.Stderr, "load agent: %d reply frames sent over 20 ms late\n", n)
	}
	os.Exit(0)
}

// startHelper starts a helper process and returns its websocket URL.
func startHelper(tb testing.TB, mode string) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ADDR ") {
		tb.Fatalf("helper %s: %q %v", mode, line, err)
	}
	return "ws://" + strings.TrimSpace(strings.TrimPrefix(line, "ADDR ")) + "/ws"
}

// sinkHandler reads and drops everything a caller sends.
func sinkHandler(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	for {
		_, rd, err := ws.NextReader()
		if err != nil {
			return
		}
		io.Copy(io.Discard, rd)
	}
}

// loadAgent answers each phrase 300 ms after it ends with a phrase from a small pool, in 20 ms
// frames at real-time pace as the reference agent does. It tells speech from silence by the
// frames alone (the pool's silence is exact zero, 0xFF in mu-law), so it needs no transcriber.
type loadAgent struct {
	p *pool.Pool
}

func newLoadAgent() *loadAgent {
	v, err := tts.Flite("rms")
	if err == nil {
		var p *pool.Pool
		p, err = pool.Build(context.Background(), pool.VoiceSource{Voice: v}, pool.Options{Size: 4, Seed: 99, Codecs: []pool.Codec{pool.CodecMulaw}})
		if err == nil {
			return &loadAgent{p: p}
		}
	}
	fmt.Fprintln(os.Stderr, "load agent:", err)
	os.Exit(2)
	return nil
}

func (a *loadAgent) serve(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	var (
		wmu            sync.Mutex
		wg             sync.WaitGroup
		streamSid      string
		voiced, silent int
		n              int
		ctx, cancel    = context.WithCancel(context.Background())
	)
	defer func() { cancel(); wg.Wait() }()
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		m, err := tw.Decode(data)
		if err != nil {
			continue
		}
		switch m.Event {
		case tw.EventStart:
			streamSid = m.StreamSID
		case tw.EventMedia:
			mu, _ := m.Audio()
			if !isSilence(mu) {
				voiced, silent = voiced+1, 0
				continue
			}
			if silent++; voiced > 10 && silent == 15 {
				voiced, n = 0, n+1
				clip := a.p.Clip(n % a.p.Len())
				wg.Add(1)
				go func() {
					defer wg.Done()
					a.reply(ctx, ws, &wmu, streamSid, clip)
				}()
			}
		}
	}
}

func (a *loadAgent) reply(ctx context.Context, ws *websocket.Conn, wmu *sync.Mutex, streamSid string, clip *pool.Clip) {
	start := time.Now()
	for i, f := range clip.Mulaw {
		t := time.NewTimer(time.Until(start.Add(time.Duration(i) * 20 * time.Millisecond)))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		if time.Since(start.Add(time.Duration(i)*20*time.Millisecond)) > 20*time.Millisecond {
			lateFrames.Add(1)
		}
		wmu.Lock()
		err := ws.WriteMessage(websocket.TextMessage, tw.AppendAgentMedia(nil, streamSid, f))
		wmu.Unlock()
		if err != nil {
			return
		}
	}
}

// lateFrames counts reply frames the load agent itself sent late: underruns the callers should see.
var lateFrames atomic.Int64

func isSilence(mu []byte) bool {
	for _, b := range mu {
		if b != 0xFF && b != 0x7F {
			return false
		}
	}
	return true
}
