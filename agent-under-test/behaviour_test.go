package agent

import (
	"context"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Barge-in: the caller speaks during a reply; the agent clears within 60 ms of the first voiced
// frame and the new phrase is the next turn.
func TestTwilioBargeIn(t *testing.T) {
	noLeaks(t)
	model, p := fixtures(t)
	srv, hs := startAgent(t, DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	ev := subscribe(t, ctx, hs.URL, "CA-barge")
	c := dialTwilio(t, hs.URL, "CA-barge")
	// The interrupting phrase starts with a voiced sound ("eight"): an unvoiced start such as the
	// "th" of "three" is heard as speech only once the vowel after it confirms it.
	first := p.Clip(1)
	second, err := p.Get("8135")
	if err != nil {
		t.Fatal(err)
	}
	c.silence(100 * time.Millisecond)
	c.say(first)
	deadline := time.Now().Add(8 * time.Second)
	for {
		c.mu.Lock()
		started := !c.first.IsZero()
		c.mu.Unlock()
		if started {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no reply to interrupt")
		}
		c.frame(silence8k)
	}
	c.silence(300 * time.Millisecond) // well into the reply
	c.mu.Lock()
	c.agent, c.first = nil, time.Time{}
	c.mu.Unlock()
	var voicedAt time.Time
	for i, f := range second.Mulaw {
		at := c.frame(f)
		if i == second.StartFrame() {
			voicedAt = at
		}
	}
	c.mu.Lock()
	clears := append([]time.Time(nil), c.clears...)
	c.agent, c.first = nil, time.Time{} // drop what was in flight when the clear went out
	c.mu.Unlock()
	if len(clears) != 1 {
		t.Fatalf("%d clear messages, want 1", len(clears))
	}
	lat := clears[0].Sub(voicedAt)
	t.Logf("barge-in: clear %v after the first voiced frame", lat)
	if lat < 0 || lat > 60*time.Millisecond*timingSlack {
		t.Errorf("barge-in latency %v, want <= 60 ms", lat)
	}
	if !c.waitReply(1200*time.Millisecond, 8*time.Second) {
		t.Fatal("no reply to the interrupting phrase")
	}
	c.stop()
	<-c.closed
	finals := ev.finals()
	if len(finals) != 2 || finals[0] != first.Digits || finals[1] != second.Digits {
		t.Errorf("turns heard %q, want [%q %q]", finals, first.Digits, second.Digits)
	}
	if heard, _ := model.Transcribe(ctx, c.agentAudio16k()); heard != second.Digits {
		t.Errorf("second reply heard as %q, want %q", heard, second.Digits)
	}
	waitLive(t, srv, 0)
}

// Idle guard: silence brings the prompt after IdlePrompt, then a hang-up IdleHangup after it.
func TestTwilioIdleGuard(t *testing.T) {
	noLeaks(t)
	cfg := DefaultConfig()
	cfg.Pipeline.IdlePrompt = 1 * time.Second
	cfg.Pipeline.IdleHangup = 1 * time.Second
	srv, hs := startAgent(t, cfg)
	c := dialTwilio(t, hs.URL, "CA-idle")
	start := time.Now()
	for {
		select {
		case <-c.closed:
		default:
			if time.Since(start) < 10*time.Second {
				c.frame(silence8k)
				continue
			}
			t.Fatal("agent did not hang up within 10 s")
		}
		break
	}
	c.mu.Lock()
	promptAt, promptEnd, ce, closedAt := c.first.Sub(start), c.last, c.closeCE, c.closedAt
	c.mu.Unlock()
	t.Logf("prompt at %v, hang-up %v after the prompt ended", promptAt, closedAt.Sub(promptEnd))
	tol := 60 * time.Millisecond * timingSlack
	if d := promptAt - time.Second; d < -tol || d > tol {
		t.Errorf("idle prompt at %v, want 1 s ± %v", promptAt, tol)
	}
	if d := closedAt.Sub(promptEnd) - time.Second; d < -tol || d > tol {
		t.Errorf("hang-up %v after the prompt, want 1 s ± %v", closedAt.Sub(promptEnd), tol)
	}
	if ce == nil || ce.Code != websocket.CloseNormalClosure {
		t.Errorf("hang-up close %v, want 1000", ce)
	}
	waitLive(t, srv, 0)
}

// Echo mode answers with the caller's own speech: the reply is heard as the phrase, comes after
// the usual end-of-turn wait, and no transcript is published (no STT ran).
func TestTwilioEcho(t *testing.T) {
	noLeaks(t)
	model, p := fixtures(t)
	cfg := DefaultConfig()
	cfg.Pipeline.Echo = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	clip := p.Clip(1)
	c, ev, wait := oneTurn(t, ctx, cfg, "CA-echo", clip)
	reply := c.agentAudio16k()
	heard, err := model.Transcribe(ctx, reply)
	if err != nil || heard != clip.Digits {
		t.Errorf("echo heard as %q (%v), want %q", heard, err, clip.Digits)
	}
	// The agent sends media only while it speaks: the echo lasts the phrase plus the pre-roll
	// before the detected onset and 700 ms after its end, not all the end-of-turn silence after it.
	if got, max := time.Duration(len(reply))*time.Second/16000, clip.Voiced()+1400*time.Millisecond; got > max {
		t.Errorf("echo lasts %v, want at most %v (the phrase, not the silence after it)", got, max)
	}
	if got := ev.finals(); len(got) != 0 {
		t.Errorf("echo published transcripts %q, want none", got)
	}
	if wait < 1100*time.Millisecond || wait > 2500*time.Millisecond {
		t.Errorf("speech end to echo %v, want about 1.5 s", wait)
	}
}
