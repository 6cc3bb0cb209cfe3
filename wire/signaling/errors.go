package signaling

import (
	"errors"
	"fmt"
	"strings"

	"github.com/callfleet/callfleet/internal/safetext"
)

var (
	// ErrStatus means the server answered with an unexpected HTTP status; see StatusError.
	ErrStatus = errors.New("signaling: unexpected http status")
	// ErrContentType means a body had the wrong media type.
	ErrContentType = errors.New("signaling: wrong content type")
	// ErrEmptySDP means an offer or answer carried no SDP.
	ErrEmptySDP = errors.New("signaling: empty sdp")
	// ErrBadSDP means an SDP does not start with "v=0", the version line RFC 8866 puts first.
	ErrBadSDP = errors.New("signaling: sdp does not start with v=0")
	// ErrBadOffer means an offer's type is not "offer".
	ErrBadOffer = errors.New("signaling: not an offer")
	// ErrMissingLocation means a WHIP 201 response had no Location header.
	ErrMissingLocation = errors.New("signaling: whip response without location")
	// ErrTooLarge means a body exceeded MaxBodySize.
	ErrTooLarge = errors.New("signaling: body too large")
	// ErrMalformed means a JSON body is not of the expected shape.
	ErrMalformed = errors.New("signaling: malformed body")
)

// snippetSize is how much of an error body StatusError keeps.
const snippetSize = 200

// StatusError is an unexpected HTTP status, with the start of the response body (pipecat's
// FastAPI errors are JSON such as {"detail":"…"}). It matches ErrStatus with errors.Is.
type StatusError struct {
	StatusCode int
	Status     string // e.g. "503 Service Unavailable"
	Body       string // first 200 bytes, cleaned (safetext.Clean): printable UTF-8, trimmed
	RetryAfter string // Retry-After header, which RFC 9725 servers send with 503
}

func (e *StatusError) Error() string {
	msg := "http " + e.Status
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrStatus) true.
func (e *StatusError) Unwrap() error { return ErrStatus }

func newStatusError(code int, status string, body []byte, retryAfter string) *StatusError {
	if len(body) > snippetSize {
		body = body[:snippetSize]
	}
	if status == "" {
		status = fmt.Sprint(code)
	}
	// The agent chose every text here; cleaned, an error message cannot drive a terminal.
	return &StatusError{
		StatusCode: code,
		Status:     safetext.Clean(status, safetext.MaxText),
		Body:       safetext.Clean(strings.ToValidUTF8(string(body), "\uFFFD"), snippetSize),
		RetryAfter: safetext.Clean(retryAfter, 64),
	}
}
