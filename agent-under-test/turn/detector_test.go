package turn

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// pushPattern feeds 'X' (Voiced), 'u' (Unvoiced) and '.' (Quiet) frames through PushClass.
func pushPattern(d *Detector, p string) []fired {
	var out []fired
	for _, c := range p {
		n := d.NextFrame()
		if e := d.PushClass(map[rune]Class{'X': Voiced, 'u': Unvoiced}[c]); e.Kind != None {
			out = append(out, fired{e, n})
		}
	}
	return out
}

func frameDetector(t *testing.T, k, ns, ng, fringe int) *Detector {
	t.Helper()
	d, err := NewDetector(Config{MinSilence: FrameTime(ns), GateHold: FrameTime(ng), OnsetFrames: k, Fringe: FrameTime(fringe)})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// brief renders events as Kind@At, with /last for Stopped and TurnEnd.
func brief(evs []fired) string {
	var s []string
	for _, e := range evs {
		x := fmt.Sprintf("%v@%d", e.Kind, e.At)
		if e.Kind == SpeechStopped || e.Kind == TurnEnd {
			x += fmt.Sprintf("/%d", e.LastSpeech)
		}
		s = append(s, x)
	}
	return strings.Join(s, " ")
}

func TestDetectorPatterns(t *testing.T) {
	cases := []struct {
		name          string
		k, ns, ng, fr int
		pattern       string
		want          string
	}{
		{"one turn", 2, 3, 2, 0, "XXXX........", "SpeechStarted@0 SpeechStopped@6/3 TurnEnd@8/3"},
		{"clicks alone", 2, 3, 2, 0, "..X...X.X...X", ""},
		{"dip under MinSilence", 2, 3, 2, 0, "XXXX..XXXX.......", "SpeechStarted@0 SpeechStopped@12/9 TurnEnd@14/9"},
		{"resume at S=Ns", 2, 3, 2, 0, "XXXX...XX........", "SpeechStarted@0 SpeechStopped@6/3 SpeechResumed@7 SpeechStopped@11/8 TurnEnd@13/8"},
		{"resume on the due frame", 2, 3, 2, 0, "XXXX....XX.......", "SpeechStarted@0 SpeechStopped@6/3 SpeechResumed@8 SpeechStopped@12/9 TurnEnd@14/9"},
		{"split at S=Ns+Ng", 2, 3, 2, 0, "XXXX.....XX.......", "SpeechStarted@0 SpeechStopped@6/3 TurnEnd@8/3 SpeechStarted@9 SpeechStopped@13/10 TurnEnd@15/10"},
		{"click on due TurnEnd waits one frame", 2, 3, 2, 0, "XXXX....X......", "SpeechStarted@0 SpeechStopped@6/3 TurnEnd@9/3"},
		{"click on due stop waits one frame", 2, 3, 2, 0, "XXXX..X......", "SpeechStarted@0 SpeechStopped@7/3 TurnEnd@8/3"},
		{"click before due stop is silence", 2, 3, 2, 0, "XXXX.X......", "SpeechStarted@0 SpeechStopped@6/3 TurnEnd@8/3"},
		{"click in hold is silence", 2, 3, 2, 0, "XXXX...X.....", "SpeechStarted@0 SpeechStopped@6/3 TurnEnd@8/3"},
		{"no hold", 2, 3, 0, 0, "XXXX......XX....", "SpeechStarted@0 TurnEnd@6/3 SpeechStarted@10 TurnEnd@14/11"},
		{"K=1", 1, 2, 1, 0, "X.....", "SpeechStarted@0 SpeechStopped@2/0 TurnEnd@3/0"},
		{"K=3 onset at run start", 3, 3, 2, 0, "XX.XXX.........", "SpeechStarted@3 SpeechStopped@8/5 TurnEnd@10/5"},
		{"K=3 short run in hold", 3, 3, 2, 0, "XXX...XX.......", "SpeechStarted@0 SpeechStopped@5/2 TurnEnd@8/2"},
		{"leading fringe", 2, 3, 2, 2, "uuXXXX........", "SpeechStarted@0 SpeechStopped@8/5 TurnEnd@10/5"},
		{"leading fringe at most Fringe", 2, 3, 2, 2, "uuuXX.......", "SpeechStarted@1 SpeechStopped@7/4 TurnEnd@9/4"},
		{"trailing fringe", 2, 3, 2, 2, "XXXXuu........", "SpeechStarted@0 SpeechStopped@8/5 TurnEnd@10/5"},
		{"trailing fringe at most Fringe", 2, 3, 2, 2, "XXXXuuu.......", "SpeechStarted@0 SpeechStopped@8/5 TurnEnd@10/5"},
		{"fringe closes the gap: resume", 2, 3, 2, 2, "XXXX....uuXX......", "SpeechStarted@0 SpeechStopped@6/3 SpeechResumed@8 SpeechStopped@14/11 TurnEnd@16/11"},
		{"no fringe: same audio splits", 2, 3, 2, 0, "XXXX....uuXX......", "SpeechStarted@0 SpeechStopped@6/3 TurnEnd@8/3 SpeechStarted@10 SpeechStopped@14/11 TurnEnd@16/11"},
		{"fringe cannot bridge S=Ns+Ng", 2, 3, 2, 2, "XXXX.....uuXX......", "SpeechStarted@0 SpeechStopped@6/3 TurnEnd@8/3 SpeechStarted@9 SpeechStopped@15/12 TurnEnd@17/12"},
		{"long unvoiced tail delays the stop", 2, 3, 2, 2, "XXXXuuuuuuuu......", "SpeechStarted@0 SpeechStopped@10/5 TurnEnd@12/5"},
		{"unvoiced alone", 2, 3, 2, 2, "..uuuuuuuu..u.uXu.uuuXuu....", ""},
		{"MinSilence 0 is one frame", 2, 0, 1, 0, "XX.XX..", "SpeechStarted@0 SpeechStopped@2/1 SpeechResumed@3 SpeechStopped@5/4 TurnEnd@6/4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs := pushPattern(frameDetector(t, c.k, c.ns, c.ng, c.fr), c.pattern)
			if got := brief(evs); got != c.want {
				t.Errorf("%s\n got %s\nwant %s", c.pattern, got, c.want)
			}
			checkGrammar(t, evs, c.ng == 0)
		})
	}
}

