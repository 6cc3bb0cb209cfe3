package rtvi

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/callfleet/callfleet/internal/safetext"
)

const (
	// Label is the label of every RTVI message.
	Label = "rtvi-ai"
	// ProtocolVersion is the RTVI version pipecat speaks (models.PROTOCOL_VERSION); pipecat accepts
	// clients of the same major version, and serves 1.x clients the legacy bot-output format.
	ProtocolVersion = "2.1.0"
	// MaxMessageSize caps the input Decode accepts.
	MaxMessageSize = 64 << 10
	// MaxTypeSize caps a message's type; pipecat's are a few lowercase words joined by hyphens.
	MaxTypeSize = 64
	// MaxTextSize caps the text the accessors return (transcripts, bot texts, error texts).
	MaxTextSize = safetext.MaxText
)

// Message types used by callfleet, as pipecat names them.
const (
	// Client to bot.
	TypeClientReady   = "client-ready"
	TypeClientMessage = "client-message"
	TypeDisconnectBot = "disconnect-bot"
	TypeSendText      = "send-text"
	// Bot to client.
	TypeBotReady            = "bot-ready"
	TypeError               = "error"
	TypeErrorResponse       = "error-response"
	TypeServerMessage       = "server-message"
	TypeServerResponse      = "server-response"
	TypeUserStartedSpeaking = "user-started-speaking"
	TypeUserStoppedSpeaking = "user-stopped-speaking"
	TypeUserTranscription   = "user-transcription"
	TypeUserLLMText         = "user-llm-text"
	TypeBotStartedSpeaking  = "bot-started-speaking"
	TypeBotStoppedSpeaking  = "bot-stopped-speaking"
	TypeBotInterrupted      = "bot-interrupted"
	TypeBotTranscription    = "bot-transcription"
	TypeBotOutput           = "bot-output"
	TypeBotLLMStarted       = "bot-llm-started"
	TypeBotLLMStopped       = "bot-llm-stopped"
	TypeBotLLMText          = "bot-llm-text"
	TypeBotTTSStarted       = "bot-tts-started"
	TypeBotTTSStopped       = "bot-tts-stopped"
	TypeBotTTSText          = "bot-tts-text"
	TypeMetrics             = "metrics"
)

