package signaling

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/callfleet/callfleet/internal/safetext"
)

// Signaler trades a local SDP offer for the agent's answer.
type Signaler interface {
	Exchange(ctx context.Context, offerSDP string) (answerSDP string, session Session, err error)
}

// Session is one signaled peer connection.
type Session struct {
	// ID is the SmallWebRTC pc_id or the absolute WHIP session URL.
	ID    string
	close func(ctx context.Context) error
}

// Close ends the session on the server: DELETE of the WHIP session URL; nothing for SmallWebRTC,
// whose server notices the peer connection closing. Call it once.
func (s Session) Close(ctx context.Context) error {
	if s.close == nil {
		return nil
	}
	return s.close(ctx)
}

// SmallWebRTC signals with pipecat's SmallWebRTC endpoint.
type SmallWebRTC struct {
	// URL is the offer endpoint, e.g. http://127.0.0.1:7860/api/offer.
	URL string
	// Client defaults to http.DefaultClient; deadlines come from the ctx of each call.
	Client *http.Client
	// RequestData, if set, is sent as request_data and reaches the bot as its runner body.
	RequestData json.RawMessage
}

var _ Signaler = SmallWebRTC{}

// Exchange posts the offer and returns the answer SDP; the session ID is the answer's pc_id.
func (s SmallWebRTC) Exchange(ctx context.Context, offerSDP string) (string, Session, error) {
	if err := ValidateSDP(offerSDP); err != nil {
		return "", Session{}, fmt.Errorf("smallwebrtc offer: %w", err)
	}
	body, err := json.Marshal(Offer{SDP: offerSDP, Type: TypeOffer, RequestData: s.RequestData})
	if err != nil {
		return "", Session{}, fmt.Errorf("smallwebrtc offer: %w: request_data: %v", ErrMalformed, err)
	}
	resp, err := send(ctx, s.Client, request{
		method: http.MethodPost, url: s.URL, body: body, contentType: ContentTypeJSON, accept: ContentTypeJSON,
	})
	if err != nil {
		return "", Session{}, fmt.Errorf("smallwebrtc offer to %s: %w", s.URL, err)
	}
	a, err := smallWebRTCAnswer(resp)
	if err != nil {
		return "", Session{}, fmt.Errorf("smallwebrtc offer to %s: %w", s.URL, err)
	}
	return a.SDP, Session{ID: a.PCID}, nil
}

// smallWebRTCAnswer checks pipecat's response to an offer: a 2xx JSON answer.
func smallWebRTCAnswer(resp *response) (Answer, error) {
	if !ok2xx(resp.code) {
		return Answer{}, resp.statusError()
	}
	if err := checkMediaType(resp.header.Get("Content-Type"), ContentTypeJSON); err != nil {
		return Answer{}, err
	}
	return DecodeAnswer(bytes.NewReader(resp.body))
}

// AddCandidates trickles ICE candidates for the peer connection pcID with a PATCH.
func (s SmallWebRTC) AddCandidates(ctx context.Context, pcID string, cands ...ICECandidate) error {
	if cands == nil {
		cands = []ICECandidate{}
	}
	body, err := json.Marshal(Patch{PCID: pcID, Candidates: cands})
	if err != nil {
		return fmt.Errorf("smallwebrtc candidates: %w: %v", ErrMalformed, err)
	}
	resp, err := send(ctx, s.Client, request{
		method: http.MethodPatch, url: s.URL, body: body, contentType: ContentTypeJSON, accept: ContentTypeJSON,
	})
	if err != nil {
		return fmt.Errorf("smallwebrtc candidates to %s: %w", s.URL, err)
	}
	if !ok2xx(resp.code) {
		return fmt.Errorf("smallwebrtc candidates to %s: %w", s.URL, resp.statusError())
	}
	return nil
}

