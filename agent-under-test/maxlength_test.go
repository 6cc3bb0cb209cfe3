package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/wire/rtvi"
)

// TestMaxCallLength: a call that reaches the maximum length is hung up, with the reason said
// to the caller (close reason, RTVI error) and counted.
func TestMaxCallLength(t *testing.T) {
	const maxLen = 1500 * time.Millisecond
	for _, tc := range []struct {
		transport string
		call      func(t *testing.T, ctx context.Context, base string) (ended time.Time, reason string)
	}{
		{transportTwilio, func(t *testing.T, ctx context.Context, base string) (time.Time, string) {
			c := dialTwilio(t, base, "CA-long")
			for {
				select {
				case <-c.closed:
					c.mu.Lock()
					defer c.mu.Unlock()
					if c.closeCE == nil || c.closeCE.Code != websocket.CloseNormalClosure {
						t.Errorf("close %v, want 1000", c.closeCE)
						return c.closedAt, ""
					}
					return c.closedAt, c.closeCE.Text
				default:
					c.frame(silence8k)
				}
			}
		}},
		{transportWebRTC, func(t *testing.T, ctx context.Context, base string) (time.Time, string) {
			p, err := dialRTC(t, ctx, base, true)
			if err != nil {
				t.Fatal(err)
			}
			p.until(ctx, func() bool {
				select {
				case <-p.ended:
					return true
				default:
					return false
				}
			})
			ended := time.Now()
			p.mu.Lock()
			defer p.mu.Unlock()
			for _, m := range p.msgs {
				if text, fatal, err := m.ErrorText(); m.Type == rtvi.TypeError && err == nil && fatal {
					return ended, text
				}
			}
			t.Errorf("no fatal RTVI error on the data channel before the hang-up (%d messages)", len(p.msgs))
			return ended, ""
		}},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			noLeaks(t)
			cfg := DefaultConfig()
			cfg.MaxCallLength = maxLen
			srv, hs := startAgent(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			ended, reason := tc.call(t, ctx, hs.URL)
			if took := ended.Sub(start); took < maxLen || took > maxLen+time.Second*timingSlack {
				t.Errorf("call hung up after %v, want about %v", took, maxLen)
			}
			if !strings.Contains(reason, "maximum call length") {
				t.Errorf("hang-up reason %q", reason)
			}
			waitLive(t, srv, 0)
			series := fmt.Sprintf(`agent_hangups_total{reason="max_call_length",transport=%q}`, tc.transport)
			if n := metric(t, hs.URL, series); n != 1 {
				t.Errorf("%s = %v, want 1", series, n)
			}
		})
	}
}
