package twilio

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// MaxMessageSize caps the input Decode and ParseStreamURL accept: about six seconds of 8 kHz
// mu-law audio in one media message.
const MaxMessageSize = 64 << 10

// Values Twilio puts in the messages it sends.
const (
	Protocol        = "Call"          // connected.protocol
	ProtocolVersion = "1.0.0"         // connected.version
	EncodingMulaw   = "audio/x-mulaw" // start.mediaFormat.encoding
	SampleRate      = 8000            // start.mediaFormat.sampleRate
	TrackInbound    = "inbound"       // media.track and start.tracks entry for the caller's audio
	TrackOutbound   = "outbound"      // media.track for audio played to the caller
	DTMFTrack       = "inbound_track" // dtmf.track
)

// Message is one decoded Media Streams message. Event says which body is filled in; the others
// are zero.
type Message struct {
	Event Event
	// StreamSID is the top-level streamSid; for start it falls back to start.streamSid.
	StreamSID string
	// Seq is sequenceNumber, 0 when absent (the application's messages carry none).
	Seq       int64
	Connected Connected
	Start     Start
	Media     Media
	Mark      Mark
	DTMF      DTMF
	Stop      Stop
}

// Connected is the body of a connected message (top-level protocol and version).
type Connected struct {
	Protocol string
	Version  string
}

// Start is the start object: the stream's metadata.
type Start struct {
	AccountSID string
	// StreamSID falls back to the top-level streamSid when start.streamSid is absent.
	StreamSID string
	CallSID   string
	Tracks    []string
	// CustomParameters holds the TwiML <Parameter> values; never nil after Decode.
	CustomParameters map[string]string
	MediaFormat      MediaFormat
}

// MediaFormat is start.mediaFormat.
type MediaFormat struct {
	Encoding   string
	SampleRate int
	Channels   int
}

// DefaultMediaFormat is the only format Twilio streams: 8 kHz mono mu-law.
var DefaultMediaFormat = MediaFormat{Encoding: EncodingMulaw, SampleRate: SampleRate, Channels: 1}

// Media is the media object. Twilio's media carries track, chunk and timestamp; the
// application's carries only payload, leaving the others zero.
type Media struct {
	Track string
	// Chunk counts media messages from 1.
	Chunk int64
	// Timestamp is milliseconds since the stream started.
	Timestamp int64
	// Payload is the base64 text of the mu-law audio, validated by Decode; see AppendAudio.
	Payload string
}

// Mark is the mark object: a label the application queued after audio, echoed by Twilio once
// that audio has played (or been cleared).
type Mark struct {
	Name string
}

// DTMF is the dtmf object: one key the caller pressed.
type DTMF struct {
	Track string
	Digit string
}

// Stop is the stop object.
type Stop struct {
	AccountSID string
	CallSID    string
}

// Audio returns the decoded mu-law bytes of a media message's payload.
func (m *Message) Audio() ([]byte, error) {
	return m.AppendAudio(nil)
}

// AppendAudio appends the decoded mu-law bytes of a media message's payload to dst, so a
// caller reusing dst decodes without allocating.
func (m *Message) AppendAudio(dst []byte) ([]byte, error) {
	p := m.Media.Payload
	if err := checkBase64(p); err != nil {
		return dst, fmt.Errorf("decode twilio media audio: %w", err)
	}
	out, err := base64.StdEncoding.AppendDecode(dst, []byte(p))
	if err != nil {
		return dst, fmt.Errorf("decode twilio media audio: %w: %v", ErrBadPayload, err)
	}
	return out, nil
}

// wire is the JSON shape Decode reads; the custom field types parse without allocating.
type wire struct {
	Event          wireEvent  `json:"event"`
	SequenceNumber strInt     `json:"sequenceNumber"`
	Protocol       string     `json:"protocol"`
	Version        string     `json:"version"`
	Start          *wireStart `json:"start"`
	Media          wireMedia  `json:"media"`
	Mark           *wireMark  `json:"mark"`
	DTMF           *wireDTMF  `json:"dtmf"`
	Stop           *wireStop  `json:"stop"`
	StreamSID      string     `json:"streamSid"`
}

