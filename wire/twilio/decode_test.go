package twilio

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Message
	}{
		{
			name: "connected",
			in:   `{"event":"connected","protocol":"Call","version":"1.0.0"}`,
			want: Message{Event: EventConnected, Connected: Connected{Protocol: "Call", Version: "1.0.0"}},
		},
		{
			name: "connected bare, as pipecat's tests send",
			in:   `{"event":"connected"}`,
			want: Message{Event: EventConnected},
		},
		{
			name: "start as Twilio documents it",
			in: `{"event":"start","sequenceNumber":"1","start":{"accountSid":"AC1","streamSid":"MZ1","callSid":"CA1",
				"tracks":["inbound"],"customParameters":{"FirstName":"Jane"},
				"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"MZ1"}`,
			want: Message{Event: EventStart, StreamSID: "MZ1", Seq: 1, Start: Start{
				AccountSID: "AC1", StreamSID: "MZ1", CallSID: "CA1", Tracks: []string{"inbound"},
				CustomParameters: map[string]string{"FirstName": "Jane"}, MediaFormat: DefaultMediaFormat,
			}},
		},
		{
			name: "minimal start, streamSid only inside start",
			in:   `{"event":"start","start":{"streamSid":"MZ9","callSid":"CA9"}}`,
			want: Message{Event: EventStart, StreamSID: "MZ9", Start: Start{
				StreamSID: "MZ9", CallSID: "CA9", CustomParameters: map[string]string{},
			}},
		},
		{
			name: "start with streamSid only at the top level",
			in:   `{"event":"start","streamSid":"MZ2","start":{"callSid":"CA2","tracks":[]}}`,
			want: Message{Event: EventStart, StreamSID: "MZ2", Start: Start{
				StreamSID: "MZ2", CallSID: "CA2", CustomParameters: map[string]string{},
			}},
		},
		{
			name: "media from Twilio",
			in: `{"event":"media","sequenceNumber":"3","media":{"track":"inbound","chunk":"1","timestamp":"5",
				"payload":"/w=="},"streamSid":"MZ1"}`,
			want: Message{Event: EventMedia, StreamSID: "MZ1", Seq: 3,
				Media: Media{Track: "inbound", Chunk: 1, Timestamp: 5, Payload: "/w=="}},
		},
		{
			name: "media from the application, bare numbers tolerated, unknown fields ignored",
			in:   `{"event":"media","streamSid":"MZ1","sequenceNumber":7,"extra":{"a":[1]},"media":{"payload":"AAEC","x":1}}`,
			want: Message{Event: EventMedia, StreamSID: "MZ1", Seq: 7, Media: Media{Payload: "AAEC"}},
		},
		{
			name: "payload with escaped slash",
			in:   `{"event":"media","media":{"payload":"\/w=="}}`,
			want: Message{Event: EventMedia, Media: Media{Payload: "/w=="}},
		},
		{
			name: "mark echo",
			in:   `{"event":"mark","sequenceNumber":"4","streamSid":"MZ1","mark":{"name":"my label"}}`,
			want: Message{Event: EventMark, StreamSID: "MZ1", Seq: 4, Mark: Mark{Name: "my label"}},
		},
		{
			name: "dtmf",
			in:   `{"event":"dtmf","streamSid":"MZ1","sequenceNumber":"5","dtmf":{"track":"inbound_track","digit":"1"}}`,
			want: Message{Event: EventDTMF, StreamSID: "MZ1", Seq: 5, DTMF: DTMF{Track: "inbound_track", Digit: "1"}},
		},
		{
			name: "stop",
			in:   `{"event":"stop","sequenceNumber":"5","streamSid":"MZ1","stop":{"accountSid":"AC1","callSid":"CA1"}}`,
			want: Message{Event: EventStop, StreamSID: "MZ1", Seq: 5, Stop: Stop{AccountSID: "AC1", CallSID: "CA1"}},
		},
		{
			name: "clear",
			in:   `{"event":"clear","streamSid":"MZ1"}`,
			want: Message{Event: EventClear, StreamSID: "MZ1"},
		},
		{
			name: "other events' bodies are dropped",
			in:   `{"event":"clear","streamSid":"MZ1","mark":{"name":"x"},"media":{"payload":"??"}}`,
			want: Message{Event: EventClear, StreamSID: "MZ1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Decode =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
		msg      string // substring of the error text
	}{
		{"not json", `hello`, ErrMalformed, ""},
		{"array", `[1]`, ErrMalformed, ""},
		{"empty", ``, ErrMalformed, ""},
		{"no event", `{"streamSid":"MZ1"}`, ErrMissingField, "event"},
		{"null event", `{"event":null}`, ErrMissingField, "event"},
		{"event not a string", `{"event":5}`, ErrMalformed, ""},
		{"unknown event", `{"event":"hangup"}`, ErrUnknownEvent, `"hangup"`},
		{"event case matters", `{"event":"Media","media":{"payload":"AA=="}}`, ErrUnknownEvent, ""},
		{"start without body", `{"event":"start","streamSid":"MZ1"}`, ErrMissingField, "decode twilio start"},
		{"start without callSid", `{"event":"start","start":{"streamSid":"MZ1"}}`, ErrMissingField, "callSid"},
		{"start without streamSid", `{"event":"start","start":{"callSid":"CA1"}}`, ErrMissingField, "streamSid"},
		{"start params not strings", `{"event":"start","start":{"streamSid":"MZ","callSid":"CA","customParameters":{"a":1}}}`, ErrMalformed, ""},
		{"media without payload", `{"event":"media","media":{"track":"inbound"}}`, ErrMissingField, "payload"},
		{"media without body", `{"event":"media"}`, ErrMissingField, "payload"},
		{"payload not base64", `{"event":"media","media":{"payload":"!!!!"}}`, ErrBadPayload, ""},
		{"payload unpadded", `{"event":"media","media":{"payload":"AAE"}}`, ErrBadPayload, ""},
		{"payload url alphabet", `{"event":"media","media":{"payload":"-w=="}}`, ErrBadPayload, ""},
		{"payload padding inside", `{"event":"media","media":{"payload":"AA==AAAA"}}`, ErrBadPayload, ""},
		{"payload non-canonical", `{"event":"media","media":{"payload":"/x=="}}`, ErrBadPayload, ""},
		{"payload with newline", `{"event":"media","media":{"payload":"AA\n=="}}`, ErrBadPayload, ""},
		{"chunk not a number", `{"event":"media","media":{"chunk":"x","payload":"AA=="}}`, ErrMalformed, ""},
		{"negative sequence", `{"event":"media","sequenceNumber":"-1","media":{"payload":"AA=="}}`, ErrMalformed, ""},
		{"sequence overflow", `{"event":"clear","sequenceNumber":"99999999999999999999"}`, ErrMalformed, ""},
		{"mark without name", `{"event":"mark","mark":{}}`, ErrMissingField, "mark.name"},
		{"dtmf without digit", `{"event":"dtmf","dtmf":{"track":"inbound_track"}}`, ErrMissingField, "dtmf.digit"},
		{"too large", `{"event":"clear","x":"` + strings.Repeat("a", MaxMessageSize) + `"}`, ErrTooLarge, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Decode error = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Decode error %q lacks %q", err, tt.msg)
			}
		})
	}
}

