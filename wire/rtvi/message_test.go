package rtvi

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/internal/golden"
)

var ts = time.Date(2026, 8, 21, 16, 51, 30, 123456789, time.FixedZone("EDT", -4*3600))

// constructed lists one message of each constructor, the golden file's content.
func constructed() []Message {
	about := About{Library: "callfleet", LibraryVersion: "0.1.0"}
	return []Message{
		ClientReady("c1", about),
		BotReady("c1", About{Library: "pipecat-ai", LibraryVersion: "0.0.90"}),
		Event(TypeUserStartedSpeaking),
		Event(TypeUserStoppedSpeaking),
		UserTranscription("seven one three four", true, ts),
		UserTranscription("seven one", false, ts),
		Event(TypeBotStartedSpeaking),
		BotLLMText("You said 7134."),
		BotTTSText("You said 7134."),
		BotTranscription("You said 7134."),
		Event(TypeBotStoppedSpeaking),
		ErrorEvent("stt failed", true),
		DisconnectBot("d1"),
	}
}

func TestConstructorsGolden(t *testing.T) {
	var out []byte
	for _, m := range constructed() {
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("Encode(%v): %v", m, err)
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode(%s): %v", b, err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip of %s:\n got %#v\nwant %#v", b, back, m)
		}
		out = append(append(out, b...), '\n')
	}
	golden.Check(t, "messages.jsonl", out)
}

