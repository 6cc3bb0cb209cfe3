package signaling

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/callfleet/callfleet/internal/safetext"
)

// fakeResponse is a response as send returns it, for the answer checks alone.
func fakeResponse(code int, contentType, location string, body []byte, base *url.URL) *response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	if location != "" {
		h.Set("Location", location)
	}
	return &response{code: code, status: http.StatusText(code), header: h, url: base, body: body}
}

// checkErrorText asserts an error message an agent's response caused is safe to print.
func checkErrorText(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsFunc(msg, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
		t.Fatalf("control characters in error %q", msg)
	}
	if len(msg) > 2048 {
		t.Fatalf("error of %d bytes", len(msg))
	}
}

// FuzzSmallWebRTCAnswer checks that whatever pipecat's /api/offer answers, the check never panics,
// accepts only a valid answer with a printable pc_id, and explains a refusal in printable text.
func FuzzSmallWebRTCAnswer(f *testing.F) {
	good, _ := json.Marshal(Answer{SDP: answerSDP, Type: TypeAnswer, PCID: "SmallWebRTCConnection#0"})
	f.Add(200, ContentTypeJSON, good)
	f.Add(200, "application/json; charset=utf-8", []byte(`{"sdp":"v=0\n","type":"answer","pc_id":"\u001b[2J"}`))
	f.Add(503, "text/plain", []byte("\x1b]0;owned\x07at capacity"))
	f.Add(200, "text/html", []byte("<html>"))
	f.Add(201, ContentTypeJSON, []byte(`{"sdp":"v=1","type":"answer"}`))
	f.Fuzz(func(t *testing.T, code int, contentType string, body []byte) {
		a, err := smallWebRTCAnswer(fakeResponse(code, contentType, "", body, nil))
		if err != nil {
			checkErrorText(t, err)
			return
		}
		if !ok2xx(code) || a.Type != TypeAnswer || ValidateSDP(a.SDP) != nil || !validID(a.PCID) {
			t.Fatalf("accepted %d %q: %#v", code, body, a)
		}
	})
}

// FuzzWHIPAnswer checks the WHIP endpoint's answer and its Location header (RFC 9725 §4.2):
// never a panic; on success the session URL is an absolute http(s) URL of printable ASCII, no
// longer than maxLocation, that resolves back to itself.
func FuzzWHIPAnswer(f *testing.F) {
	f.Add(201, ContentTypeSDP, "/whip/resource/1", "http://127.0.0.1:8080/whip/endpoint", []byte(answerSDP))
	f.Add(201, ContentTypeSDP, "resource/2", "https://h.example/a/b", []byte(answerSDP))
	f.Add(201, ContentTypeSDP, "https://other.example/s?x=1#f", "http://h/", []byte(answerSDP))
	f.Add(201, ContentTypeSDP, "//evil.example/\u009b2J", "http://h/", []byte(answerSDP))
	f.Add(201, ContentTypeSDP, "file:///etc/passwd", "http://h/", []byte(answerSDP))
	f.Add(201, ContentTypeSDP, "http://[::1", "http://h/", []byte(answerSDP))
	f.Add(200, ContentTypeSDP, "/r", "http://h/", []byte(answerSDP))
	f.Add(503, "application/json", "", "http://h/", []byte(`{"error":"\u001b[31mfull"}`))
	f.Fuzz(func(t *testing.T, code int, contentType, location, base string, body []byte) {
		bu, err := url.Parse(base)
		if err != nil || !bu.IsAbs() {
			return // send always has the absolute URL it asked
		}
		answer, resource, err := whipAnswer(fakeResponse(code, contentType, location, body, bu))
		if err != nil {
			checkErrorText(t, err)
			return
		}
		if code != http.StatusCreated || ValidateSDP(answer) != nil {
			t.Fatalf("accepted %d with answer %q", code, answer)
		}
		if len(resource) > maxLocation || safetext.Clean(resource, 0) != resource {
			t.Fatalf("session url %q", resource)
		}
		u, err := url.Parse(resource)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("session url %q: %v", resource, err)
		}
		if again, err := resolveLocation(bu, resource); err != nil || again != resource {
			t.Fatalf("session url %q resolves to %q, %v", resource, again, err)
		}
	})
}
