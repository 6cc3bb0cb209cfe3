package listen

import (
	"math"
	"time"
)

// Reply-detection defaults.
const (
	// DefaultThreshold is the level, in dBFS RMS over a 20 ms frame, above which agent audio is
	// speech: the floor the caller's own speech marks use (tts.VoicedBounds). Measured on flite
	// voices through mu-law (TestThresholdOnVoices), -45 finds a reply's onset within a frame of
	// its first voiced sample for most phrases, where -40 was 4-7 frames late on soft onsets
	// ("four", "seven", "six") and -50 fired early on kal16 and awb breath noise.
	DefaultThreshold = -45.0
	// DefaultSilence is the reply-silence window: this long without a voiced frame ends a reply.
	DefaultSilence = 800 * time.Millisecond
)

// Reply is one agent reply as the far end played it.
type Reply struct {
	Seq   int       // replies counted from 1 over the call
	Start time.Time // play time of the first voiced frame
	End   time.Time // play time of the last voiced frame
	// Underruns counts the times the buffer ran dry between Start and End; LongestGap is the
	// longest of those silences.
	Underruns  int
	LongestGap time.Duration
	// AgentAudio is the agent audio played from Start through End, voiced or not.
	AgentAudio time.Duration
}

// Detector finds replies in played frames by level: a reply starts at the first voiced agent
// frame and ends at the last voiced one before Silence without any. It is not safe for
// concurrent use.
type Detector struct {
	silence time.Duration
	thr     int64 // sum of squares over a frame at the threshold

	in         bool
	cur        Reply
	seq        int
	lastVoiced time.Time
	agent      int // agent frames since Start
	agentAtEnd int // agent frames from Start through the last voiced frame
	gaps       int // dry gaps since the last voiced frame: underruns once speech resumes
	gapMax     time.Duration
}

// NewDetector returns a detector with a threshold in dBFS and a reply-silence window; zero values
// take the defaults.
func NewDetector(thresholdDBFS float64, silence time.Duration) *Detector {
	if thresholdDBFS == 0 {
		thresholdDBFS = DefaultThreshold
	}
	if silence <= 0 {
		silence = DefaultSilence
	}
	rms := 32768 * math.Pow(10, thresholdDBFS/20)
	return &Detector{silence: silence, thr: int64(rms * rms * FrameSamples)}
}

// Voiced reports whether a frame's RMS level is above the threshold.
func (d *Detector) Voiced(pcm []int16) bool {
	var sum int64
	for _, s := range pcm {
		sum += int64(s) * int64(s)
	}
	return sum*FrameSamples > d.thr*int64(len(pcm)) // scale for frames of other lengths
}

// InReply reports whether a reply is under way.
func (d *Detector) InReply() bool { return d.in }

// Current is the reply under way, or the last one.
func (d *Detector) Current() Reply { return d.cur }

// EventKind says what a frame did to the reply state.
type EventKind uint8

const (
	EventNone EventKind = iota
	EventReplyStarted
	EventReplyEnded
)

func (k EventKind) String() string {
	switch k {
	case EventReplyStarted:
		return "reply-started"
	case EventReplyEnded:
		return "reply-ended"
	}
	return "none"
}

// Frame takes the next played frame and reports whether it was voiced and whether it started or
// ended a reply (Current then holds that reply).
func (d *Detector) Frame(f Frame) (voiced bool, ev EventKind) {
	voiced = f.Agent && d.Voiced(f.PCM)
	if !d.in {
		if voiced {
			d.seq++
			d.in, d.cur = true, Reply{Seq: d.seq, Start: f.At, End: f.At}
			d.lastVoiced, d.agent, d.agentAtEnd, d.gaps, d.gapMax = f.At, 1, 1, 0, 0
			return true, EventReplyStarted
		}
		return false, EventNone
	}
	if f.Gap > 0 {
		d.gaps++
		d.gapMax = max(d.gapMax, f.Gap)
	}
	if f.Agent {
		d.agent++
	}
	if voiced {
		// Gaps count only once speech resumes: a gap after the last word is not inside the reply.
		d.cur.Underruns += d.gaps
		d.cur.LongestGap = max(d.cur.LongestGap, d.gapMax)
		d.gaps, d.gapMax = 0, 0
		d.lastVoiced, d.cur.End, d.agentAtEnd = f.At, f.At, d.agent
		return true, EventNone
	}
	if f.At.Sub(d.lastVoiced.Add(FrameDuration)) >= d.silence {
		d.in = false
		d.cur.AgentAudio = time.Duration(d.agentAtEnd) * FrameDuration
		return false, EventReplyEnded
	}
	return false, EventNone
}