func TestPipecatShapes(t *testing.T) {
	// Shapes as pipecat's models serialise them (exclude_none): events without id, data keys in
	// model order, Python isoformat timestamps.
	tests := []struct {
		got  Message
		want string
	}{
		{Event(TypeBotStartedSpeaking), `{"label":"rtvi-ai","type":"bot-started-speaking"}`},
		{UserTranscription("hi", true, ts), `{"label":"rtvi-ai","type":"user-transcription","data":{"text":"hi","user_id":"","timestamp":"2026-08-21T20:51:30.123+00:00","final":true}}`},
		{BotReady("r1", About{Library: "pipecat-ai"}), `{"label":"rtvi-ai","type":"bot-ready","id":"r1","data":{"version":"2.1.0","about":{"library":"pipecat-ai"}}}`},
		{BotTranscription("<ok> & done"), `{"label":"rtvi-ai","type":"bot-transcription","data":{"text":"<ok> & done"}}`},
	}
	for _, tt := range tests {
		b, err := Encode(tt.got)
		if err != nil {
			t.Fatal(err)
		}
		if tt.want != string(b) {
			t.Errorf("Encode = %s\nwant   %s", b, tt.want)
		}
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, in string
		want     Message
		err      error
	}{
		{"event", `{"label":"rtvi-ai","type":"user-stopped-speaking"}`, Event(TypeUserStoppedSpeaking), nil},
		{"null data and id", `{"label":"rtvi-ai","type":"x","id":null,"data":null}`, Message{Label: Label, Type: "x"}, nil},
		{"data compacted, extra keys ignored", `{"label":"rtvi-ai","type":"bot-tts-text","data":{ "text" : "a b" },"extra":1}`,
			Message{Label: Label, Type: "bot-tts-text", Data: []byte(`{"text":"a b"}`)}, nil},
		{"signalling is not rtvi", `{"type":"signalling","message":{"type":"peerLeft"}}`, Message{}, ErrNotRTVI},
		{"other label", `{"label":"other","type":"x"}`, Message{}, ErrNotRTVI},
		{"no type", `{"label":"rtvi-ai","data":{}}`, Message{}, ErrMissingField},
		{"data array", `{"label":"rtvi-ai","type":"x","data":[1]}`, Message{}, ErrMalformed},
		{"data string", `{"label":"rtvi-ai","type":"x","data":"s"}`, Message{}, ErrMalformed},
		{"id number", `{"label":"rtvi-ai","type":"x","id":5}`, Message{}, ErrMalformed},
		{"ping", `ping: 1724260000`, Message{}, ErrMalformed},
		{"too large", `{"label":"rtvi-ai","type":"x","data":{"a":"` + strings.Repeat("x", MaxMessageSize) + `"}}`, Message{}, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	for _, m := range []Message{
		{Label: Label},
		{Type: "x", Data: []byte(`[1]`)},
		{Type: "x", Data: []byte(`{bad`)},
	} {
		if _, err := Encode(m); err == nil {
			t.Errorf("Encode(%#v) succeeded", m)
		}
	}
	b, err := Encode(Message{Type: "x"})
	if err != nil || string(b) != `{"label":"rtvi-ai","type":"x"}` {
		t.Errorf("Encode without label = %s, %v", b, err)
	}
}

func TestAccessors(t *testing.T) {
	text, final, err := UserTranscription("seven", false, ts).Transcription()
	if err != nil || text != "seven" || final {
		t.Errorf("user Transcription = %q %v %v", text, final, err)
	}
	text, final, err = BotTranscription("ok").Transcription()
	if err != nil || text != "ok" || !final {
		t.Errorf("bot Transcription = %q %v %v", text, final, err)
	}
	if _, _, err := Event(TypeBotStartedSpeaking).Transcription(); !errors.Is(err, ErrWrongType) {
		t.Errorf("Transcription of an event: %v", err)
	}
	noText := Message{Label: Label, Type: TypeBotTTSText, Data: []byte(`{"x":1}`)}
	if _, _, err := noText.Transcription(); !errors.Is(err, ErrMissingField) {
		t.Errorf("Transcription without text: %v", err)
	}
	noData := Message{Label: Label, Type: TypeUserTranscription}
	if _, _, err := noData.Transcription(); !errors.Is(err, ErrMissingField) {
		t.Errorf("Transcription without data: %v", err)
	}
	badData := Message{Label: Label, Type: TypeUserTranscription, Data: []byte(`{"text":1}`)}
	if _, _, err := badData.Transcription(); !errors.Is(err, ErrMalformed) {
		t.Errorf("Transcription with numeric text: %v", err)
	}

	tr, err := UserTranscription("x", true, ts).Transcript()
	if err != nil {
		t.Fatal(err)
	}
	when, err := tr.Time()
	if err != nil || !when.Equal(ts.Truncate(time.Millisecond)) {
		t.Errorf("Transcript.Time = %v, %v; want %v", when, err, ts.Truncate(time.Millisecond))
	}
	if _, err := (Transcript{Timestamp: "yesterday"}).Time(); !errors.Is(err, ErrMalformed) {
		t.Errorf("Time of a bad timestamp: %v", err)
	}
	if _, err := Event(TypeBotReady).Transcript(); !errors.Is(err, ErrWrongType) {
		t.Errorf("Transcript of bot-ready: %v", err)
	}

	r, err := BotReady("1", About{Library: "pipecat-ai"}).Ready()
	if err != nil || r.Version != ProtocolVersion || r.About == nil || r.About.Library != "pipecat-ai" {
		t.Errorf("Ready = %+v, %v", r, err)
	}
	if _, err := (Message{Type: TypeBotReady, Data: []byte(`{"about":{}}`)}).Ready(); !errors.Is(err, ErrMissingField) {
		t.Errorf("Ready without version: %v", err)
	}
	if _, err := Event(TypeError).Ready(); !errors.Is(err, ErrWrongType) {
		t.Errorf("Ready of error: %v", err)
	}

	msg, fatal, err := ErrorEvent("boom", true).ErrorText()
	if err != nil || msg != "boom" || !fatal {
		t.Errorf("ErrorText = %q %v %v", msg, fatal, err)
	}
	if _, _, err := Event(TypeBotReady).ErrorText(); !errors.Is(err, ErrWrongType) {
		t.Errorf("ErrorText of bot-ready: %v", err)
	}
}

func TestMisc(t *testing.T) {
	if !IsPing([]byte("ping: 123")) || IsPing([]byte(`{"label":"rtvi-ai"}`)) {
		t.Error("IsPing")
	}
	a, b := NewID(), NewID()
	if len(a) != 32 || a == b {
		t.Errorf("NewID = %q, %q", a, b)
	}
	long := BotTranscription(strings.Repeat("y", 200)).String()
	if len(long) > 120 || !strings.HasPrefix(long, "bot-transcription {") {
		t.Errorf("String = %q", long)
	}
	if s := DisconnectBot("d").String(); s != "disconnect-bot#d" {
		t.Errorf("String = %q", s)
	}
}
