package report

import (
	"fmt"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/speech"
)

// The synthetic run behind the golden files: four steps shaped like the seeds. N=1 and N=2 are
// clean; N=4 has 2 underruns in 1 minute of agent audio; N=8 is generator_bound (send lateness),
// slower, and has a late transcript, an underrun-garbled reply, a wrong transcript and a hang-up.

var synthStart = time.Date(2026, 10, 8, 15, 55, 0, 0, time.UTC)

func ms(v float64) *callers.Ms { m := callers.Ms(v); return &m }

func f64(v float64) *float64 { return &v }

// synthTurn is turn i of call c in a step of n calls: understood, with latencies that vary
// deterministically and grow with n.
func synthTurn(step, n, c, i int, wall time.Time, channel bool) callers.Turn {
	phrase := fmt.Sprintf("%05d", (c*7919+i*104729+step*31)%100000)[:4+(c+i)%2]
	start := 2000 + float64(i)*8000
	end := start + 2600 + float64((c*7+i*3)%10)*20
	tr := end + 700 + 15*float64(n) + float64((c*13+i*7)%10)*12
	reply := tr + 180 + 20*float64(n) + float64((c*11+i*5)%10)*15
	t := callers.Turn{
		Schema: callers.Schema, Call: c, CallID: fmt.Sprintf("CA%04d", c), Step: step, Turn: i,
		Transport: "twilio", Phrase: phrase, Voice: "slt",
		Wall: wall.Add(time.Duration(start) * time.Millisecond),
		Marks: callers.Marks{SpeechStart: ms(start), SpeechEnd: ms(end), Transcript: ms(tr),
			ReplyStart: ms(reply), ReplyEnd: ms(reply + 2400)},
		TranscriptChannel: channel,
		Heard:             speech.Words(phrase),
		Replies:           1,
		AgentAudio:        3000,
		LongestGap:        callers.Ms(20 + (c+i)%3*10),
		LatenessP99:       callers.Ms(0.8 + float64(n)*0.1),
		LatenessMax:       callers.Ms(2 + float64(n)*0.5),
	}
	if channel {
		t.ServerTranscripts = []string{speech.Words(phrase)}
	}
	return t
}

// synthStep is step (1-based) of n calls with k turns each.
func synthStep(step, n, k, firstCall int, channel bool) StepData {
	from := synthStart.Add(time.Duration(step-1) * 150 * time.Second).Add(18 * time.Second)
	d := StepData{N: n, Window: [2]time.Time{from, from.Add(2 * time.Minute)}}
	for j := range n {
		c := firstCall + j
		wall := from.Add(time.Duration(j) * 100 * time.Millisecond)
		d.Calls = append(d.Calls, callers.CallResult{
			Schema: callers.Schema, Call: c, CallID: fmt.Sprintf("CA%04d", c), Step: step,
			Transport: "twilio", Seed: 42, Wall: wall, Connected: true,
			Connect: ms(40 + float64(j)*3), SessionStart: ms(300 + float64(j)*10),
			Turns: k, EndedBy: "caller", Duration: callers.Ms(k*8000 + 2000),
		})
		for i := range k {
			d.Turns = append(d.Turns, synthTurn(step, n, c, i, wall, channel))
		}
	}
	return d
}

func synthConfig() RunConfig {
	return RunConfig{
		Target: "ws://127.0.0.1:8080/twilio/ws", Transport: "twilio", Steps: []int{1, 2, 4, 8},
		StepDuration: 120000, Ramp: 10000, Warmup: 8000, Seed: 42,
		Extra: map[string]string{"scenario": "ramp"},
	}
}

// synthSteps is the golden run's records.
func synthSteps() []StepData {
	s1 := synthStep(1, 1, 5, 0, true)
	s2 := synthStep(2, 2, 5, 1, true)
	s4 := synthStep(3, 4, 5, 3, true) // 20 turns x 3 s: 1 min of agent audio
	s4.Turns[4].Underruns, s4.Turns[13].Underruns = 1, 1
	s4.Turns[13].LongestGap = 52
	s8 := synthStep(4, 8, 5, 7, true)
	for i := range s8.Turns {
		s8.Turns[i].LatenessP99 = 12 + callers.Ms(i%4)
		s8.Turns[i].LatenessMax = 31
	}
	late := &s8.Turns[1]
	late.LateTranscripts, late.ServerTranscripts = late.ServerTranscripts, nil
	late.Marks.Transcript, late.Marks.ReplyStart, late.Marks.ReplyEnd, late.Heard = nil, nil, nil, ""
	late.Error = "timeout: no reply within 8s"
	garbled := &s8.Turns[17]
	garbled.Heard, garbled.Underruns, garbled.LongestGap = "seven", 1, 140
	wrong := &s8.Turns[29]
	wrong.ServerTranscripts = []string{"one two three"}
	wrong.Heard = "one two three"
	s8.Calls[6].EndedBy = "agent"
	s1.AgentCPUMilli, s1.AgentRSSMiBPerCall = f64(71), f64(45)
	s2.AgentCPUMilli, s2.AgentRSSMiBPerCall = f64(66), f64(44)
	s4.AgentCPUMilli, s4.AgentRSSMiBPerCall = f64(63), f64(46)
	s1.GeneratorCPU, s2.GeneratorCPU, s4.GeneratorCPU, s8.GeneratorCPU = 0.1, 0.15, 0.3, 0.72
	// The host took a fifth of the machine during the overloaded step, and ~nothing before.
	s1.MachineSteal, s2.MachineSteal, s4.MachineSteal, s8.MachineSteal = 0.01, 0, 0.02, 0.2
	return []StepData{s1, s2, s4, s8}
}

