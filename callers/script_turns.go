package callers

import "github.com/callfleet/callfleet/wire/rtvi"

// Turns reads a trace as the turn records Run writes: one per cue said, with the finals filed by
// Run's rule (a final belongs to the latest phrase under way; one arriving while the next
// phrase's first words are spoken is late for the one before), the reply to it and what the
// caller heard in it. A replayed call is compared with its original through these.
func (t Trace) Turns() []Turn {
	out := make([]Turn, len(t.Said))
	for i, s := range t.Said {
		out[i] = t.turn(i, s)
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
	}
	last := i == len(t.Said)-1
	switch {
	case ok && r.End != nil && r.HeardErr != "":
		rec.Error = ReasonTranscribe
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
