package turn

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// The pause-probe's settings (MinSilence/GateHold ms) and pauses (ms).
var (
	pauseSettings = []struct{ minSilence, hold int }{{1300, 1000}, {1100, 400}, {1000, 400}, {800, 400}, {300, 200}}
	probePauses   = []int{300, 500, 700, 900, 1100, 1400, 1600}
)

// channel is how the caller's audio reaches the agent in a test.
type channel struct {
	name   string
	offset int     // ms of extra lead, so pauses start off the frame grid
	snr    float64 // dB of white noise under the speech; 0 = none
	mulaw  bool
	brown  bool
}

var channels = []channel{
	{name: "clean aligned"},
	{name: "white 20dB +7ms", offset: 7, snr: 20},
	{name: "brown 20dB +13ms", offset: 13, snr: 20, brown: true},
	{name: "mulaw white 20dB +3ms", offset: 3, snr: 20, mulaw: true},
}

const speechDB = -20.0

// render puts parts (speech at speechDB, silence as zeros) through the channel.
func (c channel) render(parts ...[]float64) []int16 {
	x := cat(append([][]float64{silence(c.offset)}, parts...)...)
	if c.snr != 0 {
		n := whiteNoise(len(x), speechDB-c.snr, 99)
		if c.brown {
			n = brownNoise(len(x), speechDB-c.snr, 98)
		}
		x = mixed(x, n)
	}
	if c.mulaw {
		x = mulawRoundTrip(x)
	}
	return pcm(x)
}

var halves = sync.OnceValue(func() [2][]float64 {
	return [2][]float64{speechLike(1200, speechDB, 1), speechLike(1000, speechDB, 2)}
})

// TestPauseProbe is the load test's pause-probe: a phrase in two halves with a pause P between.
// The outcome must follow the frame rule exactly for the silence S the VAD saw, S must be within
// one frame of P/20, and so the outcome follows P except where P is within a frame of a threshold.
func TestPauseProbe(t *testing.T) {
	t.Parallel()
	h := halves()
	const lead = 1000
	for _, ch := range channels {
		grid := make([]string, len(pauseSettings))
		for i, set := range pauseSettings {
			grid[i] = fmt.Sprintf("%4d/%-4d", set.minSilence, set.hold)
		}
		for _, p := range probePauses {
			// One rendering serves every setting: the VAD does not depend on them.
			x := ch.render(silence(lead), h[0], silence(p), h[1], silence(3100))
			gap, last := gapAround(speechOf(DefaultConfig(), x), (ch.offset+lead+1200+p/2)/20)
			for i, set := range pauseSettings {
				cfg := cfgMs(set.minSilence, set.hold)
				evs := detect(t, cfg, x)
				name := fmt.Sprintf("%s %d/%d P=%d S=%d", ch.name, set.minSilence, set.hold, p, gap)
				checkPause(t, name, evs, p, gap, last, Frames(cfg.MinSilence), Frames(cfg.GateHold), ch.offset == 0 && ch.snr == 0)
				grid[i] += fmt.Sprintf(" %4d:%-2s S=%-3d", p, outcome(evs), gap)
			}
		}
		t.Logf("%s (outcome: 1 one turn, 1r resumed in hold, 2 split)\n%s", ch.name, strings.Join(grid, "\n"))
	}
}

func checkPause(t *testing.T, name string, evs []fired, p, s, last, ns, ng int, exact bool) {
	t.Helper()
	checkGrammar(t, evs, false)
	if got, want := kinds(evs), expectedKinds(s, ns, ng); got != want {
		t.Errorf("%s: frame rule broken: got %s want %s", name, got, want)
		return
	}
	x := p / 20
	if d := s - x; d < -1 || d > 1 || (exact && d != 0) {
		t.Errorf("%s: VAD saw %d silence frames for a %d ms pause", name, s, p)
	}
	near := func(tr int) bool { return x >= tr-1 && x <= tr } // there, alignment decides
	if got, want := kinds(evs), expectedKinds(x, ns, ng); got != want && !near(ns) && !near(ns+ng) {
		t.Errorf("%s: got %s, want %s for P alone", name, got, want)
	}
	if s >= ns && (evs[1].LastSpeech != last || secondStart(evs).At != last+s+1) {
		t.Errorf("%s: %v: the VAD's speech ends at %d and resumes at %d", name, evs, last, last+s+1)
	}
	if end := evs[len(evs)-1]; end.At-end.LastSpeech != ns+ng {
		t.Errorf("%s: %v is not MinSilence+GateHold after the last speech", name, end)
	}
}

// outcome abbreviates an event list: 1, 1r (resumed) or 2 turns.
func outcome(evs []fired) string {
	switch {
	case countKind(evs, TurnEnd) == 2:
		return "2"
	case countKind(evs, SpeechResumed) == 1:
		return "1r"
	}
	return "1"
}

// TestOnePhrase: one phrase through every channel and setting is one turn, its inter-word dips
// never split it, and TurnEnd comes exactly MinSilence+GateHold after its last speech frame.
func TestOnePhrase(t *testing.T) {
	phrase := speechLike(2600, speechDB, 3)
	for _, ch := range channels {
		for _, set := range pauseSettings {
			cfg := cfgMs(set.minSilence, set.hold)
			ns, ng := Frames(cfg.MinSilence), Frames(cfg.GateHold)
			evs := detect(t, cfg, ch.render(silence(1000), phrase, silence(set.minSilence+set.hold+400)))
			name := fmt.Sprintf("%s %d/%d", ch.name, set.minSilence, set.hold)
			if got := kinds(evs); got != "SpeechStarted SpeechStopped TurnEnd" {
				t.Errorf("%s: %s", name, evs)
				continue
			}
			start, end := (ch.offset+1000)/20, (ch.offset+1000+2600)/20-1
			if d := evs[0].At - start; d < 0 || d > 1 {
				t.Errorf("%s: started at %d, speech starts in frame %d", name, evs[0].At, start)
			}
			if d := evs[2].LastSpeech - end; d < -1 || d > 1 {
				t.Errorf("%s: last speech %d, speech ends in frame %d", name, evs[2].LastSpeech, end)
			}
			if evs[2].At-evs[2].LastSpeech != ns+ng || evs[1].At-evs[1].LastSpeech != ns {
				t.Errorf("%s: %v", name, evs)
			}
		}
	}
}

// TestPauseProbeFricativeEdges: halves that end and begin with unvoiced consonants (a 120 ms s
// after the first, a 80 ms f before the second). The fringe makes them speech, so the pause
// counts from consonant to consonant as the caller hears it, not from vowel to vowel.
func TestPauseProbeFricativeEdges(t *testing.T) {
	h := halves()
	s, f := fricative(120, speechDB-8, 5), fricative(80, speechDB-10, 6)
	const lead = 1000
	for _, ch := range channels[:2] {
		for _, p := range probePauses {
			x := ch.render(silence(lead), h[0], s, silence(p), f, h[1], silence(3100))
			gap, last := gapAround(speechOf(DefaultConfig(), x), (ch.offset+lead+1200+120+p/2)/20)
			for _, set := range pauseSettings {
				cfg := cfgMs(set.minSilence, set.hold)
				evs := detect(t, cfg, x)
				name := fmt.Sprintf("%s %d/%d P=%d S=%d", ch.name, set.minSilence, set.hold, p, gap)
				checkPause(t, name, evs, p, gap, last, Frames(cfg.MinSilence), Frames(cfg.GateHold), false)
			}
		}
	}
}
