package agent

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/callfleet/callfleet/wire/rtvi"
)

// TestHTTPServerTimeouts: the agent's http.Server cuts off a client that sends its headers
// slowly, while the SSE stream and the Twilio websocket outlive its read and write timeouts.
func TestHTTPServerTimeouts(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.HTTP = HTTPTimeouts{ReadHeader: 300 * time.Millisecond, Read: 500 * time.Millisecond,
		Write: 500 * time.Millisecond, Idle: time.Second}
	cfg.Pipeline.IdlePrompt = 1500 * time.Millisecond // an event and agent audio well past both timeouts
	cfg.Pipeline.IdleHangup = 20 * time.Second
	srv := newAgent(t, cfg, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	t.Cleanup(func() {
		hs.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	base := "http://" + ln.Addr().String()

	t.Run("slow headers are cut off", func(t *testing.T) {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		io.WriteString(conn, "GET /metrics HTTP/1.1\r\nHost: x\r\n") // and never the blank line
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		io.Copy(io.Discard, conn)
		if took := time.Since(start); took > cfg.HTTP.ReadHeader+2*time.Second*timingSlack {
			t.Errorf("connection with unfinished headers lasted %v, want about %v", took, cfg.HTTP.ReadHeader)
		}
	})

	t.Run("events and websocket outlive the timeouts", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ev := subscribe(t, ctx, base, "CA-http")
		c := dialTwilio(t, base, "CA-http")
		start := time.Now()
		var first time.Time
		for first.IsZero() && time.Since(start) < 15*time.Second { // the prompt is due at 1.5 s
			c.frame(silence8k)
			c.mu.Lock()
			first = c.first
			c.mu.Unlock()
		}
		select {
		case <-c.closed:
			t.Fatal("the websocket closed")
		default:
		}
		if first.Sub(start) < cfg.HTTP.Write {
			t.Fatalf("idle prompt audio at %v, want it after the server's write timeout", first.Sub(start))
		}
		c.silence(200 * time.Millisecond) // the event's SSE write
		ev.mu.Lock()
		late := false
		for i, m := range ev.msgs {
			if m.Type == rtvi.TypeBotTranscription && ev.at[i].Sub(start) > cfg.HTTP.Read {
				late = true
			}
		}
		ev.mu.Unlock()
		if !late {
			t.Error("no event on the SSE stream after the server's read and write timeouts")
		}
		c.stop()
		<-c.closed
		waitLive(t, srv, 0)
	})
}