type wireStart struct {
	AccountSID       string            `json:"accountSid"`
	StreamSID        string            `json:"streamSid"`
	CallSID          string            `json:"callSid"`
	Tracks           []string          `json:"tracks"`
	CustomParameters map[string]string `json:"customParameters"`
	MediaFormat      *wireFormat       `json:"mediaFormat"`
}

type wireFormat struct {
	Encoding   string `json:"encoding"`
	SampleRate numInt `json:"sampleRate"`
	Channels   numInt `json:"channels"`
}

type wireMedia struct {
	Track     string `json:"track"`
	Chunk     strInt `json:"chunk"`
	Timestamp strInt `json:"timestamp"`
	Payload   string `json:"payload"`
}

type wireMark struct {
	Name string `json:"name"`
}

type wireDTMF struct {
	Track string `json:"track"`
	Digit string `json:"digit"`
}

type wireStop struct {
	AccountSID string `json:"accountSid"`
	CallSID    string `json:"callSid"`
}

// wireEvent remembers whether "event" was present and, when unknown, its text for the error.
type wireEvent struct {
	ev      Event
	present bool
	raw     string
}

func (w *wireEvent) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	w.present = true
	if len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 {
		w.ev = parseEventBytes(b[1 : len(b)-1])
	} else {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		w.ev = ParseEvent(s)
		b = []byte(strconv.Quote(s))
	}
	if w.ev == EventUnknown {
		w.raw = string(b)
	}
	return nil
}

// strInt is an integer Twilio sends as a JSON string; a bare JSON number is accepted too.
type strInt int64

func (v *strInt) UnmarshalJSON(b []byte) error {
	n, err := parseFlexInt(b)
	*v = strInt(n)
	return err
}

// numInt is an integer Twilio sends as a JSON number; a numeric string is accepted too.
type numInt int64

func (v *numInt) UnmarshalJSON(b []byte) error {
	n, err := parseFlexInt(b)
	*v = numInt(n)
	return err
}

// parseFlexInt reads a non-negative decimal integer, bare or quoted; null reads as 0.
func parseFlexInt(b []byte) (int64, error) {
	if string(b) == "null" {
		return 0, nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, fmt.Errorf("%w: bad integer %q", ErrMalformed, b)
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: bad integer %q", ErrMalformed, b)
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

// Decode parses one Media Streams message. It is strict about what a peer relies on (a known
// event; for start a callSid and a streamSid; for media a non-empty canonical base64 payload; for
// mark a name; for dtmf a digit) and lenient otherwise: unknown fields are ignored, integers may
// be bare or quoted, and streamSid is not required on media, mark or clear (Twilio's readers
// differ; check Message.StreamSID where it matters).
func Decode(data []byte) (Message, error) {
	if len(data) > MaxMessageSize {
		return Message{}, fmt.Errorf("decode twilio message: %w: %d bytes > %d", ErrTooLarge, len(data), MaxMessageSize)
	}
	if m, ok := decodeFastMedia(data); ok {
		return m, nil
	}
	return decodeSlow(data)
}

// decodeSlow decodes any message with encoding/json.
func decodeSlow(data []byte) (Message, error) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		if errors.Is(err, ErrMalformed) {
			return Message{}, fmt.Errorf("decode twilio message: %w", err)
		}
		return Message{}, fmt.Errorf("decode twilio message: %w: %v", ErrMalformed, err)
	}
	if !w.Event.present {
		return Message{}, fmt.Errorf("decode twilio message: %w: event", ErrMissingField)
	}
	ev := w.Event.ev
	if ev == EventUnknown {
		return Message{}, fmt.Errorf("decode twilio message: %w: %s", ErrUnknownEvent, w.Event.raw)
	}
	m := Message{Event: ev, StreamSID: w.StreamSID, Seq: int64(w.SequenceNumber)}
	if err := m.fill(&w); err != nil {
		return Message{}, fmt.Errorf("decode twilio %s: %w", ev, err)
	}
	return m, nil
}

