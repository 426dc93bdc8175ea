// Package openaitest serves scripted OpenAI-compatible chat completions for
// tests: each request's messages go to a script that returns the reply (or
// an HTTP status such as 429), and the server counts the calls. It never
// talks to a real model.
package openaitest

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pgbrain/pgbrain/internal/openai"
)

// Reply is a script's answer to one request. Status 0 means 200 with
// Content; any other status is sent with an OpenAI-style error body.
// PromptTokens and CompletionTokens, when either is set, are returned as
// the reply's usage; otherwise the reply carries none.
type Reply struct {
	Content          string
	Status           int
	PromptTokens     int
	CompletionTokens int
}

// Request is what the script sees of one call.
type Request struct {
	Model    string
	Messages []openai.Message
}

// User is the content of the last user message.
func (r Request) User() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Server is a running scripted endpoint.
type Server struct {
	*httptest.Server
	calls atomic.Int64
}

// Calls is how many requests reached the script (429s and errors included).
func (s *Server) Calls() int { return int(s.calls.Load()) }

// New starts a server answering POST /v1/chat/completions with script; it is
// closed when the test ends.
func New(t testing.TB, script func(Request) Reply) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/chat/completions") {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		var req struct {
			Model    string           `json:"model"`
			Messages []openai.Message `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		s.calls.Add(1)
		rep := script(Request{Model: req.Model, Messages: req.Messages})
		w.Header().Set("Content-Type", "application/json")
		if rep.Status != 0 && rep.Status != http.StatusOK {
			if rep.Status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			w.WriteHeader(rep.Status)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": rep.Content, "type": "scripted"}})
			return
		}
		body := map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": rep.Content}, "finish_reason": "stop"}}}
		if rep.PromptTokens > 0 || rep.CompletionTokens > 0 {
			body["usage"] = map[string]any{"prompt_tokens": rep.PromptTokens, "completion_tokens": rep.CompletionTokens,
				"total_tokens": rep.PromptTokens + rep.CompletionTokens}
		}
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// ClosedURL returns the base URL of a port nothing listens on: a listener
// is opened and closed at once.
func ClosedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}