// WHIP signals with an RFC 9725 WHIP endpoint.
type WHIP struct {
	// URL is the WHIP endpoint URL.
	URL string
	// BearerToken, if set, is sent as "Authorization: Bearer …" on every request (RFC 9725 §4.5).
	BearerToken string
	// Client defaults to http.DefaultClient; deadlines come from the ctx of each call.
	Client *http.Client
}

var _ Signaler = WHIP{}

// Exchange posts the offer and expects 201 Created with an application/sdp answer and a
// Location header, resolved against the URL that answered (after any redirect). The session
// ID is that absolute URL; Session.Close deletes it.
func (w WHIP) Exchange(ctx context.Context, offerSDP string) (string, Session, error) {
	if err := ValidateSDP(offerSDP); err != nil {
		return "", Session{}, fmt.Errorf("whip offer: %w", err)
	}
	resp, err := send(ctx, w.Client, request{
		method: http.MethodPost, url: w.URL, body: []byte(offerSDP),
		contentType: ContentTypeSDP, accept: ContentTypeSDP, bearer: w.BearerToken,
	})
	if err != nil {
		return "", Session{}, fmt.Errorf("whip offer to %s: %w", w.URL, err)
	}
	answer, resource, err := whipAnswer(resp)
	if err != nil {
		return "", Session{}, fmt.Errorf("whip offer to %s: %w", w.URL, err)
	}
	closeFn := func(ctx context.Context) error {
		resp, err := send(ctx, w.Client, request{method: http.MethodDelete, url: resource, bearer: w.BearerToken})
		if err != nil {
			return fmt.Errorf("whip delete %s: %w", resource, err)
		}
		if !ok2xx(resp.code) {
			return fmt.Errorf("whip delete %s: %w", resource, resp.statusError())
		}
		return nil
	}
	return answer, Session{ID: resource, close: closeFn}, nil
}

// whipAnswer checks a WHIP endpoint's response to an offer (RFC 9725 §4.2): 201 Created, an
// application/sdp answer, and the session URL in Location.
func whipAnswer(resp *response) (answer, resource string, err error) {
	if resp.code != http.StatusCreated {
		return "", "", fmt.Errorf("want 201 Created: %w", resp.statusError())
	}
	if err := checkMediaType(resp.header.Get("Content-Type"), ContentTypeSDP); err != nil {
		return "", "", err
	}
	if err := ValidateSDP(string(resp.body)); err != nil {
		return "", "", fmt.Errorf("answer: %w", err)
	}
	resource, err = resolveLocation(resp.url, resp.header.Get("Location"))
	if err != nil {
		return "", "", err
	}
	return string(resp.body), resource, nil
}

// maxLocation caps the WHIP session URL: it becomes the call's id in every record.
const maxLocation = 2048

// resolveLocation resolves a WHIP Location header against the URL that answered (RFC 9725 §4.2,
// RFC 9110 §10.2.2) to the absolute http(s) URL the session is deleted at. The result is ASCII:
// url.URL.String escapes what it does not keep as is.
func resolveLocation(base *url.URL, loc string) (string, error) {
	if loc == "" {
		return "", ErrMissingLocation
	}
	if len(loc) > maxLocation {
		return "", fmt.Errorf("%w: location of %d bytes (most %d)", ErrMissingLocation, len(loc), maxLocation)
	}
	res, err := base.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("%w: location %q: %w", ErrMissingLocation, quoteable(loc), safetext.Error(err))
	}
	if (res.Scheme != "http" && res.Scheme != "https") || res.Host == "" {
		return "", fmt.Errorf("%w: location %q is not an http(s) url", ErrMissingLocation, quoteable(loc))
	}
	out := res.String()
	if len(out) > maxLocation || safetext.Clean(out, 0) != out {
		return "", fmt.Errorf("%w: location %q", ErrMissingLocation, quoteable(loc))
	}
	return out, nil
}

// quoteable is agent-chosen text cut short for an error message, which %q then quotes.
func quoteable(s string) string { return safetext.Clean(s, 80) }
