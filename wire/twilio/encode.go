package twilio

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendMedia appends a media message as Twilio sends it to the application: the caller's audio
// on track (TrackInbound when empty), with sequenceNumber, chunk and timestamp (milliseconds since
// the stream started) as JSON strings. It is the caller's hot path, called every 20 ms per call,
// and does not allocate when dst has room.
func AppendMedia(dst []byte, streamSid string, seq, chunk int, timestampMs int64, mulaw []byte, track string) []byte {
	if track == "" {
		track = TrackInbound
	}
	dst = slices.Grow(dst, 110+len(streamSid)+len(track)+base64.StdEncoding.EncodedLen(len(mulaw)))
	dst = append(dst, `{"event":"media","sequenceNumber":"`...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	dst = append(dst, `","media":{"track":`...)
	dst = appendString(dst, track)
	dst = append(dst, `,"chunk":"`...)
	dst = strconv.AppendInt(dst, int64(chunk), 10)
	dst = append(dst, `","timestamp":"`...)
	dst = strconv.AppendInt(dst, timestampMs, 10)
	dst = append(dst, `","payload":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, mulaw)
	dst = append(dst, `"},"streamSid":`...)
	dst = appendString(dst, streamSid)
	return append(dst, '}')
}

// AppendAgentMedia appends a media message as the application sends it to Twilio: audio to play
// to the caller, with only streamSid and media.payload.
func AppendAgentMedia(dst []byte, streamSid string, mulaw []byte) []byte {
	dst = slices.Grow(dst, 50+len(streamSid)+base64.StdEncoding.EncodedLen(len(mulaw)))
	dst = append(dst, `{"event":"media","media":{"payload":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, mulaw)
	dst = append(dst, `"},"streamSid":`...)
	dst = appendString(dst, streamSid)
	return append(dst, '}')
}

// AppendConnected appends the connected message Twilio sends first on every stream.
func AppendConnected(dst []byte) []byte {
	m := Message{Event: EventConnected, Connected: Connected{Protocol: Protocol, Version: ProtocolVersion}}
	return appendMessage(dst, &m)
}

// AppendStart appends the start message Twilio sends after connected. Empty fields of s take
// Twilio's defaults: Tracks ["inbound"], MediaFormat DefaultMediaFormat, CustomParameters {}.
// streamSid is written both inside start and at the top level, since readers look in either.
func AppendStart(dst []byte, seq int, s Start) []byte {
	if len(s.Tracks) == 0 {
		s.Tracks = []string{TrackInbound}
	}
	if s.MediaFormat == (MediaFormat{}) {
		s.MediaFormat = DefaultMediaFormat
	}
	m := Message{Event: EventStart, StreamSID: s.StreamSID, Seq: int64(seq), Start: s}
	return appendMessage(dst, &m)
}

// AppendMark appends a mark message as the application sends it: a label Twilio echoes back once
// the audio queued before it has played.
func AppendMark(dst []byte, streamSid, name string) []byte {
	m := Message{Event: EventMark, StreamSID: streamSid, Mark: Mark{Name: name}}
	return appendMessage(dst, &m)
}

// AppendMarkEcho appends a mark message as Twilio sends it back to the application.
func AppendMarkEcho(dst []byte, streamSid string, seq int, name string) []byte {
	m := Message{Event: EventMark, StreamSID: streamSid, Seq: int64(seq), Mark: Mark{Name: name}}
	return appendMessage(dst, &m)
}

// AppendClear appends a clear message: the application asks Twilio to drop queued audio.
func AppendClear(dst []byte, streamSid string) []byte {
	m := Message{Event: EventClear, StreamSID: streamSid}
	return appendMessage(dst, &m)
}

// AppendDTMF appends a dtmf message as Twilio sends it when the caller presses a key.
func AppendDTMF(dst []byte, streamSid string, seq int, digit string) []byte {
	m := Message{Event: EventDTMF, StreamSID: streamSid, Seq: int64(seq), DTMF: DTMF{Track: DTMFTrack, Digit: digit}}
	return appendMessage(dst, &m)
}

// AppendStop appends the stop message Twilio sends when the stream ends.
func AppendStop(dst []byte, streamSid string, seq int, accountSid, callSid string) []byte {
	m := Message{Event: EventStop, StreamSID: streamSid, Seq: int64(seq), Stop: Stop{AccountSID: accountSid, CallSID: callSid}}
	return appendMessage(dst, &m)
}

// AppendMessage appends m as JSON exactly as it stands (no defaults filled in), writing only the
// body its Event selects; Decode of the result returns m again.
func AppendMessage(dst []byte, m *Message) ([]byte, error) {
	if m.Event == EventUnknown || int(m.Event) >= len(eventNames) {
		return dst, fmt.Errorf("encode twilio message: %w: %d", ErrUnknownEvent, m.Event)
	}
	return appendMessage(dst, m), nil
}

// appendMessage writes event, sequenceNumber, the event's body, then streamSid, the order of
// Twilio's examples.
func appendMessage(dst []byte, m *Message) []byte {
	dst = append(dst, `{"event":`...)
	dst = appendString(dst, m.Event.String())
	if m.Seq != 0 {
		dst = append(dst, `,"sequenceNumber":"`...)
		dst = strconv.AppendInt(dst, m.Seq, 10)
		dst = append(dst, '"')
	}
	switch m.Event {
	case EventConnected:
		if m.Connected.Protocol != "" {
			dst = append(dst, `,"protocol":`...)
			dst = appendString(dst, m.Connected.Protocol)
		}
		if m.Connected.Version != "" {
			dst = append(dst, `,"version":`...)
			dst = appendString(dst, m.Connected.Version)
		}
	case EventStart:
		dst = appendStartBody(dst, &m.Start)
	case EventMedia:
		dst = appendMediaBody(dst, &m.Media)
	case EventMark:
		dst = append(dst, `,"mark":{"name":`...)
		dst = appendString(dst, m.Mark.Name)
		dst = append(dst, '}')
	case EventDTMF:
		dst = append(dst, `,"dtmf":{`...)
		if m.DTMF.Track != "" {
			dst = append(dst, `"track":`...)
			dst = appendString(dst, m.DTMF.Track)
			dst = append(dst, ',')
		}
		dst = append(dst, `"digit":`...)
		dst = appendString(dst, m.DTMF.Digit)
		dst = append(dst, '}')
	case EventStop:
		if m.Stop != (Stop{}) {
			dst = append(dst, `,"stop":{"accountSid":`...)
			dst = appendString(dst, m.Stop.AccountSID)
			dst = append(dst, `,"callSid":`...)
			dst = appendString(dst, m.Stop.CallSID)
			dst = append(dst, '}')
		}
	}
	if m.StreamSID != "" {
		dst = append(dst, `,"streamSid":`...)
		dst = appendString(dst, m.StreamSID)
	}
	return append(dst, '}')
}

func appendStartBody(dst []byte, s *Start) []byte {
	dst = append(dst, `,"start":{"accountSid":`...)
	dst = appendString(dst, s.AccountSID)
	dst = append(dst, `,"streamSid":`...)
	dst = appendString(dst, s.StreamSID)
	dst = append(dst, `,"callSid":`...)
	dst = appendString(dst, s.CallSID)
	if len(s.Tracks) > 0 {
		dst = append(dst, `,"tracks":[`...)
		for i, t := range s.Tracks {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, t)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"customParameters":{`...)
	keys := make([]string, 0, len(s.CustomParameters))
	for k := range s.CustomParameters {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic output for golden files
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		dst = appendString(dst, s.CustomParameters[k])
	}
	dst = append(dst, '}')
	if f := s.MediaFormat; f != (MediaFormat{}) {
		dst = append(dst, `,"mediaFormat":{"encoding":`...)
		dst = appendString(dst, f.Encoding)
		dst = append(dst, `,"sampleRate":`...)
		dst = strconv.AppendInt(dst, int64(f.SampleRate), 10)
		dst = append(dst, `,"channels":`...)
		dst = strconv.AppendInt(dst, int64(f.Channels), 10)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendMediaBody writes track, chunk and timestamp only when set, so the application's bare
// {payload} form round-trips.
func appendMediaBody(dst []byte, md *Media) []byte {
	dst = append(dst, `,"media":{`...)
	if md.Track != "" {
		dst = append(dst, `"track":`...)
		dst = appendString(dst, md.Track)
		dst = append(dst, ',')
	}
	if md.Chunk != 0 {
		dst = append(dst, `"chunk":"`...)
		dst = strconv.AppendInt(dst, md.Chunk, 10)
		dst = append(dst, `",`...)
	}
	if md.Timestamp != 0 {
		dst = append(dst, `"timestamp":"`...)
		dst = strconv.AppendInt(dst, md.Timestamp, 10)
		dst = append(dst, `",`...)
	}
	dst = append(dst, `"payload":`...)
	dst = appendString(dst, md.Payload)
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaping as encoding/json does (minus HTML escaping)
// and replacing invalid UTF-8 with U+FFFD, so Decode reads back what json.Unmarshal would.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON, but escaped as encoding/json does so output is safe inside JavaScript.
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
