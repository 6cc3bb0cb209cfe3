package twilio

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/callfleet/callfleet/internal/golden"
)

var mulaw160 = func() []byte {
	b := make([]byte, 160)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}()

func TestEncoders(t *testing.T) {
	const sid = "MZ18ad3ab5a668481ce02b83e7395059f0"
	start := Start{
		AccountSID: "AC00000000000000000000000000000000", StreamSID: sid,
		CallSID: "CA00000000000000000000000000000000", CustomParameters: map[string]string{"b": "2", "a": `"1"<`},
	}
	tests := []struct {
		name string
		got  []byte
		want Message
	}{
		{"connected.json", AppendConnected(nil), Message{Event: EventConnected, Connected: Connected{"Call", "1.0.0"}}},
		{"start.json", AppendStart(nil, 1, start), Message{Event: EventStart, StreamSID: sid, Seq: 1, Start: Start{
			AccountSID: start.AccountSID, StreamSID: sid, CallSID: start.CallSID, Tracks: []string{"inbound"},
			CustomParameters: start.CustomParameters, MediaFormat: DefaultMediaFormat,
		}}},
		{"media.json", AppendMedia(nil, sid, 3, 2, 20, mulaw160[:8], ""), Message{Event: EventMedia, StreamSID: sid, Seq: 3,
			Media: Media{Track: "inbound", Chunk: 2, Timestamp: 20, Payload: "AAcOFRwjKjE="}}},
		{"media_outbound.json", AppendMedia(nil, sid, 4, 3, 40, []byte{0xff}, TrackOutbound), Message{Event: EventMedia,
			StreamSID: sid, Seq: 4, Media: Media{Track: "outbound", Chunk: 3, Timestamp: 40, Payload: "/w=="}}},
		{"agent_media.json", AppendAgentMedia(nil, sid, []byte{0xff, 0x7f}), Message{Event: EventMedia, StreamSID: sid,
			Media: Media{Payload: "/38="}}},
		{"mark.json", AppendMark(nil, sid, "utt-1"), Message{Event: EventMark, StreamSID: sid, Mark: Mark{"utt-1"}}},
		{"mark_echo.json", AppendMarkEcho(nil, sid, 9, "utt-1"), Message{Event: EventMark, StreamSID: sid, Seq: 9, Mark: Mark{"utt-1"}}},
		{"clear.json", AppendClear(nil, sid), Message{Event: EventClear, StreamSID: sid}},
		{"dtmf.json", AppendDTMF(nil, sid, 5, "#"), Message{Event: EventDTMF, StreamSID: sid, Seq: 5, DTMF: DTMF{"inbound_track", "#"}}},
		{"stop.json", AppendStop(nil, sid, 6, start.AccountSID, start.CallSID), Message{Event: EventStop, StreamSID: sid, Seq: 6,
			Stop: Stop{start.AccountSID, start.CallSID}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !json.Valid(tt.got) {
				t.Fatalf("invalid JSON: %s", tt.got)
			}
			golden.Check(t, tt.name, tt.got)
			m, err := Decode(tt.got)
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.got, err)
			}
			if !reflect.DeepEqual(m, tt.want) {
				t.Fatalf("Decode =\n%#v\nwant\n%#v", m, tt.want)
			}
			again, err := AppendMessage(nil, &m)
			if err != nil {
				t.Fatal(err)
			}
			if m2, err := Decode(again); err != nil || !reflect.DeepEqual(m2, m) {
				t.Fatalf("AppendMessage round trip: %s -> %#v, %v", again, m2, err)
			}
		})
	}
}

func TestAppendMediaAudioRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 160, 320} {
		b := AppendMedia(nil, "MZ1", n+1, n+1, int64(n*20), mulaw160[:min(n, 160)], "")
		if n == 0 {
			// An empty frame has no payload and so is not a valid media message.
			if _, err := Decode(b); err == nil {
				t.Fatalf("Decode of empty media succeeded")
			}
			continue
		}
		m, err := Decode(b)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		audio, err := m.Audio()
		if err != nil || !bytes.Equal(audio, mulaw160[:min(n, 160)]) {
			t.Fatalf("n=%d: audio %v, %v", n, audio, err)
		}
		if m.Seq != int64(n+1) || m.Media.Chunk != int64(n+1) || m.Media.Timestamp != int64(n*20) {
			t.Fatalf("n=%d: numbers %+v", n, m)
		}
	}
}

func TestAppendMediaMatchesEncodingJSON(t *testing.T) {
	// The hand-written encoder must agree with encoding/json on the same shape.
	sid := "MZ\"odd\\sid\u2028\x01é"
	got := AppendMedia(nil, sid, 12, 11, 220, []byte{1, 2, 3}, "inbound")
	want, err := json.Marshal(map[string]any{
		"event": "media", "sequenceNumber": "12", "streamSid": sid,
		"media": map[string]string{"track": "inbound", "chunk": "11", "timestamp": "220", "payload": "AQID"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\"back\\slash", "\n\r\t\x00\x1f", "é€😀", "\xff\xfe bad", "\u2028\u2029", "<&>"} {
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("appendString(%q) = %s: %v", s, got, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("appendString(%q) reads back %q, encoding/json gives %q", s, back, wantBack)
		}
	}
}

func TestAppendMessageUnknown(t *testing.T) {
	if _, err := AppendMessage(nil, &Message{}); err == nil {
		t.Fatal("AppendMessage of EventUnknown succeeded")
	}
}

func TestAppendMediaNoAllocs(t *testing.T) {
	buf := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendMedia(buf[:0], "MZ18ad3ab5a668481ce02b83e7395059f0", 100, 99, 1980, mulaw160, "inbound")
	})
	if allocs != 0 {
		t.Fatalf("AppendMedia allocates %v times per call", allocs)
	}
}
