package twilio

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/internal/safetext"
	"github.com/callfleet/callfleet/speech/pool"
	tw "github.com/callfleet/callfleet/wire/twilio"
)

// Name is the transport's name in records.
const Name = "twilio"

// Dialer places calls the way Twilio does for a <Connect><Stream>.
type Dialer struct {
	// URL is the agent's Media Streams websocket (ws:// or wss://); unused when TwiMLURL is set.
	URL string
	// TwiMLURL, when set, is posted Twilio's voice webhook form first; the call dials the
	// <Stream url> of the TwiML it returns, with its <Parameter>s as customParameters.
	TwiMLURL string
	// AuthToken signs the webhook and the websocket upgrade with X-Twilio-Signature; empty sends
	// no signature.
	AuthToken string
	// EventsURL is the agent's Server-Sent Events stream of RTVI messages for the call, with
	// {callSid} standing for the call's sid; empty when the agent exposes no transcripts.
	EventsURL string
	// AccountSID, From and To fill the webhook and start; empty takes made-up values.
	AccountSID string
	From, To   string
	// Params are added to start.customParameters.
	Params map[string]string
	// Playout is the far end's playout delay the caller models. Twilio plays what it is sent
	// as it arrives, so the default is 0.
	Playout time.Duration
	// IdleTimeout ends a call whose agent sends nothing for this long (0: never). Agents send
	// nothing while they listen, so keep it well above a turn.
	IdleTimeout time.Duration
	// AheadLimit is how far ahead of real time the agent's audio may arrive before the excess
	// is dropped (Turn.Dropped); 0 means listen.DefaultMaxAhead.
	AheadLimit time.Duration
	// Dialer opens websockets; nil uses one with a 10 s handshake timeout.
	Dialer *websocket.Dialer
	// HTTPClient posts the webhook and reads events; nil uses a plain client.
	HTTPClient *http.Client
}

var _ callers.Dialer = (*Dialer)(nil)

// Name is "twilio".
func (d *Dialer) Name() string { return Name }

// Codec is G.711 mu-law, the only format Media Streams carries.
func (d *Dialer) Codec() pool.Codec { return pool.CodecMulaw }

// JitterBuffer is the modelled playout delay (Playout).
func (d *Dialer) JitterBuffer() time.Duration { return d.Playout }

var _ callers.AheadLimiter = (*Dialer)(nil)

// MaxAhead is AheadLimit, or listen.DefaultMaxAhead.
func (d *Dialer) MaxAhead() time.Duration {
	if d.AheadLimit > 0 {
		return d.AheadLimit
	}
	return listen.DefaultMaxAhead
}

// Dial opens the stream and sends connected and start; it returns once media can flow.
func (d *Dialer) Dial(ctx context.Context, info callers.CallInfo) (callers.Conn, error) {
	ids := newIDs(info.ID, d.AccountSID)
	wsURL, params := d.URL, maps.Clone(d.Params)
	if params == nil {
		params = map[string]string{}
	}
	if d.TwiMLURL != "" {
		u, p, err := d.fetchTwiML(ctx, ids)
		if err != nil {
			return nil, err
		}
		wsURL = u
		maps.Copy(params, p)
	}
	maps.Copy(params, info.Params)
	ws, err := d.open(ctx, wsURL)
	if err != nil {
		return nil, err
	}
	c := newConn(ws, ids, d)
	if err := c.begin(ctx, params); err != nil {
		c.Close(context.Background())
		return nil, err
	}
	return c, nil
}

// open dials the websocket; an HTTP 503 or 429 to the upgrade is a refusal.
func (d *Dialer) open(ctx context.Context, wsURL string) (*websocket.Conn, error) {
	wd := d.Dialer
	if wd == nil {
		wd = &websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 10 * time.Second}
	}
	var hdr http.Header
	if d.AuthToken != "" { // Twilio signs the upgrade as it does the webhook: the URL, no params
		hdr = http.Header{tw.SignatureHeader: {tw.Signature(d.AuthToken, wsURL, nil)}}
	}
	ws, resp, err := wd.DialContext(ctx, wsURL, hdr)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests) {
			return nil, fmt.Errorf("%w: %s answered %s", ErrRefused, clean(wsURL), clean(resp.Status))
		}
		if resp != nil {
			return nil, fmt.Errorf("%w: %s answered %s: %w", ErrDial, clean(wsURL), clean(resp.Status), err)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrDial, clean(wsURL), safetext.Error(err))
	}
	return ws, nil
}

func (d *Dialer) client() *http.Client {
	if d.HTTPClient != nil {
		return d.HTTPClient
	}
	return http.DefaultClient
}

// fetchTwiML posts Twilio's voice webhook and reads the stream URL and parameters it returns.
func (d *Dialer) fetchTwiML(ctx context.Context, ids ids) (string, map[string]string, error) {
	form := url.Values{
		"CallSid": {ids.call}, "AccountSid": {ids.account},
		"From": {or(d.From, "+15005550006")}, "To": {or(d.To, "+15005550001")},
		"CallStatus": {"in-progress"}, "Direction": {"inbound"}, "ApiVersion": {"2010-04-01"},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.TwiMLURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrTwiML, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if d.AuthToken != "" {
		req.Header.Set(tw.SignatureHeader, tw.Signature(d.AuthToken, d.TwiMLURL, form))
	}
	resp, err := d.client().Do(req)
	if err != nil {
		return "", nil, fmt.Errorf("%w: post %s: %w", ErrTwiML, d.TwiMLURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, tw.MaxMessageSize+1))
	if err != nil {
		return "", nil, fmt.Errorf("%w: read %s: %w", ErrTwiML, d.TwiMLURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("%w: %s answered %s", ErrTwiML, d.TwiMLURL, clean(resp.Status))
	}
	u, params, err := tw.ParseStreamURL(body)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrTwiML, err)
	}
	return u, params, nil
}

// ids are the call's Twilio identifiers: CA…, MZ…, AC… followed by 32 hex digits.
type ids struct{ call, stream, account string }

func newIDs(callSid, accountSid string) ids {
	return ids{call: or(callSid, sid("CA")), stream: sid("MZ"), account: or(accountSid, sid("AC"))}
}

func sid(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return prefix + hex.EncodeToString(b[:])
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// eventsURL fills the call's sid into the events URL template.
func (d *Dialer) eventsURL(callSid string) string {
	return strings.ReplaceAll(d.EventsURL, "{callSid}", url.PathEscape(callSid))
}
