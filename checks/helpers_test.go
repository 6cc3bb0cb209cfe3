package checks

import (
	"github.com/callfleet/callfleet/callers"
)

func ms(v float64) *callers.Ms { m := callers.Ms(v); return &m }

// goodTurn is an understood turn of call c: phrase 71345 heard and answered right.
func goodTurn(c, i int) callers.Turn {
	start := 1000 + float64(i)*6000
	return callers.Turn{
		Schema: callers.Schema, Call: c, Turn: i, Phrase: "71345",
		Marks: callers.Marks{
			SpeechStart: ms(start), SpeechEnd: ms(start + 2500), Transcript: ms(start + 3300),
			ReplyStart: ms(start + 3500), ReplyEnd: ms(start + 5500),
		},
		ServerTranscripts: []string{"seven one three four five"},
		TranscriptChannel: true,
		Heard:             "7 1 3 4 5",
		Replies:           1,
		AgentAudio:        3000,
		LatenessP99:       1,
		LatenessMax:       2,
	}
}

func goodCall(c int) callers.CallResult {
	return callers.CallResult{Schema: callers.Schema, Call: c, Connected: true, Connect: ms(40),
		SessionStart: ms(300), Turns: 1, EndedBy: "caller"}
}

// stepOf builds a step of n calls, each with k good turns, then applies mut to every turn.
func stepOf(n, k int, mut func(t *callers.Turn)) StepInput {
	s := StepInput{N: n}
	for c := range n {
		call := goodCall(c)
		call.Turns = k
		s.Calls = append(s.Calls, call)
		for i := range k {
			t := goodTurn(c, i)
			if mut != nil {
				mut(&t)
			}
			s.Turns = append(s.Turns, t)
		}
	}
	return s
}
