package callers

import (
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/internal/safetext"
)

// TestRunHostileAgent runs the turn loop against fake agents that flood audio or text: what the
// records keep stays bounded, and the turn says why it failed.
func TestRunHostileAgent(t *testing.T) {
	t.Parallel()
	hostile := "\x1b]0;owned\x07\x1b[2Jseven\u202e" + strings.Repeat(" x", 2000)
	many := make([]string, 500)
	for i := range many {
		many[i] = hostile
	}
	queue := listen.DefaultMaxAhead + time.Second // the playout queue's bound for a Dialer that sets none
	tests := []struct {
		name  string
		s     script
		check func(t *testing.T, tr Turn)
	}{
		{name: "a 20 s reply at once: the queue keeps its bound", s: script{delay: 100 * time.Millisecond, flood: 20 * time.Second},
			check: func(t *testing.T, tr Turn) {
				want := 20*time.Second - queue
				if d := tr.Dropped.Duration() - want; tr.Error != ReasonOverrun || d < -100*time.Millisecond || d > 100*time.Millisecond {
					t.Errorf("error %q, dropped %v, want overrun and %v", tr.Error, tr.Dropped, want)
				}
				if a := tr.AgentAudio.Duration(); a > queue+100*time.Millisecond {
					t.Errorf("played %v of agent audio past a %v queue", a, queue)
				}
			}},
		{name: "the transport dropped some: the turn says so", s: script{delay: 100 * time.Millisecond, dropped: 8000},
			check: func(t *testing.T, tr Turn) {
				if tr.Error != ReasonOverrun || tr.Dropped.Duration() != 500*time.Millisecond {
					t.Errorf("error %q dropped %v, want overrun and 500ms", tr.Error, tr.Dropped)
				}
			}},
		{name: "500 finals full of escapes", s: script{delay: 100 * time.Millisecond, transcript: 50 * time.Millisecond, finals: many},
			check: func(t *testing.T, tr Turn) {
				if len(tr.ServerTranscripts) != maxTranscripts {
					t.Errorf("%d server transcripts kept, want %d", len(tr.ServerTranscripts), maxTranscripts)
				}
				for _, s := range tr.ServerTranscripts[1:] {
					if len(s) > safetext.MaxText || strings.ContainsAny(s, "\x1b\x07\u202e") || !strings.HasPrefix(s, "seven x") {
						t.Fatalf("transcript kept as %q (%d bytes)", s[:min(len(s), 30)], len(s))
					}
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plan := basePlan()
			plan.MaxTurns, plan.Timeouts.Reply = 1, 15*time.Second
			res, rec := run(t, &fakeDialer{s: tc.s}, plan, 0)
			wantEnd(t, res, EndedByCaller, 1, rec)
			tc.check(t, rec.turns[0])
		})
	}
}
