package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRepeat(t *testing.T) {
	for in, want := range map[string]string{
		"7134":                 "seven one three four",
		"seven one three four": "seven one three four",
		"oh nine":              "zero nine",
		"":                     NotHeard,
		"what was that":        NotHeard,
	} {
		got, err := Repeat{}.Reply(context.Background(), in)
		if err != nil || got != want {
			t.Errorf("Reply(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestOpenAI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "bad path or auth", http.StatusBadRequest)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 || req.Model != "m" {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		switch req.Messages[1].Content {
		case "fail":
			http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
		case "slow":
			time.Sleep(300 * time.Millisecond)
		case "empty":
			w.Write([]byte(`{"choices":[]}`))
		default:
			w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":" seven one \n"}}]}`))
		}
	}))
	defer srv.Close()
	o := &OpenAI{URL: srv.URL + "/", Model: "m", APIKey: "k"}
	got, err := o.Reply(context.Background(), "71")
	if err != nil || got != "seven one" {
		t.Fatalf("Reply = %q, %v", got, err)
	}
	if _, err := o.Reply(context.Background(), "fail"); !errors.Is(err, ErrStatus) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("500: %v", err)
	}
	if _, err := o.Reply(context.Background(), "empty"); !errors.Is(err, ErrStatus) {
		t.Fatalf("no choices: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := o.Reply(ctx, "slow"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow: %v", err)
	}
}
