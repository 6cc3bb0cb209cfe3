package signaling

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHostileAnswers runs both signalers against loopback servers that answer badly on purpose:
// each exchange fails with the right error, in printable text, within its deadline.
func TestHostileAnswers(t *testing.T) {
	escapes := "\x1b]0;owned\x07\x1b[2J\u009b31m\u202e"
	cases := []struct {
		name    string
		whip    bool
		handler hostileHandler
		want    error
	}{
		{"503 with escapes in status and body", false, func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, escapes+strings.Repeat("busy ", 1000))
		}, ErrStatus},
		{"answer over the body cap", false, func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			io.WriteString(w, `{"sdp":"v=0\n`+strings.Repeat("a=x\n", MaxBodySize)+`","type":"answer"}`)
		}, ErrTooLarge},
		{"pc_id with escapes", false, func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			json.NewEncoder(w).Encode(Answer{SDP: answerSDP, Type: TypeAnswer, PCID: escapes})
		}, ErrMalformed},
		{"pc_id of a megabyte's tenth", false, func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			json.NewEncoder(w).Encode(Answer{SDP: answerSDP, Type: TypeAnswer, PCID: strings.Repeat("p", 60<<10)})
		}, ErrMalformed},
		{"type with escapes", false, func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			json.NewEncoder(w).Encode(Answer{SDP: answerSDP, Type: escapes})
		}, ErrMalformed},
		{"content type with escapes", true, func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", "text/\u009b2J"+strings.Repeat("x", 5000))
			w.WriteHeader(http.StatusCreated)
		}, ErrContentType},
		{"location with c1 controls", true, whipAnswering("/res/\u009b2J\u0085"), nil},
		{"location not http", true, whipAnswering("javascript:alert(1)"), ErrMissingLocation},
		{"location too long", true, whipAnswering("/" + strings.Repeat("r", 3*maxLocation)), ErrMissingLocation},
		{"never answers", true, func(_ http.ResponseWriter, _ *http.Request, release <-chan struct{}) { <-release }, context.DeadlineExceeded},
		{"answers headers, then trickles the body", false, func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			w.Header().Set("Content-Type", ContentTypeJSON)
			w.WriteHeader(http.StatusOK)
			for {
				if _, err := io.WriteString(w, " "); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-release:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}, context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{}) // a hanging handler ends once the exchange is over
			srv := server(t, func(w http.ResponseWriter, r *http.Request) { tc.handler(w, r, release) })
			t.Cleanup(func() { close(release) }) // runs before srv.Close
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			var sig Signaler = SmallWebRTC{URL: srv.URL + "/api/offer", Client: srv.Client()}
			if tc.whip {
				sig = WHIP{URL: srv.URL + "/whip", Client: srv.Client()}
			}
			start := time.Now()
			_, sess, err := sig.Exchange(ctx, offerSDP)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			if tc.want == nil { // accepted: the session URL is escaped ASCII
				if err != nil || strings.ContainsFunc(sess.ID, func(r rune) bool { return r < ' ' || r > '~' }) {
					t.Fatalf("session %q, %v", sess.ID, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			checkErrorText(t, err)
		})
	}
}

// hostileHandler serves one bad answer; release closes when the test is done with it.
type hostileHandler func(w http.ResponseWriter, _ *http.Request, _ <-chan struct{})

// whipAnswering is a WHIP endpoint answering every offer with the given Location.
func whipAnswering(location string) hostileHandler {
	return func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Content-Type", ContentTypeSDP)
		w.Header()["Location"] = []string{location} // as sent, unchecked
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, answerSDP)
	}
}
