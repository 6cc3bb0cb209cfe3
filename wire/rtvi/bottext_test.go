package rtvi

import (
	"errors"
	"strings"
	"testing"
)

func TestBotOutputShape(t *testing.T) {
	b, err := Encode(BotOutput("seven one three four"))
	if err != nil {
		t.Fatal(err)
	}
	// As pipecat's RTVIBotOutputMessage serialises a spoken sentence (exclude_none).
	want := `{"label":"rtvi-ai","type":"bot-output","data":{"text":"seven one three four","spoken":true,"aggregated_by":"sentence"}}`
	if string(b) != want {
		t.Errorf("Encode = %s\nwant   %s", b, want)
	}
	o, err := BotOutput("x").Output()
	if err != nil || o.Text != "x" || !o.Spoken || o.AggregatedBy != AggregatedBySentence {
		t.Errorf("Output = %+v, %v", o, err)
	}
	if _, err := BotTTSText("x").Output(); !errors.Is(err, ErrWrongType) {
		t.Errorf("Output of bot-tts-text: %v", err)
	}
	if _, err := (Message{Type: TypeBotOutput, Data: []byte(`{"spoken":true}`)}).Output(); !errors.Is(err, ErrMissingField) {
		t.Errorf("Output without text: %v", err)
	}
}

func TestBotText(t *testing.T) {
	msg := func(typ, data string) Message { return Message{Label: Label, Type: typ, Data: []byte(data)} }
	tests := []struct {
		name   string
		m      Message
		want   string
		stream bool
		ok     bool
	}{
		{"bot-output spoken (2.1, TTS path)", BotOutput("Seven one."), "Seven one.", false, true},
		{"bot-output announced (2.4 word timestamps)", msg(TypeBotOutput,
			`{"text":"seven one","spoken":false,"will_be_spoken":true,"aggregated_by":"sentence","segment_id":"s1","spoken_status":"new"}`), "seven one", false, true},
		{"bot-output progress", msg(TypeBotOutput,
			`{"text":"seven","will_be_spoken":true,"aggregated_by":"sentence","segment_id":"s1","spoken_status":"in-progress","spoken_progress":{"accumulated_text":"seven","remaining_text":"one"}}`), "", false, false},
		{"bot-output progress completed", msg(TypeBotOutput,
			`{"text":"one","will_be_spoken":true,"aggregated_by":"sentence","segment_id":"s1","spoken_status":"completed"}`), "", false, false},
		{"bot-output not to be spoken", msg(TypeBotOutput, `{"text":"<code>","spoken":false,"aggregated_by":"code"}`), "", false, false},
		{"bot-output will_be_spoken false", msg(TypeBotOutput, `{"text":"x","spoken":true,"will_be_spoken":false}`), "", false, false},
		{"bot-output without text", msg(TypeBotOutput, `{"spoken":true}`), "", false, false},
		{"bot-output cleaned", BotOutput("one\x1b[2Jtwo\n"), "onetwo", false, true},
		{"bot-tts-text", BotTTSText("one two"), "one two", false, true},
		{"bot-transcription", BotTranscription("one two."), "one two.", false, true},
		{"bot-llm-text keeps its spaces", BotLLMText(" seven "), " seven ", true, true},
		{"bot-llm-text cleaned", BotLLMText("\tse\x07ven"), " seven", true, true},
		{"bot-llm-text blank", BotLLMText("  "), "", true, false},
		{"empty tts text", BotTTSText(""), "", false, false},
		{"user transcription is not the agent's", UserTranscription("one", true, ts), "", false, false},
		{"event", Event(TypeBotStartedSpeaking), "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bt, ok := tt.m.BotText()
			if ok != tt.ok || (ok && (bt.Text != tt.want || bt.Stream != tt.stream || bt.Kind != tt.m.Type)) {
				t.Fatalf("BotText = %+v, %v; want %q stream=%v ok=%v", bt, ok, tt.want, tt.stream, tt.ok)
			}
		})
	}
}

func TestBotTextRank(t *testing.T) {
	order := []string{TypeBotOutput, TypeBotTTSText, TypeBotTranscription, TypeBotLLMText, TypeUserTranscription}
	for i := 1; i < len(order); i++ {
		if BotTextRank(order[i-1]) <= BotTextRank(order[i]) {
			t.Errorf("rank(%s) = %d, not above rank(%s) = %d", order[i-1], BotTextRank(order[i-1]), order[i], BotTextRank(order[i]))
		}
	}
	if BotTextRank(TypeUserTranscription) != 0 {
		t.Error("a user transcription ranks as the agent's text")
	}
}

func TestBotTextCapped(t *testing.T) {
	bt, ok := BotOutput(strings.Repeat("nine ", 1000)).BotText()
	if !ok || len(bt.Text) > MaxTextSize+len("…") {
		t.Errorf("BotText of %d bytes, ok %v", len(bt.Text), ok)
	}
}