// fill copies the body that m.Event selects from w and checks its required fields.
func (m *Message) fill(w *wire) error {
	switch m.Event {
	case EventConnected:
		m.Connected = Connected{Protocol: w.Protocol, Version: w.Version}
	case EventStart:
		if w.Start == nil {
			return fmt.Errorf("%w: start", ErrMissingField)
		}
		s := w.Start
		m.Start = Start{
			AccountSID:       s.AccountSID,
			StreamSID:        s.StreamSID,
			CallSID:          s.CallSID,
			Tracks:           s.Tracks,
			CustomParameters: s.CustomParameters,
		}
		if len(m.Start.Tracks) == 0 {
			m.Start.Tracks = nil // [] and absent mean the same; one form keeps round trips exact
		}
		if m.Start.CustomParameters == nil {
			m.Start.CustomParameters = map[string]string{}
		}
		if f := s.MediaFormat; f != nil {
			m.Start.MediaFormat = MediaFormat{Encoding: f.Encoding, SampleRate: int(f.SampleRate), Channels: int(f.Channels)}
		}
		if m.Start.StreamSID == "" {
			m.Start.StreamSID = m.StreamSID
		}
		if m.StreamSID == "" {
			m.StreamSID = m.Start.StreamSID
		}
		if m.StreamSID == "" {
			return fmt.Errorf("%w: streamSid", ErrMissingField)
		}
		if m.Start.CallSID == "" {
			return fmt.Errorf("%w: start.callSid", ErrMissingField)
		}
	case EventMedia:
		md := w.Media
		if md.Payload == "" {
			return fmt.Errorf("%w: media.payload", ErrMissingField)
		}
		if err := checkBase64(md.Payload); err != nil {
			return err
		}
		m.Media = Media{Track: md.Track, Chunk: int64(md.Chunk), Timestamp: int64(md.Timestamp), Payload: md.Payload}
	case EventMark:
		if w.Mark == nil || w.Mark.Name == "" {
			return fmt.Errorf("%w: mark.name", ErrMissingField)
		}
		m.Mark = Mark{Name: w.Mark.Name}
	case EventDTMF:
		if w.DTMF == nil || w.DTMF.Digit == "" {
			return fmt.Errorf("%w: dtmf.digit", ErrMissingField)
		}
		m.DTMF = DTMF{Track: w.DTMF.Track, Digit: w.DTMF.Digit}
	case EventStop:
		if w.Stop != nil {
			m.Stop = Stop{AccountSID: w.Stop.AccountSID, CallSID: w.Stop.CallSID}
		}
	case EventClear:
	}
	return nil
}

// checkBase64 accepts only canonical padded standard base64, so a payload that decodes also
// re-encodes to the same text.
func checkBase64[T string | []byte](s T) error {
	if len(s)%4 != 0 {
		return fmt.Errorf("%w: length %d is not a multiple of 4", ErrBadPayload, len(s))
	}
	pad := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			if i < len(s)-2 {
				return fmt.Errorf("%w: padding at %d", ErrBadPayload, i)
			}
			pad++
		case pad > 0 || b64val[c] == 0xff:
			return fmt.Errorf("%w: byte %q at %d", ErrBadPayload, c, i)
		}
	}
	if pad == 0 {
		return nil
	}
	// The bits below the last full byte must be zero in canonical base64.
	last := b64val[s[len(s)-pad-1]]
	if (pad == 1 && last&0x03 != 0) || (pad == 2 && last&0x0f != 0) {
		return fmt.Errorf("%w: non-canonical final quantum", ErrBadPayload)
	}
	return nil
}

var b64val = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()
