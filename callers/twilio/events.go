package twilio

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/callfleet/callfleet/wire/rtvi"
)

const (
	// eventsRetry is how long a 404 from the events URL is retried: the agent registers the
	// call by its callSid on start, which may land just after the caller asks.
	eventsRetry    = 2 * time.Second
	eventsInterval = 100 * time.Millisecond
)

// runEvents reads the call's RTVI messages from the events stream into Events. Ready closes once
// the stream is open (the agent knows the call) or a bot-ready arrives; a stream that cannot be
// opened ends the call, since the caller was told the target has transcripts.
func (c *Conn) runEvents(ctx context.Context, url string) {
	defer c.wg.Done()
	defer close(c.events)
	resp, err := c.openEvents(ctx, url)
	if err != nil {
		if ctx.Err() == nil {
			c.fail(fmt.Errorf("%w: %w", ErrEvents, err))
		}
		return
	}
	defer resp.Body.Close()
	c.markReady()
	r := rtvi.NewSSEReader(resp.Body)
	for {
		m, err := r.Next()
		if err != nil {
			if perEvent(err) {
				continue
			}
			return // end of stream: the websocket says how the call ended
		}
		if m.Type == rtvi.TypeBotReady {
			c.markReady()
		}
		select {
		case c.events <- m:
		case <-ctx.Done():
			return
		}
	}
}

// perEvent reports an SSE error that spoils one event only; others end the stream.
func perEvent(err error) bool {
	for _, e := range []error{rtvi.ErrTooLarge, rtvi.ErrNotRTVI, rtvi.ErrMalformed, rtvi.ErrMissingField} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// openEvents GETs the events stream, retrying 404s and connection errors for eventsRetry.
func (c *Conn) openEvents(ctx context.Context, url string) (*http.Response, error) {
	deadline := time.Now().Add(eventsRetry)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		resp, err := c.getEvents(ctx, url)
		if err == nil && resp.StatusCode == http.StatusOK {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("get %s: %s", url, clean(resp.Status))
			if resp.StatusCode != http.StatusNotFound {
				return nil, err
			}
		}
		if !time.Now().Add(eventsInterval).Before(deadline) {
			return nil, fmt.Errorf("after %v: %w", eventsRetry, err)
		}
		t.Reset(eventsInterval)
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *Conn) getEvents(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	return c.d.client().Do(req)
}
