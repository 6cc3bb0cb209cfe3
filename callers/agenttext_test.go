package callers

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/wire/rtvi"
)

func bot(m rtvi.Message) rtvi.BotText {
	bt, ok := m.BotText()
	if !ok {
		panic("not bot text: " + m.String())
	}
	return bt
}

func TestAgentText(t *testing.T) {
	tokens := []rtvi.BotText{bot(rtvi.BotLLMText("Seven")), bot(rtvi.BotLLMText(" one")), bot(rtvi.BotLLMText(" three."))}
	tests := []struct {
		name string
		in   []rtvi.BotText
		want []string
	}{
		{"none", nil, nil},
		{"llm tokens are joined", tokens, []string{"Seven one three."}},
		{"spoken text replaces the tokens", append(slices.Clone(tokens), bot(rtvi.BotOutput("Seven one.")), bot(rtvi.BotOutput("Three."))),
			[]string{"Seven one.", "Three."}},
		{"bot-output outranks bot-tts-text, whichever comes first", []rtvi.BotText{
			bot(rtvi.BotTTSText("a")), bot(rtvi.BotOutput("b")), bot(rtvi.BotTTSText("c")), bot(rtvi.BotTranscription("d"))}, []string{"b"}},
		{"tokens after spoken text are ignored", []rtvi.BotText{bot(rtvi.BotTTSText("one two")), bot(rtvi.BotLLMText(" three"))}, []string{"one two"}},
		{"bot-transcription when nothing better", []rtvi.BotText{bot(rtvi.BotLLMText("x")), bot(rtvi.BotTranscription("one two."))}, []string{"one two."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a agentText
			for _, bt := range tt.in {
				a.add(bt)
			}
			if got := a.list(); !slices.Equal(got, tt.want) {
				t.Errorf("list = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestAgentTextBounded: an agent streaming text without end leaves at most maxAgentPieces
// pieces and maxAgentBytes bytes in the record.
func TestAgentTextBounded(t *testing.T) {
	for _, kind := range []func(string) rtvi.Message{rtvi.BotOutput, rtvi.BotLLMText} {
		var a agentText
		piece := bot(kind(" nine nine nine nine nine nine nine nine nine nine nine nine nine"))
		for range 10000 {
			a.add(piece)
		}
		got := a.list()
		size := 0
		for _, p := range got {
			size += len(p)
		}
		if len(got) > maxAgentPieces || size > maxAgentBytes || size < maxAgentBytes/2 {
			t.Errorf("%s: %d pieces, %d bytes", kind("").Type, len(got), size)
		}
	}
}

// TestRunAgentText: the agent's own text reaches the turn whose reply it is; its tokens give
// way to the spoken text.
func TestRunAgentText(t *testing.T) {
	t.Parallel()
	s := script{delay: 150 * time.Millisecond, transcript: 100 * time.Millisecond, botText: func(digits string) []rtvi.Message {
		words := speech.Words(digits)
		out := []rtvi.Message{rtvi.Event(rtvi.TypeBotLLMStarted)}
		for _, w := range strings.Fields(words) {
			out = append(out, rtvi.BotLLMText(" "+w))
		}
		return append(out, rtvi.BotOutput(words), rtvi.BotTTSText(words), rtvi.BotTranscription(words))
	}}
	_, rec := runWith(t, s, basePlan(), nil, nil)
	if len(rec.turns) != 2 {
		t.Fatalf("%d turns", len(rec.turns))
	}
	for _, tr := range rec.turns {
		if want := []string{speech.Words(tr.Phrase)}; !slices.Equal(tr.AgentText, want) {
			t.Errorf("turn %d: agent text %q, want %q", tr.Turn, tr.AgentText, want)
		}
		if len(tr.ServerTranscripts) != 1 { // the agent's text is not a server transcript
			t.Errorf("turn %d: server transcripts %q", tr.Turn, tr.ServerTranscripts)
		}
	}
}

// TestTraceTurnsEarsAndAgentText: a scripted call's turns carry the ears' figures and the
// agent's text by Run's rules.
func TestTraceTurnsEarsAndAgentText(t *testing.T) {
	end1, end2 := Ms(3000), Ms(8000)
	tr := Trace{
		Said: []Said{
			{Digits: "1234", SpeechStart: 500, SpeechEnd: 2000, LateEnd: 1000, Reply: 1},
			{Digits: "5678", SpeechStart: 5000, SpeechEnd: 6500, LateEnd: 5500, Reply: 2},
		},
		Replies: []HeardReply{
			{Seq: 1, Start: 2500, End: &end1, Heard: "1234", DecodeWait: 3, DecodeTime: 40},
			{Seq: 2, Start: 7000, End: &end2, Unjudged: listen.UnjudgedQueueFull, HeardErr: "queue"},
		},
		Events: []AgentEvent{
			{At: 100, Type: rtvi.TypeBotOutput, Text: "hello"}, // a greeting: no turn's
			{At: 2400, Type: rtvi.TypeBotLLMText, Text: "one"},
			{At: 2450, Type: rtvi.TypeBotOutput, Text: "one two three four"},
			{At: 5200, Type: rtvi.TypeBotOutput, Text: "during the next phrase"},
			{At: 6900, Type: rtvi.TypeBotLLMText, Text: " five"},
			{At: 6950, Type: rtvi.TypeBotLLMText, Text: " six"},
		},
		EndedBy: EndedByCaller,
	}
	turns := tr.Turns()
	if got := turns[0]; !slices.Equal(got.AgentText, []string{"one two three four"}) || got.DecodeWait != 3 || got.DecodeTime != 40 ||
		got.Unjudged != "" || got.Error != "" {
		t.Errorf("turn 1: %+v", got)
	}
	if got := turns[1]; !slices.Equal(got.AgentText, []string{"five six"}) || got.Unjudged != listen.UnjudgedQueueFull || got.Error != "" {
		t.Errorf("turn 2: %+v", got)
	}
	tr.Replies[1] = HeardReply{Seq: 2, Start: 7000, End: &end2, HeardErr: "an old trace's failure"}
	if got := tr.Turns()[1]; got.Unjudged != listen.UnjudgedFailed || got.Error != "" {
		t.Errorf("old trace: unjudged %q error %q", got.Unjudged, got.Error)
	}
	tr.Replies[1] = HeardReply{Seq: 2, Start: 7000, End: &end2, Cancelled: true}
	if got := tr.Turns()[1]; got.Error != ReasonCancelled || got.Unjudged != "" {
		t.Errorf("cancelled: unjudged %q error %q", got.Unjudged, got.Error)
	}
}
