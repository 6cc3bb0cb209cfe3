package callers

import (
	"strings"

	"github.com/callfleet/callfleet/internal/safetext"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// Bounds on the agent's own text a turn keeps (Turn.AgentText): a reply is a few words, and an
// agent streaming text without end must not grow the record.
const (
	maxAgentPieces = 32
	maxAgentBytes  = 2 << 10
)

// agentText collects the agent's own text for one reply. It keeps one kind only, the best seen
// (rtvi.BotTextRank): pipecat sends the same words as bot-llm-text tokens, then as bot-output
// and bot-tts-text once spoken (and as bot-transcription to older clients), so a better kind
// replaces what a worse one collected, and a worse one arriving after is ignored. bot-output and
// bot-tts-text pieces are kept one per message; bot-llm-text tokens are joined into one.
type agentText struct {
	rank   int
	pieces []string
	size   int
}

// add takes one piece, within the bounds.
func (a *agentText) add(bt rtvi.BotText) {
	r := bt.Rank()
	switch {
	case r < a.rank:
		return
	case r > a.rank:
		a.rank, a.pieces, a.size = r, nil, 0
	}
	room := maxAgentBytes - a.size
	if room <= 0 {
		return
	}
	text := bt.Text
	if len(text) > room {
		text = safetext.Clean(text, room) // cut on a rune boundary, marked
	}
	switch {
	case bt.Stream && len(a.pieces) > 0:
		a.pieces[len(a.pieces)-1] += text
	case len(a.pieces) < maxAgentPieces:
		a.pieces = append(a.pieces, text)
	default:
		return
	}
	a.size += len(text)
}

// list is the text kept, each piece cleaned once more (joined tokens keep single spaces).
func (a *agentText) list() []string {
	if len(a.pieces) == 0 {
		return nil
	}
	out := make([]string, 0, len(a.pieces))
	for _, p := range a.pieces {
		if p = safetext.Clean(strings.Join(strings.Fields(p), " "), 0); p != "" {
			out = append(out, p)
		}
	}
	return out
}
