package compare

import (
	"math/rand/v2"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
)

// A synthetic run: steps of N calls, each with some measured turns and one warm-up turn before
// the window (absurdly slow, so a test sees if it leaks into the samples). Latencies are drawn
// from a seeded generator: transcript 600-900 ms after speech end, reply 200-400 ms after that,
// each scaled by its factor.

var t0 = time.Date(2026, 10, 8, 15, 0, 0, 0, time.UTC)

type synth struct {
	steps      []int
	turns      int     // measured turns per call
	seed       uint64  // of the latency draws
	transcript float64 // scales the transcript latency (1 = as drawn)
	reply      float64 // scales the reply latency after the transcript
	misheard   map[int]int
	cpu, rss   []float64 // per step; nil: not scraped
}

func ms(v float64) *callers.Ms { m := callers.Ms(v); return &m }

func f64(v float64) *float64 { return &v }

func (o synth) run(path string) *report.Run {
	rng := rand.New(rand.NewPCG(o.seed, 7))
	var data []report.StepData
	var allTurns []callers.Turn
	var allCalls []callers.CallResult
	call := 0
	for i, n := range o.steps {
		from := t0.Add(time.Duration(i) * 3 * time.Minute).Add(20 * time.Second)
		d := report.StepData{N: n, Window: [2]time.Time{from, from.Add(2 * time.Minute)}, GeneratorCPU: 0.1}
		if o.cpu != nil {
			d.AgentCPUMilli, d.AgentRSSMiBPerCall = f64(o.cpu[i]), f64(o.rss[i])
		}
		misheard := o.misheard[n]
		for j := range n {
			c := callers.CallResult{Schema: callers.Schema, Call: call, Step: i, Transport: "twilio",
				Wall: from.Add(-10 * time.Second), Connected: true, Connect: ms(40 + float64(j)),
				SessionStart: ms(300 + 10*float64(j)), Turns: o.turns + 1, EndedBy: "caller"}
			warm := o.turn(rng, call, i, 0, from.Add(-5*time.Second))
			warm.Marks.ReplyStart = ms(float64(*warm.Marks.Transcript) + 99999)
			allTurns = append(allTurns, warm)
			for k := 1; k <= o.turns; k++ {
				t := o.turn(rng, call, i, k, from.Add(time.Duration(j)*100*time.Millisecond+time.Duration(k)*8*time.Second))
				if misheard > 0 {
					t.Heard, misheard = "7 1 3", misheard-1
				}
				d.Turns = append(d.Turns, t)
				allTurns = append(allTurns, t)
			}
			d.Calls = append(d.Calls, c)
			allCalls = append(allCalls, c)
			call++
		}
		data = append(data, d)
	}
	cfg := report.RunConfig{Target: "ws://agent/twilio/ws", Transport: "twilio", Steps: o.steps,
		StepDuration: 120000, Ramp: 10000, Warmup: 10000, Seed: o.seed}
	r := report.Build(cfg, data, checks.DefaultThresholds())
	r.Machine = report.Machine{Hostname: "synth", OS: "linux", Arch: "amd64", Cores: 8, GoVersion: "go1.26.8"}
	return &report.Run{Path: path, Report: r, Turns: allTurns, Calls: allCalls}
}

func (o synth) turn(rng *rand.Rand, call, step, k int, wall time.Time) callers.Turn {
	start := 1000 + float64(k)*8000
	end := start + 2500
	tr := end + (600+300*rng.Float64())*o.transcript
	reply := tr + (200+200*rng.Float64())*o.reply
	return callers.Turn{
		Schema: callers.Schema, Call: call, Step: step, Turn: k, Transport: "twilio", Phrase: "71345", Wall: wall,
		Marks: callers.Marks{SpeechStart: ms(start), SpeechEnd: ms(end), Transcript: ms(tr),
			ReplyStart: ms(reply), ReplyEnd: ms(reply + 2000)},
		ServerTranscripts: []string{"7 1 3 4 5"}, TranscriptChannel: true, Heard: "7 1 3 4 5", Replies: 1,
		AgentAudio: 3000, LatenessP99: 1, LatenessMax: 2,
	}
}

// baseSynth is the base of the golden comparison.
func baseSynth() synth {
	return synth{steps: []int{1, 2, 4}, turns: 10, seed: 1, transcript: 1, reply: 1,
		cpu: []float64{60, 58, 57}, rss: []float64{40, 41, 41}}
}

// candSynth is a candidate whose replies are 40 % slower and which mishears two turns at N=4.
func candSynth() synth {
	o := baseSynth()
	o.seed, o.reply = 2, 1.4
	o.misheard = map[int]int{4: 2}
	o.cpu = []float64{66, 64, 62}
	return o
}
