package signaling

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

type request struct {
	method, url         string
	body                []byte
	contentType, accept string
	bearer              string
}

// response is a fully read response; reading inside send keeps body handling in one place.
type response struct {
	code   int
	status string
	header http.Header
	url    *url.URL // the URL that answered, after redirects
	body   []byte
}

func ok2xx(code int) bool { return code >= 200 && code < 300 }

func (r *response) statusError() *StatusError {
	return newStatusError(r.code, r.status, r.body, r.header.Get("Retry-After"))
}

// send performs one request under ctx and reads at most MaxBodySize bytes of the response.
func send(ctx context.Context, client *http.Client, r request) (*response, error) {
	if client == nil {
		client = http.DefaultClient
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body) // also sets GetBody, so 307/308 redirects resend it
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return nil, err
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	if r.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+r.bearer)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodySize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s response: %w", r.method, err)
	}
	out := &response{code: resp.StatusCode, status: resp.Status, header: resp.Header, url: resp.Request.URL, body: data}
	if len(data) > MaxBodySize {
		if !ok2xx(resp.StatusCode) {
			return out, nil // the status is the news; statusError keeps only the start anyway
		}
		return nil, fmt.Errorf("%w: response over %d bytes", ErrTooLarge, MaxBodySize)
	}
	return out, nil
}