func TestEventString(t *testing.T) {
	for e := EventUnknown; e <= EventClear; e++ {
		if e != EventUnknown && ParseEvent(e.String()) != e {
			t.Errorf("ParseEvent(%q) = %v", e.String(), ParseEvent(e.String()))
		}
	}
	if got := Event(200).String(); got != "unknown" {
		t.Errorf("Event(200).String() = %q", got)
	}
	if ParseEvent("nope") != EventUnknown || ParseEvent("unknown") != EventUnknown {
		t.Error("ParseEvent accepted an unknown name")
	}
}

func TestAudio(t *testing.T) {
	m, err := Decode([]byte(`{"event":"media","media":{"payload":"AAEC/w=="}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Audio()
	if err != nil || !bytes.Equal(got, []byte{0, 1, 2, 0xff}) {
		t.Fatalf("Audio = %v, %v", got, err)
	}
	buf := make([]byte, 0, 16)
	got, err = m.AppendAudio(buf[:1])
	if err != nil || !bytes.Equal(got, []byte{0, 0, 1, 2, 0xff}) || &got[0] != &buf[:1][0] {
		t.Fatalf("AppendAudio = %v, %v (reallocated: %v)", got, err, &got[0] != &buf[:1][0])
	}
	bad := Message{Event: EventMedia, Media: Media{Payload: "***"}}
	if _, err := bad.Audio(); !errors.Is(err, ErrBadPayload) {
		t.Fatalf("Audio of bad payload: %v", err)
	}
}
