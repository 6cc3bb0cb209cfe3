package twilio

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode checks that Decode never panics and that whatever it accepts re-encodes with
// AppendMessage to bytes that decode to the same Message.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"event":"connected"}`,
		`{"event":"start","start":{"streamSid":"MZ9","callSid":"CA9"}}`,
		`{"event":"media","media":{"payload":"\/w==","chunk":1}}`,
		`{"event":"dtmf","dtmf":{"digit":"\u0000"}}`,
		`{"event":"mark","mark":{"name":"\ud800"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		out, err := AppendMessage(nil, &m)
		if err != nil {
			t.Fatalf("AppendMessage(%#v): %v", m, err)
		}
		m2, err := Decode(out)
		if err != nil {
			t.Fatalf("re-decode of %s (from %q): %v", out, data, err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip differs:\n in %q\nout %s\n%#v\n%#v", data, out, m, m2)
		}
		if m.Event == EventMedia {
			if _, err := m.Audio(); err != nil {
				t.Fatalf("accepted payload does not decode: %v", err)
			}
		}
	})
}

// FuzzFastPath checks that the media fast path, whenever it accepts input, agrees exactly with
// the encoding/json path.
func FuzzFastPath(f *testing.F) {
	f.Add(AppendMedia(nil, "MZ1", 3, 2, 40, []byte{1, 2, 3}, "inbound"))
	f.Add(AppendAgentMedia(nil, "MZ1", []byte{0xff}))
	f.Add([]byte(` { "media" : {"payload":"AAAA" } , "event":"media","sequenceNumber":"0012"} `))
	f.Add([]byte(`{"event":"media","media":{"payload":"AAAA","track":""},"streamSid":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := decodeFastMedia(data)
		if !ok {
			return
		}
		slow, err := decodeSlow(data)
		if err != nil {
			t.Fatalf("fast path accepted %q, slow path: %v", data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("paths differ on %q:\nfast %#v\nslow %#v", data, fast, slow)
		}
	})
}