// Message is one RTVI message. ID is empty for server events; Data is compact JSON (an object)
// or nil.
type Message struct {
	Label string          `json:"label"`
	Type  string          `json:"type"`
	ID    string          `json:"id,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
}

// About describes the library at one end: client-ready's about, and bot-ready's default about.
type About struct {
	Library         string `json:"library"`
	LibraryVersion  string `json:"library_version,omitempty"`
	Platform        string `json:"platform,omitempty"`
	PlatformVersion string `json:"platform_version,omitempty"`
}

// Ready is the data of client-ready and bot-ready.
type Ready struct {
	Version string `json:"version"`
	About   *About `json:"about,omitempty"`
}

// Transcript is the data of user-transcription.
type Transcript struct {
	Text   string `json:"text"`
	UserID string `json:"user_id"`
	// Timestamp is ISO 8601 with milliseconds, as Python's isoformat writes it.
	Timestamp string `json:"timestamp"`
	Final     bool   `json:"final"`
}

// Time parses Timestamp.
func (t Transcript) Time() (time.Time, error) {
	ts, err := time.Parse(time.RFC3339Nano, t.Timestamp)
	if err != nil {
		return time.Time{}, fmt.Errorf("rtvi transcript timestamp: %w: %v", ErrMalformed, err)
	}
	return ts, nil
}

// timestampLayout matches datetime.isoformat(timespec="milliseconds") on a UTC time.
const timestampLayout = "2006-01-02T15:04:05.000-07:00"

type textData struct {
	Text string `json:"text"`
}

type errorData struct {
	Error string `json:"error"`
	Fatal bool   `json:"fatal"`
}

// wire tells an absent label from an empty one and keeps data raw for validation.
type wire struct {
	Label *string         `json:"label"`
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Data  json.RawMessage `json:"data"`
}

// Decode parses one RTVI message. The label must be "rtvi-ai" and type non-empty; data, when
// present and not null, must be an object and is stored compacted.
func Decode(data []byte) (Message, error) {
	if len(data) > MaxMessageSize {
		return Message{}, fmt.Errorf("decode rtvi message: %w: %d bytes > %d", ErrTooLarge, len(data), MaxMessageSize)
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return Message{}, fmt.Errorf("decode rtvi message: %w: %v", ErrMalformed, err)
	}
	if w.Label == nil || *w.Label != Label {
		return Message{}, fmt.Errorf("decode rtvi message: %w", ErrNotRTVI)
	}
	if w.Type == "" {
		return Message{}, fmt.Errorf("decode rtvi message: %w: type", ErrMissingField)
	}
	if !validType(w.Type) {
		return Message{}, fmt.Errorf("decode rtvi message: %w: type of %d bytes is not a printable token", ErrMalformed, len(w.Type))
	}
	m := Message{Label: Label, Type: w.Type, ID: w.ID}
	if len(w.Data) > 0 && string(w.Data) != "null" {
		if w.Data[0] != '{' {
			return Message{}, fmt.Errorf("decode rtvi %s: %w: data is not an object", w.Type, ErrMalformed)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, w.Data); err != nil {
			return Message{}, fmt.Errorf("decode rtvi %s: %w: %v", w.Type, ErrMalformed, err)
		}
		m.Data = buf.Bytes()
	}
	return m, nil
}

// validType reports a type of at most MaxTypeSize printable ASCII bytes without spaces: a type is
// recorded and shown, so one the agent filled with escapes or megabytes is not a type.
func validType(t string) bool {
	if len(t) > MaxTypeSize {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] > '~' {
			return false
		}
	}
	return true
}

// Encode returns m as one line of compact JSON. An empty Label is written as "rtvi-ai"; Type must
// be set and Data, if any, must be a JSON object.
func Encode(m Message) ([]byte, error) {
	if m.Label == "" {
		m.Label = Label
	}
	if m.Type == "" {
		return nil, fmt.Errorf("encode rtvi message: %w: type", ErrMissingField)
	}
	if len(m.Data) > 0 && !bytes.HasPrefix(bytes.TrimLeft(m.Data, " \t\r\n"), []byte("{")) {
		return nil, fmt.Errorf("encode rtvi %s: %w: data is not an object", m.Type, ErrMalformed)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep data byte-identical to what Decode compacted
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("encode rtvi %s: %w: %v", m.Type, ErrMalformed, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// IsPing reports whether a data-channel text is a SmallWebRTC keepalive: pipecat treats any text
// starting with "ping" as one and, once it has seen one, considers the peer gone after 3 s
// without another.
func IsPing(text []byte) bool {
	return bytes.HasPrefix(text, []byte("ping"))
}

// NewID returns a random message id for client requests, which pipecat requires to carry one.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// Event returns a message of the given type with no id and no data, the shape of pipecat's
// speaking events (user-started-speaking, bot-stopped-speaking, …).
func Event(typ string) Message {
	return Message{Label: Label, Type: typ}
}

// UserTranscription returns a user-transcription event as pipecat's RTVIObserver sends it, with
// an empty user_id.
func UserTranscription(text string, final bool, ts time.Time) Message {
	return withData(TypeUserTranscription, "", Transcript{
		Text: text, Timestamp: ts.UTC().Format(timestampLayout), Final: final,
	})
}

// BotTranscription returns a bot-transcription event: text the bot spoke.
func BotTranscription(text string) Message {
	return withData(TypeBotTranscription, "", textData{Text: text})
}

// BotTTSText returns a bot-tts-text event: text sent to speech synthesis.
func BotTTSText(text string) Message {
	return withData(TypeBotTTSText, "", textData{Text: text})
}

// BotLLMText returns a bot-llm-text event: text the LLM produced.
func BotLLMText(text string) Message {
	return withData(TypeBotLLMText, "", textData{Text: text})
}

// BotReady returns the bot-ready reply to a client-ready whose id was id.
func BotReady(id string, about About) Message {
	return withData(TypeBotReady, id, Ready{Version: ProtocolVersion, About: &about})
}

// ClientReady returns the client-ready request a client sends once its transport is up; pipecat
// answers with bot-ready carrying the same id.
func ClientReady(id string, about About) Message {
	return withData(TypeClientReady, id, Ready{Version: ProtocolVersion, About: &about})
}

// ErrorEvent returns an error event; fatal means the bot's pipeline has stopped.
func ErrorEvent(text string, fatal bool) Message {
	return withData(TypeError, "", errorData{Error: text, Fatal: fatal})
}

// DisconnectBot returns the request that ends the bot's pipeline.
func DisconnectBot(id string) Message {
	return Message{Label: Label, Type: TypeDisconnectBot, ID: id}
}

func withData(typ, id string, v any) Message {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // write "<" as Python's json.dumps does, not as \u003c
	if err := enc.Encode(v); err != nil {
		panic("rtvi: marshal " + typ + ": " + err.Error()) // unreachable: plain structs of strings and bools
	}
	return Message{Label: Label, Type: typ, ID: id, Data: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
}

// DecodeData unmarshals m.Data into v.
func (m Message) DecodeData(v any) error {
	if len(m.Data) == 0 {
		return fmt.Errorf("decode rtvi %s data: %w: data", m.Type, ErrMissingField)
	}
	if err := json.Unmarshal(m.Data, v); err != nil {
		return fmt.Errorf("decode rtvi %s data: %w: %v", m.Type, ErrMalformed, err)
	}
	return nil
}

// Transcription returns the text of a transcript-like message and whether it is final:
// user-transcription reports its final field; bot-transcription, bot-tts-text, bot-llm-text,
// bot-output and user-llm-text carry complete segments and report true. The text is the agent's
// choice, so it comes cleaned (safetext.Clean: no control characters or escapes) and capped at
// MaxTextSize, as every accessor's text does.
func (m Message) Transcription() (text string, final bool, err error) {
	switch m.Type {
	case TypeUserTranscription:
		var t Transcript
		if err := m.DecodeData(&t); err != nil {
			return "", false, err
		}
		return cleanText(t.Text), t.Final, requireText(m.Type, m.Data)
	case TypeBotTranscription, TypeBotTTSText, TypeBotLLMText, TypeBotOutput, TypeUserLLMText:
		var t textData
		if err := m.DecodeData(&t); err != nil {
			return "", false, err
		}
		return cleanText(t.Text), true, requireText(m.Type, m.Data)
	}
	return "", false, fmt.Errorf("rtvi transcription: %w: %s", ErrWrongType, m.Type)
}

// cleanText makes an agent's text safe to record and show.
func cleanText(s string) string { return safetext.Clean(s, MaxTextSize) }

// requireText checks that data has a string "text" key; pipecat always sends one.
func requireText(typ string, data json.RawMessage) error {
	var probe struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(data, &probe) != nil || probe.Text == nil {
		return fmt.Errorf("decode rtvi %s data: %w: text", typ, ErrMissingField)
	}
	return nil
}

// Transcript returns the data of a user-transcription event, its text and ids cleaned.
func (m Message) Transcript() (Transcript, error) {
	if m.Type != TypeUserTranscription {
		return Transcript{}, fmt.Errorf("rtvi transcript: %w: %s", ErrWrongType, m.Type)
	}
	var t Transcript
	if err := m.DecodeData(&t); err != nil {
		return Transcript{}, err
	}
	t.Text, t.UserID, t.Timestamp = cleanText(t.Text), cleanText(t.UserID), cleanText(t.Timestamp)
	return t, requireText(m.Type, m.Data)
}

// Ready returns the data of a bot-ready or client-ready message; Version is required.
func (m Message) Ready() (Ready, error) {
	if m.Type != TypeBotReady && m.Type != TypeClientReady {
		return Ready{}, fmt.Errorf("rtvi ready: %w: %s", ErrWrongType, m.Type)
	}
	var r Ready
	if err := m.DecodeData(&r); err != nil {
		return Ready{}, err
	}
	if r.Version == "" {
		return Ready{}, fmt.Errorf("decode rtvi %s data: %w: version", m.Type, ErrMissingField)
	}
	return r, nil
}

// ErrorText returns the text of an error or error-response message and, for error, whether it
// was fatal.
func (m Message) ErrorText() (text string, fatal bool, err error) {
	if m.Type != TypeError && m.Type != TypeErrorResponse {
		return "", false, fmt.Errorf("rtvi error: %w: %s", ErrWrongType, m.Type)
	}
	var e errorData
	if err := m.DecodeData(&e); err != nil {
		return "", false, err
	}
	return cleanText(e.Error), e.Fatal, nil
}

// String returns a short description for logs: type, id and data truncated to 80 bytes, cleaned.
func (m Message) String() string {
	var b strings.Builder
	b.WriteString(m.Type)
	if m.ID != "" {
		b.WriteString("#" + safetext.Clean(m.ID, 80))
	}
	if len(m.Data) > 0 {
		d := m.Data
		if len(d) > 80 {
			d = append(d[:77:77], "..."...)
		}
		b.WriteString(" " + safetext.Clean(string(d), 0)) // JSON escapes controls, but a log must not trust that
	}
	return b.String()
}
