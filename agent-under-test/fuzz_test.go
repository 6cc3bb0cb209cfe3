package agent

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzOfferHandler posts arbitrary bodies to POST /api/offer: the answer is always a clear
// status, never a panic.
func FuzzOfferHandler(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `{"sdp":"","type":"offer"}`, `{"sdp":"v=0\r\n","type":"offer"}`,
		`{"sdp":"v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n","type":"offer"}`,
		`{"sdp":"v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n","type":"offer","pc_id":"x"}`,
		`{"sdp":"v=0","type":"answer"}`, `{"sdp":"v=0","type":"offer","pc_id":"../../etc"}`,
	} {
		f.Add(s)
	}
	srv, _ := startAgent(f, DefaultConfig())
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/api/offer", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		srv.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusConflict, http.StatusServiceUnavailable:
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body.String())
		}
		if rec.Code != http.StatusOK && !strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("status %d without a JSON error: %q", rec.Code, rec.Body.String())
		}
	})
}
