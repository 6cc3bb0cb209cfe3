package stt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/callfleet/callfleet/speech"
)

// OpenAI transcribes through an OpenAI-compatible server (whisper.cpp, faster-whisper, vLLM, OpenAI).
type OpenAI struct {
	// URL is the server base, e.g. http://127.0.0.1:8000; requests go to URL + /v1/audio/transcriptions.
	URL string
	// Model is the form field "model", e.g. "whisper-1".
	Model string
	// APIKey, if set, is sent as a Bearer token.
	APIKey string
	// Client is used for requests; nil means a client with DefaultHTTPTimeout.
	Client *http.Client
}

// DefaultHTTPTimeout caps a request when OpenAI.Client is nil; a digit phrase is seconds of audio.
const DefaultHTTPTimeout = 30 * time.Second

var defaultHTTPClient = &http.Client{Timeout: DefaultHTTPTimeout}

// maxErrBody bounds how much of a failed response is quoted in the error.
const maxErrBody = 512

// ErrBadResponse means the transcription server answered 2xx with something other than a JSON
// object holding "text".
var ErrBadResponse = errors.New("stt: openai: bad response")

// HTTPError is a non-2xx answer from the transcription server; it wraps ErrHTTP.
type HTTPError struct {
	Code   int    // e.g. 500
	Status string // e.g. "500 Internal Server Error"
	URL    string
	Body   string // the start of the response body, at most maxErrBody bytes
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%v: %s from %s: %s", ErrHTTP, e.Status, e.URL, e.Body)
}

func (e *HTTPError) Unwrap() error { return ErrHTTP }

// Transcribe posts the audio and returns the digits of the transcript ("" if none), normalised as
// any free-form transcript is: servers write "7, 1, 3, 4.", "71-34" or "Seventy-one thirty-four."
func (o *OpenAI) Transcribe(ctx context.Context, pcm16k []int16) (string, error) {
	text, err := o.TranscribeText(ctx, pcm16k)
	if err != nil {
		return "", err
	}
	return speech.Normalize(text), nil
}

// TranscribeText posts the audio as a 16 kHz WAV file and returns the server's raw text.
func (o *OpenAI) TranscribeText(ctx context.Context, pcm16k []int16) (string, error) {
	body, ctype, err := o.form(pcm16k)
	if err != nil {
		return "", err
	}
	url := strings.TrimRight(o.URL, "/") + "/v1/audio/transcriptions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return "", fmt.Errorf("stt: openai request: %w", err)
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.Client
	if client == nil {
		client = defaultHTTPClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("stt: openai post %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrBody))
		return "", &HTTPError{Code: resp.StatusCode, Status: resp.Status, URL: url, Body: strings.TrimSpace(string(snippet))}
	}
	var out struct {
		Text *string `json:"text"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
		return "", fmt.Errorf("%w: decode response from %s: %w", ErrBadResponse, url, err)
	}
	if out.Text == nil {
		return "", fmt.Errorf("%w: response from %s has no \"text\" field", ErrBadResponse, url)
	}
	return *out.Text, nil
}

// form builds the multipart body: file (WAV), model, response_format=json.
func (o *OpenAI) form(pcm16k []int16) (*bytes.Buffer, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile("file", "audio.wav")
	if err != nil {
		return nil, "", fmt.Errorf("stt: openai form: %w", err)
	}
	if err := writeWAV(fw, pcm16k, SampleRate); err != nil {
		return nil, "", fmt.Errorf("stt: openai form: %w", err)
	}
	for _, f := range [][2]string{{"model", o.Model}, {"response_format", "json"}} {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return nil, "", fmt.Errorf("stt: openai form: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", fmt.Errorf("stt: openai form: %w", err)
	}
	return &buf, w.FormDataContentType(), nil
}

// writeWAV writes mono 16-bit PCM with a canonical 44-byte RIFF header.
func writeWAV(w io.Writer, pcm []int16, rate int) error {
	data := uint32(len(pcm) * 2)
	hdr := struct {
		Riff     [4]byte
		Size     uint32
		Wave     [4]byte
		Fmt      [4]byte
		FmtSize  uint32
		Format   uint16
		Channels uint16
		Rate     uint32
		ByteRate uint32
		Align    uint16
		Bits     uint16
		Data     [4]byte
		DataSize uint32
	}{
		[4]byte{'R', 'I', 'F', 'F'}, 36 + data, [4]byte{'W', 'A', 'V', 'E'},
		[4]byte{'f', 'm', 't', ' '}, 16, 1, 1, uint32(rate), uint32(rate * 2), 2, 16,
		[4]byte{'d', 'a', 't', 'a'}, data,
	}
	if err := binary.Write(w, binary.LittleEndian, &hdr); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, pcm)
}
