package twilio

import (
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers/listen"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// truth is what the caller should have measured of one reply, worked out independently of the
// caller from the agent's own log of what it sent when.
type truth struct {
	delay      time.Duration // caller's speech_end frame heard -> first voiced reply audio sent
	voiced     time.Duration // first through last voiced frame of the reply
	underruns  int           // times a far end playing from the first arrival ran dry mid-reply
	borderline int           // dry spells within 5 ms of the tolerance: either count is right
	longest    time.Duration
}

const frame = 20 * time.Millisecond

func replyTruth(o observed) truth {
	frames := decodeAsCaller(o.reply.Mulaw[o.from:])
	det := listen.NewDetector(0, 0)
	first, last := -1, -1
	for i, f := range frames {
		if det.Voiced(f) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	tr := truth{delay: o.firstSent.Sub(o.heardEnd) + time.Duration(first)*frame,
		voiced: time.Duration(last-first+1) * frame}
	tol := listen.DefaultTolerance
	var end time.Time
	idx := 0
	for i, s := range o.sends {
		if i == 0 || s.at.After(end) {
			gap := s.at.Sub(end)
			if i > 0 && idx > first && idx <= last { // speech resumes after the dry spell
				switch {
				case gap >= tol+5*time.Millisecond:
					tr.underruns++
					tr.longest = max(tr.longest, gap)
				case gap > tol-5*time.Millisecond:
					tr.borderline++
				}
			}
			end = s.at
		}
		end = end.Add(time.Duration(s.frames) * frame)
		idx += s.frames
	}
	return tr
}

// decodeAsCaller turns mu-law frames into the 16 kHz frames the caller plays, as its reader
// does: mu-law decode, then a streaming resampler.
func decodeAsCaller(mulaw [][]byte) [][]int16 {
	up, err := audio.NewResampler(tw.SampleRate, 16000)
	if err != nil {
		panic(err)
	}
	var pcm []int16
	for _, f := range mulaw {
		pcm = up.ProcessTo(pcm, audio.MulawDecode(nil, f))
	}
	var out [][]int16
	for i := 0; i+listen.FrameSamples <= len(pcm); i += listen.FrameSamples {
		out = append(out, pcm[i:i+listen.FrameSamples])
	}
	return out
}