// TestPauseBoundaryFrames: with the VAD out of the picture the rule is exact: S < Ns one turn and
// no stop; Ns <= S < Ns+Ng stop and resume; S >= Ns+Ng two turns. Unvoiced edges (a fricative
// tail and onset) inside the fringe are speech and do not count in S.
func TestPauseBoundaryFrames(t *testing.T) {
	for _, set := range pauseSettings {
		for k := 1; k <= 3; k++ {
			for _, edge := range [][2]int{{0, 0}, {2, 3}} {
				cfg := cfgMs(set.minSilence, set.hold)
				cfg.OnsetFrames = k
				ns, ng := Frames(cfg.MinSilence), Frames(cfg.GateHold)
				for s := 0; s <= ns+ng+3; s++ {
					d, err := NewDetector(cfg)
					if err != nil {
						t.Fatal(err)
					}
					p := strings.Repeat("X", 25) + strings.Repeat("u", edge[0]) + strings.Repeat(".", s) +
						strings.Repeat("u", edge[1]) + strings.Repeat("X", 25) + strings.Repeat(".", ns+ng+3)
					evs := pushPattern(d, p)
					checkGrammar(t, evs, false)
					name := fmt.Sprintf("%d/%d K=%d edge %v S=%d", set.minSilence, set.hold, k, edge, s)
					checkBoundary(t, name, evs, s, ns, ng, 25+edge[0])
				}
			}
		}
	}
}

// checkBoundary checks two halves whose first ends at frame end-1 and whose second starts after s
// silence frames.
func checkBoundary(t *testing.T, name string, evs []fired, s, ns, ng, end int) {
	t.Helper()
	if got, want := kinds(evs), expectedKinds(s, ns, ng); got != want {
		t.Fatalf("%s: got %s want %s", name, got, want)
	}
	if s >= ns && (evs[1].LastSpeech != end-1 || secondStart(evs).At != end+s) {
		t.Fatalf("%s: %v: first half ends at %d, second starts at %d", name, evs, end-1, end+s)
	}
	if last := evs[len(evs)-1]; last.At-last.LastSpeech != ns+ng {
		t.Fatalf("%s: TurnEnd %v, want At-LastSpeech = %d", name, last, ns+ng)
	}
}

// secondStart is the event that opens the second half: SpeechResumed or a new SpeechStarted.
func secondStart(evs []fired) fired {
	for _, e := range evs[1:] {
		if e.Kind == SpeechResumed || e.Kind == SpeechStarted {
			return e
		}
	}
	return fired{}
}

// expectedKinds is the event sequence for two halves separated by S silence frames.
func expectedKinds(s, ns, ng int) string {
	switch {
	case s < ns:
		return "SpeechStarted SpeechStopped TurnEnd"
	case s < ns+ng:
		return "SpeechStarted SpeechStopped SpeechResumed SpeechStopped TurnEnd"
	}
	return "SpeechStarted SpeechStopped TurnEnd SpeechStarted SpeechStopped TurnEnd"
}

