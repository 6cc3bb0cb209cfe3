package twilio

import (
	"maps"
	"net/url"
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

// FuzzParseStreamURL checks that the TwiML reader never panics on what a webhook answers, and
// that whatever it accepts, StreamTwiML writes back to TwiML that reads the same.
func FuzzParseStreamURL(f *testing.F) {
	for _, p := range []string{"stream.twiml", "stream_bare.twiml"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`<Response><Start><Stream url="wss://s"/></Start><Connect><Stream url="wss://c"><Parameter name="k" value="v"/><Parameter name="k" value="w"/></Stream></Connect></Response>`,
		`<Response><Connect><Stream url="wss://x&#x1b;[2J&#10;y"><Parameter name="&#xD;" value="&amp;&lt;"/></Stream></Connect></Response>`,
		`<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url=""/></Connect><Start><Stream url="ws://h"/></Start></Response>`,
		`<!DOCTYPE Response [<!ENTITY a "aaaa">]><Response><Connect><Stream url="&a;"/></Connect></Response>`,
		`<Response xmlns="urn:x"><x:Connect xmlns:x="urn:y"><Stream url="u"/></x:Connect></Response>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, twiml []byte) {
		u, params, err := ParseStreamURL(twiml)
		if err != nil {
			return
		}
		if u == "" || params == nil {
			t.Fatalf("accepted %q: url %q params %v", twiml, u, params)
		}
		out := StreamTwiML(u, params)
		u2, params2, err := ParseStreamURL(out)
		if err != nil || u2 != u || !maps.Equal(params, params2) {
			t.Fatalf("round trip of %q via %s: %q %v, %v", twiml, out, u2, params2, err)
		}
	})
}

// FuzzSignature checks the X-Twilio-Signature builder on any URL and form: a signature always
// validates against the URL it was made for, not with another token, and the default-port
// variants ValidSignature also tries are the same URL with only the port added or removed.
func FuzzSignature(f *testing.F) {
	f.Add("12345", "https://mycompany.com/myapp.php?foo=1&bar=2", "CallSid", "CA1", "From", "+1415")
	f.Add("t", "http://[::1]:80/x", "a", "", "a", "b")
	f.Add("t", "wss://[fe80::1%25eth0]/ws", "k", "v", "K", "v")
	f.Add("t", "https://h.example:443", "", "", "", "")
	f.Add("", "http://u:p@h:80/%zz?q#f", "x", "\x00", "y", "\u2028")
	f.Fuzz(func(t *testing.T, token, fullURL, k1, v1, k2, v2 string) {
		form := url.Values{}
		form.Add(k1, v1)
		form.Add(k2, v2)
		sig := Signature(token, fullURL, form)
		if sig != Signature(token, fullURL, form) {
			t.Fatal("signature is not deterministic")
		}
		if !ValidSignature(token, fullURL, form, sig) {
			t.Fatalf("own signature rejected for %q", fullURL)
		}
		if ValidSignature(token+"x", fullURL, form, sig) {
			t.Fatal("signature accepted with another token")
		}
		vs := urlVariants(fullURL)
		if len(vs) == 0 || len(vs) > 2 || vs[0] != fullURL {
			t.Fatalf("variants of %q: %q", fullURL, vs)
		}
		if len(vs) == 2 {
			a, errA := url.Parse(fullURL)
			b, errB := url.Parse(vs[1])
			if errA != nil || errB != nil || a.Hostname() != b.Hostname() || a.Scheme != b.Scheme ||
				a.Path != b.Path || a.RawQuery != b.RawQuery || (a.Port() == "") == (b.Port() == "") {
				t.Fatalf("variant of %q is %q (%v, %v)", fullURL, vs[1], errA, errB)
			}
		}
	})
}
