package listen

import (
	"testing"
	"time"
)

func TestAhead(t *testing.T) {
	sec := durSamples(time.Second)
	cases := []struct {
		name     string
		max      time.Duration
		arrivals []arrival
		clearAt  int // Reset before this arrival (0: never)
		want     int // samples admitted in all
	}{
		{name: "real time, 20 ms frames with jitter", arrivals: paced(tone(10*sec), FrameDuration, 0, 15*time.Millisecond, 0, 0),
			want: 10 * sec},
		{name: "whole reply at once", arrivals: []arrival{{pcm: tone(3 * sec)}}, want: 3 * sec},
		{name: "100x real time for 60 s of audio", arrivals: flood(60*sec, 100),
			want: durSamples(DefaultMaxAhead + 600*time.Millisecond)},
		{name: "a smaller bound", max: time.Second, arrivals: []arrival{{pcm: tone(3 * sec)}}, want: sec},
		{name: "clear empties the buffer", arrivals: []arrival{{pcm: tone(5 * sec)}, {pcm: tone(5 * sec), at: time.Second}},
			clearAt: 1, want: 10 * sec},
		{name: "no clear: only what drained", arrivals: []arrival{{pcm: tone(5 * sec)}, {pcm: tone(5 * sec), at: time.Second}},
			want: 6 * sec},
		{name: "no crumbs below a frame", arrivals: []arrival{{pcm: tone(5*sec - 100)}, {pcm: tone(FrameSamples), at: time.Millisecond}},
			want: 5*sec - 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := Ahead{Max: tc.max}
			t0 := time.Unix(1000, 0)
			got := 0
			for i, ar := range tc.arrivals {
				if tc.clearAt > 0 && i == tc.clearAt {
					a.Reset()
				}
				k := a.Admit(len(ar.pcm), t0.Add(ar.at))
				if k < 0 || k > len(ar.pcm) {
					t.Fatalf("arrival %d: admitted %d of %d", i, k, len(ar.pcm))
				}
				got += k
			}
			if d := got - tc.want; d < -FrameSamples || d > FrameSamples {
				t.Errorf("admitted %v of audio, want %v", samplesDur(got), samplesDur(tc.want))
			}
		})
	}
}

// flood is n samples sent in 20 ms frames at speed times real time.
func flood(n, speed int) []arrival {
	var out []arrival
	pcm := tone(n)
	for i, k := 0, 0; i < n; i, k = i+FrameSamples, k+1 {
		out = append(out, arrival{pcm: pcm[i:min(i+FrameSamples, n)], at: time.Duration(k) * FrameDuration / time.Duration(speed)})
	}
	return out
}

func TestPlayoutBound(t *testing.T) {
	sec := durSamples(time.Second)
	t0 := time.Unix(1000, 0)
	p := NewPlayout(0)
	p.Max = time.Second
	p.Push(tone(3*sec), t0)
	if p.Buffered() != sec || p.Dropped() != 2*sec {
		t.Fatalf("buffered %d dropped %d, want %d and %d", p.Buffered(), p.Dropped(), sec, 2*sec)
	}
	// The dropped audio counts as played once the second kept before it has played: a Twilio
	// mark after it is then due.
	for now := t0; now.Before(t0.Add(900 * time.Millisecond)); now = now.Add(FrameDuration) {
		p.Tick(now)
	}
	if p.Played() >= sec {
		t.Fatalf("played %d before the kept second was over", p.Played())
	}
	for now := t0.Add(900 * time.Millisecond); now.Before(t0.Add(1100 * time.Millisecond)); now = now.Add(FrameDuration) {
		p.Tick(now)
	}
	if p.Played() != 3*sec {
		t.Fatalf("played %d after the kept second, want %d", p.Played(), 3*sec)
	}
	// A flush counts whatever was dropped and not yet played.
	p.Push(tone(2*sec), t0.Add(2*time.Second))
	p.Flush()
	if p.Played() != 5*sec || p.Dropped() != 3*sec {
		t.Fatalf("after flush: played %d dropped %d", p.Played(), p.Dropped())
	}
}

func TestPlayoutBoundKeepsPacedAudio(t *testing.T) {
	p := NewPlayout(40 * time.Millisecond)
	pcm := tone(durSamples(30 * time.Second))
	simulate(p, paced(pcm, 40*time.Millisecond, 0, 30*time.Millisecond, 0, 0), 7*time.Millisecond, 31*time.Second)
	if p.Dropped() != 0 {
		t.Fatalf("dropped %d samples of audio sent at real time", p.Dropped())
	}
	p = NewPlayout(0)
	simulate(p, []arrival{{pcm: pcm}}, 0, 40*time.Second)
	if want := len(pcm) - durSamples(DefaultMaxAhead+queueSlack); p.Dropped() != want {
		t.Fatalf("30 s at once: dropped %d, want %d", p.Dropped(), want)
	}
}
