package signaling

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// MaxBodySize caps offer and answer bodies, JSON or SDP; real SDPs are a few KiB.
const MaxBodySize = 64 << 10

// SDP types and media types on the wire.
const (
	TypeOffer       = "offer"
	TypeAnswer      = "answer"
	ContentTypeSDP  = "application/sdp"
	ContentTypeJSON = "application/json"
)

// Offer is the JSON body pipecat's /api/offer accepts (SmallWebRTCRequest).
type Offer struct {
	SDP  string `json:"sdp"`
	Type string `json:"type"`
	// PCID names an existing peer connection to renegotiate; empty for a new call.
	PCID      string `json:"pc_id,omitempty"`
	RestartPC bool   `json:"restart_pc,omitempty"`
	// RequestData is passed to the bot as its runner body; pipecat also accepts "requestData".
	RequestData json.RawMessage `json:"request_data,omitempty"`
}

// Answer is the JSON body pipecat's /api/offer returns.
type Answer struct {
	SDP  string `json:"sdp"`
	Type string `json:"type"`
	PCID string `json:"pc_id"`
}

// ICECandidate is one trickled candidate in a SmallWebRTC PATCH; an empty Candidate marks the end
// of candidates (RFC 8840).
type ICECandidate struct {
	Candidate     string `json:"candidate"`
	SDPMid        string `json:"sdp_mid"`
	SDPMLineIndex int    `json:"sdp_mline_index"`
}

// Patch is the JSON body of a SmallWebRTC PATCH (SmallWebRTCPatchRequest).
type Patch struct {
	PCID       string         `json:"pc_id"`
	Candidates []ICECandidate `json:"candidates"`
}

// ValidateSDP checks that sdp is non-empty and starts with the "v=0" version line.
func ValidateSDP(sdp string) error {
	if sdp == "" {
		return ErrEmptySDP
	}
	if len(sdp) < 4 || sdp[:3] != "v=0" || (sdp[3] != '\r' && sdp[3] != '\n') {
		return ErrBadSDP
	}
	return nil
}

// offerWire accepts pipecat's camelCase alias and a null restart_pc.
type offerWire struct {
	SDP          *string         `json:"sdp"`
	Type         string          `json:"type"`
	PCID         *string         `json:"pc_id"`
	RestartPC    *bool           `json:"restart_pc"`
	RequestData  json.RawMessage `json:"request_data"`
	RequestData2 json.RawMessage `json:"requestData"`
}

// DecodeOffer reads a SmallWebRTC offer body of at most MaxBodySize bytes and checks it: a JSON
// object whose type is "offer" and whose sdp starts with "v=0". Unknown fields are ignored.
func DecodeOffer(r io.Reader) (Offer, error) {
	body, err := readCapped(r)
	if err != nil {
		return Offer{}, fmt.Errorf("decode offer: %w", err)
	}
	var w offerWire
	if err := json.Unmarshal(body, &w); err != nil {
		return Offer{}, fmt.Errorf("decode offer: %w: %v", ErrMalformed, err)
	}
	if w.Type != TypeOffer {
		return Offer{}, fmt.Errorf("decode offer: %w: type %q", ErrBadOffer, quoteable(w.Type))
	}
	o := Offer{Type: TypeOffer}
	if w.SDP != nil {
		o.SDP = *w.SDP
	}
	if err := ValidateSDP(o.SDP); err != nil {
		return Offer{}, fmt.Errorf("decode offer: %w", err)
	}
	if w.PCID != nil {
		o.PCID = *w.PCID
	}
	if w.RestartPC != nil {
		o.RestartPC = *w.RestartPC
	}
	o.RequestData = nonNull(w.RequestData)
	if o.RequestData == nil {
		o.RequestData = nonNull(w.RequestData2)
	}
	return o, nil
}

// DecodeAnswer reads a SmallWebRTC answer body and checks its type and SDP.
func DecodeAnswer(r io.Reader) (Answer, error) {
	body, err := readCapped(r)
	if err != nil {
		return Answer{}, fmt.Errorf("decode answer: %w", err)
	}
	var a Answer
	if err := json.Unmarshal(body, &a); err != nil {
		return Answer{}, fmt.Errorf("decode answer: %w: %v", ErrMalformed, err)
	}
	if a.Type != TypeAnswer {
		return Answer{}, fmt.Errorf("decode answer: %w: type %q", ErrMalformed, quoteable(a.Type))
	}
	if err := ValidateSDP(a.SDP); err != nil {
		return Answer{}, fmt.Errorf("decode answer: %w", err)
	}
	if !validID(a.PCID) {
		return Answer{}, fmt.Errorf("decode answer: %w: pc_id %q is not a printable token of at most %d bytes",
			ErrMalformed, quoteable(a.PCID), MaxIDSize)
	}
	return a, nil
}

// MaxIDSize caps an answer's pc_id, which becomes the call's id in every record.
const MaxIDSize = 256

// validID reports a pc_id of printable ASCII without spaces, at most MaxIDSize bytes (pipecat's
// are "SmallWebRTCConnection#<n>" or a uuid); empty is allowed.
func validID(id string) bool {
	if len(id) > MaxIDSize {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// ReadWHIPOffer reads the SDP offer of a WHIP POST (RFC 9725 §4.2): Content-Type must be
// application/sdp and the body a valid SDP of at most MaxBodySize bytes.
func ReadWHIPOffer(req *http.Request) (string, error) {
	if err := checkMediaType(req.Header.Get("Content-Type"), ContentTypeSDP); err != nil {
		return "", fmt.Errorf("read whip offer: %w", err)
	}
	body, err := readCapped(req.Body)
	if err != nil {
		return "", fmt.Errorf("read whip offer: %w", err)
	}
	if err := ValidateSDP(string(body)); err != nil {
		return "", fmt.Errorf("read whip offer: %w", err)
	}
	return string(body), nil
}

// readCapped reads all of r, failing with ErrTooLarge past MaxBodySize.
func readCapped(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxBodySize+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxBodySize {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxBodySize)
	}
	return body, nil
}

// checkMediaType compares a Content-Type header's media type, ignoring parameters and case.
func checkMediaType(header, want string) error {
	mt, _, err := mime.ParseMediaType(header)
	if err != nil || mt != want {
		return fmt.Errorf("%w: %q, want %s", ErrContentType, quoteable(header), want)
	}
	return nil
}

func nonNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || bytes.Equal(r, []byte("null")) {
		return nil
	}
	return r
}
