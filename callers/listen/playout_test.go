package listen

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// tone is n samples of a 440 Hz sine at -15 dBFS: plainly voiced.
func tone(n int) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/Rate))
	}
	return out
}

// arrival is one chunk of agent audio and when it arrives.
type arrival struct {
	pcm []int16
	at  time.Duration // from t0
}

// paced cuts pcm into chunks of chunk play time sent at real-time pace from start, each late by
// up to jitter (deterministic), with a hole of hole after the chunk ending at holeAt (0: none).
func paced(pcm []int16, chunk, start, jitter, holeAt, hole time.Duration) []arrival {
	n := durSamples(chunk)
	rng := rand.New(rand.NewPCG(1, 2))
	var out []arrival
	for i, k := 0, 0; i < len(pcm); i, k = i+n, k+1 {
		at := start + time.Duration(k)*chunk
		if holeAt > 0 && time.Duration(k)*chunk >= holeAt {
			at += hole
		}
		if jitter > 0 {
			at += time.Duration(rng.Int64N(int64(jitter)))
		}
		out = append(out, arrival{pcm: pcm[i:min(i+n, len(pcm))], at: at})
	}
	return out
}

// simulate runs the caller's loop over arrivals for dur: at each 20 ms tick (with a fixed phase
// offset), push what has arrived, then tick; it returns copies of every played frame.
func simulate(p *Playout, arrivals []arrival, phase, dur time.Duration) []Frame {
	t0 := time.Unix(1000, 0)
	var out []Frame
	next := 0
	for tick := phase; tick <= dur; tick += FrameDuration {
		for next < len(arrivals) && arrivals[next].at <= tick {
			p.Push(arrivals[next].pcm, t0.Add(arrivals[next].at))
			next++
		}
		for _, f := range p.Tick(t0.Add(tick)) {
			f.PCM = append([]int16(nil), f.PCM...)
			f.At = time.Unix(0, 0).Add(f.At.Sub(t0)) // offsets from t0, as times near zero
			out = append(out, f)
		}
	}
	return out
}

func off(f Frame) time.Duration { return f.At.Sub(time.Unix(0, 0)) }

