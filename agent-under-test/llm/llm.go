// Package llm holds the reference agent's "language model" stage: Repeat, which answers the digits
// it heard as words (deterministic, free), and OpenAI, which asks any OpenAI-compatible chat
// completions endpoint (a real model, for agents whose logic is to be tested too).
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/callfleet/callfleet/speech"
)

// LLM turns what the caller said into what the agent says back.
type LLM interface {
	Reply(ctx context.Context, transcript string) (string, error)
}

// NotHeard is what Repeat says when a transcript holds no digits.
const NotHeard = "sorry, I did not catch that"

// Repeat answers the digits it heard, as words ("7134" -> "seven one three four").
type Repeat struct{}

var _ LLM = Repeat{}

// Reply spells the transcript's digits.
func (Repeat) Reply(_ context.Context, transcript string) (string, error) {
	d := speech.Normalize(transcript)
	if d == "" {
		return NotHeard, nil
	}
	return speech.Words(d), nil
}

// DefaultSystemPrompt makes a chat model behave like Repeat.
const DefaultSystemPrompt = "You are a voice agent under test. The user says a few digits. Reply with exactly those digits as English words separated by spaces, nothing else."

// ErrStatus means the chat endpoint answered with an HTTP error.
var ErrStatus = errors.New("chat completions endpoint returned an error")

// OpenAI calls POST {URL}/v1/chat/completions.
type OpenAI struct {
	URL, Model, APIKey, System string
	Client                     *http.Client
}

var _ LLM = (*OpenAI)(nil)

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

// Reply sends one user message with the system prompt and returns the first choice's text.
func (o *OpenAI) Reply(ctx context.Context, transcript string) (string, error) {
	sys := o.System
	if sys == "" {
		sys = DefaultSystemPrompt
	}
	body, err := json.Marshal(chatRequest{Model: o.Model, Messages: []chatMessage{{"system", sys}, {"user", transcript}}})
	if err != nil {
		return "", fmt.Errorf("chat request: %w", err)
	}
	url := strings.TrimSuffix(o.URL, "/") + "/v1/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("chat request to %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("chat %s: %w", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("chat %s: read: %w", url, err)
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("chat %s: %w: %s: %.200s", url, ErrStatus, resp.Status, data)
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return "", fmt.Errorf("chat %s: decode: %w", url, err)
	}
	if len(cr.Choices) == 0 {
		return "", fmt.Errorf("chat %s: %w: no choices", url, ErrStatus)
	}
	return strings.TrimSpace(cr.Choices[0].Message.Content), nil
}