func TestInSpeechInTurn(t *testing.T) {
	d := frameDetector(t, 2, 3, 2, 2)
	for i, c := range "..XXXX...XX.........uuXXuu.u..u.u." {
		e := d.PushClass(map[rune]Class{'X': Voiced, 'u': Unvoiced}[c])
		switch e.Kind {
		case SpeechStarted, SpeechResumed:
			if !d.InSpeech() || !d.InTurn() {
				t.Fatalf("frame %d %v: InSpeech %v InTurn %v", i, e, d.InSpeech(), d.InTurn())
			}
		case SpeechStopped:
			if d.InSpeech() || !d.InTurn() {
				t.Fatalf("frame %d %v: InSpeech %v InTurn %v", i, e, d.InSpeech(), d.InTurn())
			}
		case TurnEnd:
			if d.InSpeech() || d.InTurn() {
				t.Fatalf("frame %d %v: InSpeech %v InTurn %v", i, e, d.InSpeech(), d.InTurn())
			}
		}
	}
	if d.InTurn() {
		t.Fatal("still in a turn after the trailing silence")
	}
}

func TestReset(t *testing.T) {
	d, err := NewDetector(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	x := pcm(cat(silence(300), speechLike(1500, -20, 1), silence(400)))
	first := runFrames(t, d, x)
	d.Reset()
	if d.NextFrame() != 0 || d.InTurn() || d.Floor() != floorMinDB {
		t.Fatalf("after Reset: next %d, in turn %v, floor %v", d.NextFrame(), d.InTurn(), d.Floor())
	}
	if again := runFrames(t, d, x); fmt.Sprint(again) != fmt.Sprint(first) {
		t.Fatalf("after Reset %v, first run %v", again, first)
	}
}

func TestNewDetectorErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want error
	}{
		{"defaults", func(*Config) {}, nil},
		{"zero", func(c *Config) { *c = Config{} }, nil},
		{"negative MinSilence", func(c *Config) { c.MinSilence = -time.Millisecond }, ErrNegativeDuration},
		{"negative GateHold", func(c *Config) { c.GateHold = -1 }, ErrNegativeDuration},
		{"negative onset", func(c *Config) { c.OnsetFrames = -1 }, ErrOnsetFrames},
		{"huge onset", func(c *Config) { c.OnsetFrames = MaxOnsetFrames + 1 }, ErrOnsetFrames},
		{"negative threshold", func(c *Config) { c.VAD.ThresholdDB = -3 }, ErrVADConfig},
		{"NaN tilt", func(c *Config) { c.VAD.MaxTilt = nan() }, ErrVADConfig},
		{"positive min level", func(c *Config) { c.VAD.MinLevelDB = 3 }, ErrVADConfig},
		{"floor rise > 1", func(c *Config) { c.VAD.FloorRise = 1.5 }, ErrVADConfig},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		c.edit(&cfg)
		d, err := NewDetector(cfg)
		if !errors.Is(err, c.want) || (err == nil) != (d != nil) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
}

func TestConfigRounding(t *testing.T) {
	cases := []struct {
		minSilence, hold time.Duration
		ns, ng           int
	}{
		{DefaultMinSilence, DefaultGateHold, 55, 20},
		{1110 * time.Millisecond, 401 * time.Millisecond, 56, 21},
		{0, 0, 1, 0},
		{time.Millisecond, time.Nanosecond, 1, 1},
	}
	for _, c := range cases {
		d, err := NewDetector(Config{MinSilence: c.minSilence, GateHold: c.hold})
		if err != nil || d.ns != c.ns || d.ng != c.ng || d.k != DefaultOnsetFrames {
			t.Errorf("%v/%v: ns %d ng %d k %d err %v, want %d %d", c.minSilence, c.hold, d.ns, d.ng, d.k, err, c.ns, c.ng)
		}
	}
}

func TestFrames(t *testing.T) {
	cases := map[time.Duration]int{
		-time.Second: 0, 0: 0, 1: 1, time.Millisecond: 1, 20 * time.Millisecond: 1,
		21 * time.Millisecond: 2, 40 * time.Millisecond: 2, 1100 * time.Millisecond: 55, 1500 * time.Millisecond: 75,
	}
	for d, want := range cases {
		if got := Frames(d); got != want {
			t.Errorf("Frames(%v) = %d, want %d", d, got, want)
		}
	}
	if FrameSamples != 320 || FrameTime(55) != 1100*time.Millisecond {
		t.Fatal("frame constants")
	}
}

func TestKindString(t *testing.T) {
	want := []string{"None", "SpeechStarted", "SpeechStopped", "SpeechResumed", "TurnEnd", "Kind(9)"}
	for i, k := range []Kind{None, SpeechStarted, SpeechStopped, SpeechResumed, TurnEnd, 9} {
		if k.String() != want[i] {
			t.Errorf("%d: %q want %q", k, k.String(), want[i])
		}
	}
	var zero Event
	if zero.Kind != None || zero.String() != "None" {
		t.Fatal("zero Event is not None")
	}
	e := Event{Kind: TurnEnd, At: 80, Start: 3, LastSpeech: 5}
	if e.String() != "TurnEnd@80(start 3, last 5)" || e.Offset() != 1600*time.Millisecond {
		t.Fatalf("%v %v", e, e.Offset())
	}
}