func TestPlayoutUnderruns(t *testing.T) {
	reply := tone(durSamples(2 * time.Second))
	tests := []struct {
		name     string
		delay    time.Duration
		arrivals []arrival
		gaps     []time.Duration // expected Gap values, each within one frame
		start    time.Duration   // expected play time of the first agent frame
	}{
		{name: "whole reply at once", arrivals: paced(reply, 2*time.Second, 100*time.Millisecond, 0, 0, 0), start: 100 * time.Millisecond},
		{name: "40 ms chunks at real-time pace", arrivals: paced(reply, 40*time.Millisecond, 100*time.Millisecond, 0, 0, 0), start: 100 * time.Millisecond},
		{name: "40 ms chunks with 15 ms jitter", arrivals: paced(reply, 40*time.Millisecond, 100*time.Millisecond, 15*time.Millisecond, 0, 0)},
		{name: "20 ms frames with 15 ms jitter", arrivals: paced(reply, 20*time.Millisecond, 100*time.Millisecond, 15*time.Millisecond, 0, 0)},
		{name: "200 ms hole", arrivals: paced(reply, 40*time.Millisecond, 100*time.Millisecond, 0, 600*time.Millisecond, 200*time.Millisecond),
			gaps: []time.Duration{200 * time.Millisecond}},
		{name: "200 ms hole with jitter", arrivals: paced(reply, 40*time.Millisecond, 100*time.Millisecond, 5*time.Millisecond, 600*time.Millisecond, 200*time.Millisecond),
			gaps: []time.Duration{200 * time.Millisecond}},
		{name: "100 ms hole", arrivals: paced(reply, 40*time.Millisecond, 100*time.Millisecond, 0, 600*time.Millisecond, 100*time.Millisecond),
			gaps: []time.Duration{100 * time.Millisecond}},
		{name: "jitter buffer 40 ms, 20 ms frames", delay: 40 * time.Millisecond, arrivals: paced(reply, 20*time.Millisecond, 100*time.Millisecond, 0, 0, 0),
			start: 120 * time.Millisecond},
		{name: "jitter buffer 40 ms absorbs 30 ms hole", delay: 40 * time.Millisecond, arrivals: paced(reply, 20*time.Millisecond, 100*time.Millisecond, 0, 600*time.Millisecond, 30*time.Millisecond),
			start: 120 * time.Millisecond},
		{name: "jitter buffer 40 ms rebuffers after a 200 ms hole", delay: 40 * time.Millisecond, arrivals: paced(reply, 20*time.Millisecond, 100*time.Millisecond, 0, 600*time.Millisecond, 200*time.Millisecond),
			gaps: []time.Duration{200 * time.Millisecond}, start: 120 * time.Millisecond},
	}
	for _, tt := range tests {
		for _, phase := range []time.Duration{0, 3 * time.Millisecond, 11 * time.Millisecond, 19 * time.Millisecond} {
			frames := simulate(NewPlayout(tt.delay), tt.arrivals, phase, 4*time.Second)
			var gaps []time.Duration
			agent, first := 0, time.Duration(-1)
			last := -time.Hour
			for _, f := range frames {
				if off(f) < last {
					t.Errorf("%s phase %v: frame at %v after one at %v", tt.name, phase, off(f), last)
				}
				last = off(f)
				if f.Gap > 0 {
					gaps = append(gaps, f.Gap)
				}
				if f.Agent {
					agent++
					if first < 0 {
						first = off(f)
					}
				}
			}
			if agent != len(reply)/FrameSamples {
				t.Errorf("%s phase %v: %d agent frames played, want %d", tt.name, phase, agent, len(reply)/FrameSamples)
			}
			if tt.start > 0 && first != tt.start {
				t.Errorf("%s phase %v: first frame plays at %v, want %v", tt.name, phase, first, tt.start)
			}
			if len(gaps) != len(tt.gaps) {
				t.Errorf("%s phase %v: gaps %v, want %v", tt.name, phase, gaps, tt.gaps)
				continue
			}
			for i := range gaps {
				if d := gaps[i] - tt.gaps[i]; d < -FrameDuration || d > FrameDuration {
					t.Errorf("%s phase %v: gap %v, want %v within a frame", tt.name, phase, gaps[i], tt.gaps[i])
				}
			}
		}
	}
}

func TestPlayoutFlushAndPlayed(t *testing.T) {
	p := NewPlayout(0)
	t0 := time.Unix(1000, 0)
	p.Push(tone(16000), t0)
	for i := range 10 {
		p.Tick(t0.Add(time.Duration(i) * FrameDuration))
	}
	// Ten frames have started; the tenth is still playing.
	if got := p.Played(); got != 9*FrameSamples {
		t.Fatalf("Played after 10 ticks = %d, want %d", got, 9*FrameSamples)
	}
	p.Flush()
	if p.Played() != 16000 || p.Buffered() != 0 {
		t.Fatalf("after Flush: Played %d Buffered %d, want 16000 and 0", p.Played(), p.Buffered())
	}
	fs := p.Tick(t0.Add(10 * FrameDuration))
	if p.Played() != 16000 {
		t.Fatalf("Played after Flush and a tick = %d", p.Played())
	}
	if len(fs) != 1 || fs[0].Agent {
		t.Fatalf("after Flush the far end plays %d frames, agent=%v; want one silent frame", len(fs), len(fs) > 0 && fs[0].Agent)
	}
	// New audio after a clear is not an underrun.
	p.Push(tone(640), t0.Add(500*time.Millisecond))
	fs = p.Tick(t0.Add(500 * time.Millisecond))
	if len(fs) != 1 || !fs[0].Agent || fs[0].Gap != 0 {
		t.Fatalf("audio after clear: %+v", fs)
	}
}

