package turn

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAlternatingStream: a long call of N turns, some spoken in one go, some with a short pause
// under MinSilence, some with a pause inside the hold, separated by agent replies (caller silent):
// exactly N turns, one SpeechResumed per in-hold pause, every TurnEnd MinSilence+GateHold after
// its last speech.
func TestAlternatingStream(t *testing.T) {
	t.Parallel()
	for _, set := range []struct{ minSilence, hold int }{{800, 400}, {1100, 400}, {300, 200}} {
		parts, turns, holds := callParts(set.minSilence, set.hold)
		cfg := cfgMs(set.minSilence, set.hold)
		for _, ch := range []channel{channels[1], channels[3]} {
			evs := detect(t, cfg, ch.render(parts...))
			name := fmt.Sprintf("%d/%d %s", set.minSilence, set.hold, ch.name)
			checkGrammar(t, evs, false)
			if countKind(evs, TurnEnd) != turns || countKind(evs, SpeechStarted) != turns || countKind(evs, SpeechResumed) != holds {
				t.Errorf("%s: want %d turns and %d resumes: %v", name, turns, holds, evs)
			}
			ns, ng := Frames(cfg.MinSilence), Frames(cfg.GateHold)
			for _, e := range evs {
				if e.Kind == TurnEnd && e.At-e.LastSpeech != ns+ng {
					t.Errorf("%s: %v", name, e)
				}
			}
		}
	}
}

// callParts is a call of 12 turns for the given setting (ms), and how many hold a resume.
func callParts(minSilence, hold int) (parts [][]float64, turns, holds int) {
	r := rand.New(rand.NewPCG(uint64(minSilence), 3))
	turns = 12
	for i := range turns {
		parts = append(parts, speechLike(700+r.IntN(800), speechDB, uint64(100+i)))
		switch i % 3 {
		case 1: // a dip the caller makes mid-phrase, under MinSilence
			parts = append(parts, silence(100+r.IntN(minSilence-160)), speechLike(800, speechDB, uint64(200+i)))
		case 2: // a pause inside the hold: SpeechStopped then SpeechResumed
			parts = append(parts, silence(minSilence+60+r.IntN(hold-120)), speechLike(800, speechDB, uint64(300+i)))
			holds++
		}
		parts = append(parts, silence(minSilence+hold+100+r.IntN(2500))) // the agent's reply
	}
	return parts, turns, holds
}