var synthMachine = Machine{Hostname: "golden", OS: "linux", Arch: "amd64", Cores: 8, GoVersion: "go1.26.8",
	CPUModel: "Synthetic CPU @ 3.00GHz"}

// synthReport builds the golden report with a fixed machine.
func synthReport() *Report {
	r := Build(synthConfig(), synthSteps(), checks.DefaultThresholds())
	r.Machine = synthMachine
	return r
}

// synthReportNA is a target without a transcript channel: one step, one misheard reply.
func synthReportNA() *Report {
	d := synthStep(1, 2, 4, 0, false)
	d.Turns[5].Heard = "nine"
	d.MachineSteal = -1 // a platform without /proc/stat
	cfg := synthConfig()
	cfg.Transport, cfg.Steps = "webrtc", []int{2}
	r := Build(cfg, []StepData{d}, checks.DefaultThresholds())
	r.Machine = synthMachine
	return r
}

// withAgentText gives every turn of d the agent's own reply text: the phrase, as it meant to say.
func withAgentText(d StepData) StepData {
	for i := range d.Turns {
		d.Turns[i].AgentText = []string{speech.Words(d.Turns[i].Phrase)}
	}
	return d
}

// slipped is digits with its last digit changed: one STT edit off.
func slipped(digits string) string {
	last := (digits[len(digits)-1]-'0'+1)%10 + '0'
	return digits[:len(digits)-1] + string(last)
}

// synthReportEars is an agent whose voice the caller's ears do not hear reliably. N=1: two of ten
// replies misheard (the agent's text is the phrase), so the calibration (80 %) is untrusted and
// the step passes on the agent's text; N=2: the agent's STT slipped one digit, not tolerated; N=4:
// the ears fell behind on two replies (unjudged), so the step is generator_bound.
func synthReportEars() *Report {
	s1 := withAgentText(synthStep(1, 1, 10, 0, true))
	s1.Turns[3].Heard, s1.Turns[7].Heard = "nine eight", "nine eight"
	s2 := withAgentText(synthStep(2, 2, 5, 1, true))
	s2.Turns[4].ServerTranscripts = []string{speech.Words(slipped(speech.Normalize(s2.Turns[4].Phrase)))}
	s4 := withAgentText(synthStep(3, 4, 5, 3, true))
	for i := range s4.Turns {
		s4.Turns[i].DecodeWait, s4.Turns[i].DecodeTime = callers.Ms(5+i), callers.Ms(120+3*i)
	}
	for _, i := range []int{2, 11} {
		s4.Turns[i].Unjudged, s4.Turns[i].Heard = "queue_full", ""
		s4.Turns[i].DecodeTime = 0
	}
	for _, d := range []*StepData{&s1, &s2, &s4} {
		d.GeneratorCPU, d.MachineSteal = 0.2, 0
	}
	cfg := synthConfig()
	cfg.Transport, cfg.Steps = "webrtc", []int{1, 2, 4}
	r := Build(cfg, []StepData{s1, s2, s4}, checks.DefaultThresholds())
	r.Machine = synthMachine
	return r
}

// synthReportCut is a run stopped by the user during its third step, with slips tolerated. N=2:
// one of twenty replies heard one digit off (a caller slip), within --tolerate-slips 50 and at
// the calibration's bound (95 %); N=4 clean; N=8 cut short with every call's second turn in
// flight, so capacity is at least 4.
func synthReportCut() *Report {
	cfg := synthConfig()
	cfg.Steps = []int{2, 4, 8, 16}
	th := checks.DefaultThresholds()
	th.TolerateSlips = 50
	r := Build(cfg, synthCutSteps(), th)
	r.Machine = synthMachine
	r.Stopped = &Stop{Reason: StopInterrupted}
	return r
}

// synthCutSteps are synthReportCut's records.
func synthCutSteps() []StepData {
	s2 := withAgentText(synthStep(1, 2, 10, 0, true))
	s2.Turns[6].Heard = speech.Words(slipped(speech.Normalize(s2.Turns[6].Phrase)))
	s4 := withAgentText(synthStep(2, 4, 5, 2, true))
	s8 := withAgentText(synthStep(3, 8, 2, 6, true))
	for i := 1; i < len(s8.Turns); i += 2 {
		t := &s8.Turns[i]
		t.Marks.Transcript, t.Marks.ReplyStart, t.Marks.ReplyEnd = nil, nil, nil
		t.ServerTranscripts, t.AgentText, t.Heard, t.AgentAudio = nil, nil, "", 0
		t.Error = "cancelled: the run was stopped"
	}
	for i := range s8.Calls {
		s8.Calls[i].EndedBy = callers.EndedByCancelled
	}
	s8.Cut = true
	for _, d := range []*StepData{&s2, &s4, &s8} {
		d.GeneratorCPU, d.MachineSteal = 0.2, 0
	}
	return []StepData{s2, s4, s8}
}