func TestDetector(t *testing.T) {
	voiced := tone(FrameSamples)
	quiet := make([]int16, FrameSamples)
	for i := range quiet {
		quiet[i] = int16(voiced[i] / 200) // -61 dBFS
	}
	t0 := time.Unix(0, 0)
	type fr struct {
		pcm   []int16
		agent bool
		gap   time.Duration
	}
	seq := func(parts ...[]fr) []fr {
		var out []fr
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	rep := func(f fr, n int) []fr {
		out := make([]fr, n)
		for i := range out {
			out[i] = f
		}
		return out
	}
	v, q, s := fr{voiced, true, 0}, fr{quiet, true, 0}, fr{quiet, false, 0}
	tests := []struct {
		name   string
		frames []fr
		want   []Reply // offsets as times from t0
	}{
		{name: "one reply", frames: seq(rep(s, 5), rep(v, 50), rep(q, 50)),
			want: []Reply{{Seq: 1, Start: t0.Add(100 * time.Millisecond), End: t0.Add(1080 * time.Millisecond), AgentAudio: time.Second}}},
		{name: "pause shorter than the window stays one reply", frames: seq(rep(v, 10), rep(q, 30), rep(v, 10), rep(s, 50)),
			want: []Reply{{Seq: 1, End: t0.Add(980 * time.Millisecond), AgentAudio: time.Second}}},
		{name: "pause past the window splits", frames: seq(rep(v, 10), rep(q, 41), rep(v, 10), rep(s, 50)),
			want: []Reply{{Seq: 1, End: t0.Add(180 * time.Millisecond), AgentAudio: 200 * time.Millisecond},
				{Seq: 2, Start: t0.Add(1020 * time.Millisecond), End: t0.Add(1200 * time.Millisecond), AgentAudio: 200 * time.Millisecond}}},
		{name: "gap inside a reply is an underrun", frames: seq(rep(v, 10), rep(s, 10), []fr{{voiced, true, 200 * time.Millisecond}}, rep(v, 9), rep(s, 50)),
			want: []Reply{{Seq: 1, End: t0.Add(580 * time.Millisecond), AgentAudio: 400 * time.Millisecond, Underruns: 1, LongestGap: 200 * time.Millisecond}}},
		{name: "gap after the last word is not", frames: seq(rep(v, 10), rep(s, 10), []fr{{quiet, true, 200 * time.Millisecond}}, rep(q, 9), rep(s, 50)),
			want: []Reply{{Seq: 1, End: t0.Add(180 * time.Millisecond), AgentAudio: 200 * time.Millisecond}}},
		{name: "gap before a reply is not", frames: seq(rep(s, 10), []fr{{voiced, true, 200 * time.Millisecond}}, rep(v, 9), rep(s, 50)),
			want: []Reply{{Seq: 1, Start: t0.Add(200 * time.Millisecond), End: t0.Add(380 * time.Millisecond), AgentAudio: 200 * time.Millisecond}}},
		{name: "silence frames are never voiced", frames: seq(rep(fr{voiced, false, 0}, 50))},
	}
	for _, tt := range tests {
		d := NewDetector(0, 0)
		var got []Reply
		for i, f := range tt.frames {
			_, ev := d.Frame(Frame{PCM: f.pcm, At: t0.Add(time.Duration(i) * FrameDuration), Agent: f.agent, Gap: f.gap})
			if ev == EventReplyEnded {
				got = append(got, d.Current())
			}
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d replies, want %d: %+v", tt.name, len(got), len(tt.want), got)
			continue
		}
		for i, w := range tt.want {
			if w.Start.IsZero() {
				w.Start = t0
			}
			if got[i] != w {
				t.Errorf("%s: reply %d\n got %+v\nwant %+v", tt.name, i, got[i], w)
			}
		}
	}
}
