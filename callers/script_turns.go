package callers

import (
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/wire/rtvi"
)

// Turns reads a trace as the turn records Run writes: one per cue said, with the finals filed by
// Run's rule (a final belongs to the latest phrase under way; one arriving while the next
// phrase's first words are spoken is late for the one before), the reply to it, what the
// caller heard in it and the agent's own text for it (Run's rule too: what arrives after the
// phrase's speech end and before the next one's speech start). A replayed call is compared with
// its original through these.
func (t Trace) Turns() []Turn {
	out := make([]Turn, len(t.Said))
	agent := make([]agentText, len(t.Said))
	for i, s := range t.Said {
		out[i] = t.turn(i, s)
	}
	for _, e := range t.Events {
		if j, ok := t.replyWindow(e.At); ok && e.Text != "" && rtvi.BotTextRank(e.Type) > 0 {
			agent[j].add(rtvi.BotText{Kind: e.Type, Text: e.Text, Stream: e.Type == rtvi.TypeBotLLMText})
		}
	}
	for i := range out {
		out[i].AgentText = agent[i].list()
	}
	for _, e := range t.Events {
		if e.Type != rtvi.TypeUserTranscription || !e.Final || len(out) == 0 {
			continue
		}
		j := 0
		for k, s := range t.Said {
			if s.SpeechStart <= e.At {
				j = k
			}
		}
		switch {
		case j > 0 && e.At < t.Said[j].LateEnd:
			out[j-1].LateTranscripts, _ = keepText(out[j-1].LateTranscripts, e.Text)
		default:
			var ok bool
			if out[j].ServerTranscripts, ok = keepText(out[j].ServerTranscripts, e.Text); !ok {
				continue
			}
			if out[j].Marks.Transcript == nil || (*out[j].Marks.Transcript < t.Said[j].SpeechEnd && e.At >= t.Said[j].SpeechEnd) {
				at := e.At
				out[j].Marks.Transcript = &at // the first final after speech end, else the first
			}
		}
	}
	return out
}

// replyWindow finds the cue whose reply an event at `at` belongs to: the last one whose speech
// ended at or before it, if the next one's speech had not started.
func (t Trace) replyWindow(at Ms) (int, bool) {
	for j := len(t.Said) - 1; j >= 0; j-- {
		s := t.Said[j]
		if s.SpeechStart > at || s.SpeechEnd == 0 || s.SpeechEnd > at {
			continue
		}
		return j, j+1 == len(t.Said) || t.Said[j+1].SpeechStart == 0 || at < t.Said[j+1].SpeechStart
	}
	return 0, false
}

// turn is the record of one cue said, finals aside.
func (t Trace) turn(i int, s Said) Turn {
	start, end := s.SpeechStart, s.SpeechEnd
	rec := Turn{
		Schema: Schema, Call: t.Call, CallID: t.CallID, Step: t.Step, Turn: i + 1, Transport: t.Transport,
		Phrase: s.Digits, Voice: s.Voice, Pause: s.Split, Wall: s.Wall,
		Marks:             Marks{SpeechStart: &start, SpeechEnd: &end},
		TranscriptChannel: t.TranscriptChannel,
		LatenessP99:       s.LatenessP99, LatenessMax: s.LatenessMax, LatenessHist: s.LatenessHist,
	}
	var until Ms = -1 // replies count up to the next phrase's speech start
	if i+1 < len(t.Said) {
		until = t.Said[i+1].SpeechStart
	}
	for _, r := range t.Replies {
		if r.Start >= start && (until < 0 || r.Start < until) {
			rec.Replies++
		}
	}
	r, ok := t.ReplyBySeq(s.Reply)
	if ok {
		rs := r.Start
		rec.Marks.ReplyStart, rec.Marks.ReplyEnd = &rs, r.End
		rec.Heard, rec.Underruns, rec.LongestGap, rec.AgentAudio = r.Heard, r.Underruns, r.LongestGap, r.AgentAudio
		rec.DecodeWait, rec.DecodeTime, rec.Unjudged = r.DecodeWait, r.DecodeTime, r.Unjudged
		if rec.Unjudged == "" && r.HeardErr != "" {
			rec.Unjudged = listen.UnjudgedFailed // a trace from before Unjudged was kept
		}
	}
	last := i == len(t.Said)-1
	switch {
	case ok && r.End != nil && r.Cancelled:
		rec.Error = ReasonCancelled // its reply was being heard when the call was stopped
	case ok && r.End != nil:
	case last && t.EndedBy == EndedByAgent:
		rec.Error, rec.Hangup = ReasonHangup, true
	case last && t.EndedBy == EndedByCancelled:
		rec.Error = ReasonCancelled
	case last && t.EndedBy == EndedByError:
		rec.Error = ReasonConnection
	case ok:
		rec.Error = ReasonReplyTimeout
	default:
		rec.Error = ReasonNoAnswer
	}
	return rec
}

// Result is the trace as the call record Run writes.
func (t Trace) Result() CallResult {
	return CallResult{
		Schema: Schema, Call: t.Call, CallID: t.CallID, Step: t.Step, Transport: t.Transport, Seed: t.Seed,
		Wall: t.Wall, Connected: t.Connected, Connect: t.Connect, SessionStart: t.Ready, Turns: len(t.Said),
		EndedBy: t.EndedBy, Error: t.Error, Duration: t.Duration,
	}
}
