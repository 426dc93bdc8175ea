package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// chatServer speaks the OpenAI chat completions wire format; reply decides
// each answer from the 1-based request number and the decoded request.
func chatServer(t *testing.T, reply func(w http.ResponseWriter, n int, req chatRequest, h http.Header)) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	n := 0
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request body: "+err.Error(), http.StatusTeapot)
			return
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		reply(w, k, req, r.Header)
	}))
	t.Cleanup(s.Close)
	return s
}

func writeChatReply(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object":  "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
	})
}

func TestChatRequestAndReply(t *testing.T) {
	var got chatRequest
	var auth string
	s := chatServer(t, func(w http.ResponseWriter, n int, req chatRequest, h http.Header) {
		got, auth = req, h.Get("Authorization")
		writeChatReply(w, "  A beagle.\n")
	})
	for _, base := range []string{s.URL, s.URL + "/v1", s.URL + "/v1/"} {
		c, err := NewChat(ChatConfig{BaseURL: base, Model: "m1", APIKey: "k1", MaxTokens: 64})
		if err != nil {
			t.Fatal(err)
		}
		answer, err := c.Answer(context.Background(), "be brief", "What breed is my dog?")
		if err != nil {
			t.Fatalf("base %s: %v", base, err)
		}
		if answer != "A beagle." {
			t.Errorf("answer = %q, want the reply trimmed", answer)
		}
		want := chatRequest{Model: "m1", MaxTokens: 64, Messages: []Message{{"system", "be brief"}, {"user", "What breed is my dog?"}}}
		if got.Model != want.Model || got.MaxTokens != 64 || got.Temperature == nil || *got.Temperature != 0 || len(got.Messages) != 2 || got.Messages[0] != want.Messages[0] || got.Messages[1] != want.Messages[1] {
			t.Errorf("request = %+v, want %+v", got, want)
		}
		if auth != "Bearer k1" {
			t.Errorf("Authorization = %q", auth)
		}
	}
}

func TestChatRequestOmitsUnsetMaxTokens(t *testing.T) {
	var raw map[string]any
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewDecoder(r.Body).Decode(&raw)
		writeChatReply(w, "ok")
	}))
	defer s.Close()
	c, err := NewChat(ChatConfig{BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Answer(context.Background(), "s", "u"); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["max_tokens"]; ok {
		t.Errorf("max_tokens sent although unset: %v", raw)
	}
	if raw["model"] != DefaultChatModel || raw["temperature"] != 0.0 {
		t.Errorf("request = %v, want the default model at temperature 0", raw)
	}
}

// Temperature 0 is sent unless another is set, and none at all for a model
// that takes only its own.
func TestChatTemperature(t *testing.T) {
	tests := []struct {
		name string
		cfg  ChatConfig
		want any // the request's "temperature"; nil: absent
	}{
		{"default", ChatConfig{}, 0.0},
		{"set", ChatConfig{Temperature: 0.7}, 0.7},
		{"the model's own", ChatConfig{Temperature: 0.7, OmitTemperature: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw map[string]any
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_ = json.NewDecoder(r.Body).Decode(&raw)
				writeChatReply(w, "ok")
			}))
			defer s.Close()
			cfg := tt.cfg
			cfg.BaseURL = s.URL
			c, err := NewChat(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Answer(context.Background(), "s", "u"); err != nil {
				t.Fatal(err)
			}
			got, sent := raw["temperature"]
			if (tt.want == nil) == sent || sent && got != tt.want {
				t.Errorf("temperature = %v (sent %v), want %v", got, sent, tt.want)
			}
		})
	}
	if _, err := NewChat(ChatConfig{Temperature: 2.5}); err == nil || !strings.Contains(err.Error(), "temperature 2.5 is out of range") {
		t.Errorf("temperature 2.5: %v", err)
	}
}

// A model that refuses the temperature is named with the setting that
// fixes it.
func TestChatTemperatureRefused(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`))
	}))
	defer s.Close()
	c, err := NewChat(ChatConfig{BaseURL: s.URL, Model: "o3-mini"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Answer(context.Background(), "s", "u")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Param != "temperature" ||
		!strings.Contains(err.Error(), `model "o3-mini" does not take temperature 0: set PGBRAIN_CHAT_TEMPERATURE=default`) {
		t.Errorf("err = %v", err)
	}
}

func TestChatRetriesThenAnswers(t *testing.T) {
	s := chatServer(t, func(w http.ResponseWriter, n int, req chatRequest, h http.Header) {
		switch n {
		case 1:
			writeAPIError(w, http.StatusInternalServerError, "overloaded", "server_error")
		case 2:
			w.Header().Set("Retry-After", "3")
			writeAPIError(w, http.StatusTooManyRequests, "slow down", "rate_limit")
		default:
			writeChatReply(w, "Lisbon")
		}
	})
	var sl sleepRecorder
	c, err := NewChat(ChatConfig{BaseURL: s.URL, Patience: Patience{Sleep: sl.sleep}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Answer(context.Background(), "s", "u")
	if err != nil || got != "Lisbon" {
		t.Fatalf("Answer = %q, %v", got, err)
	}
	waits := sl.Waits()
	if len(waits) != 2 || waits[1] != 3e9 {
		t.Errorf("waits = %v, want two, the second the server's Retry-After of 3s", waits)
	}
}

func TestChatErrors(t *testing.T) {
	tests := []struct {
		name  string
		cfg   ChatConfig
		reply func(w http.ResponseWriter)
		want  string
	}{
		{"no key", ChatConfig{}, func(w http.ResponseWriter) { writeAPIError(w, 401, "missing key", "auth") }, "set PGBRAIN_CHAT_API_KEY or OPENAI_API_KEY"},
		{"bad key", ChatConfig{APIKey: "k"}, func(w http.ResponseWriter) { writeAPIError(w, 403, "bad key", "auth") }, "check PGBRAIN_CHAT_API_KEY"},
		{"unknown model", ChatConfig{Model: "nope"}, func(w http.ResponseWriter) { writeAPIError(w, 404, "model not found", "") }, `check PGBRAIN_CHAT_BASE_URL and that model "nope" is served there`},
		{"prompt too long", ChatConfig{Model: "small"}, func(w http.ResponseWriter) { writeAPIError(w, 400, "context length exceeded", "") }, `context length exceeded; check that model "small" exists and that the prompt fits its context window`},
		{"not json", ChatConfig{}, func(w http.ResponseWriter) { _, _ = w.Write([]byte("<html>")) }, "did not answer in the OpenAI chat completions format"},
		{"no choices", ChatConfig{}, func(w http.ResponseWriter) { _, _ = w.Write([]byte(`{"choices":[]}`)) }, "returned no choices"},
		{"no content", ChatConfig{Model: "embedder"}, func(w http.ResponseWriter) {
			_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"tool_calls"}]}`))
		}, `without content (finish_reason "tool_calls"); check that model "embedder" is a chat model`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := chatServer(t, func(w http.ResponseWriter, n int, req chatRequest, h http.Header) { tt.reply(w) })
			cfg := tt.cfg
			cfg.BaseURL = s.URL
			c, err := NewChat(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Answer(context.Background(), "s", "u")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "chat model") {
				t.Errorf("err = %v, want one naming the chat model and %q", err, tt.want)
			}
		})
	}
}

func TestChatRefusalIsTheAnswer(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`))
	}))
	defer s.Close()
	c, err := NewChat(ChatConfig{BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Answer(context.Background(), "s", "u"); err != nil || got != "I can't help with that." {
		t.Errorf("Answer = %q, %v", got, err)
	}
}

func TestChatFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    ChatConfig
		wantErr string
	}{
		{"nothing set", nil, ChatConfig{}, ErrNoChatModel.Error()},
		{"key only: OpenAI itself", map[string]string{"OPENAI_API_KEY": "k"}, ChatConfig{APIKey: "k"}, ""},
		{"local server", map[string]string{"PGBRAIN_CHAT_BASE_URL": "http://localhost:11434/v1", "PGBRAIN_CHAT_MODEL": "llama3"},
			ChatConfig{BaseURL: "http://localhost:11434/v1", Model: "llama3"}, ""},
		{"the embedder's server", map[string]string{"PGBRAIN_OPENAI_BASE_URL": "http://emb:8000", "OPENAI_BASE_URL": "http://other"},
			ChatConfig{BaseURL: "http://emb:8000"}, ""},
		{"chat settings win", map[string]string{"PGBRAIN_CHAT_BASE_URL": "http://chat", "PGBRAIN_OPENAI_BASE_URL": "http://emb", "PGBRAIN_CHAT_API_KEY": "c", "OPENAI_API_KEY": "o"},
			ChatConfig{BaseURL: "http://chat", APIKey: "c"}, ""},
		{"bad URL", map[string]string{"PGBRAIN_CHAT_BASE_URL": "localhost:11434"}, ChatConfig{}, "reading PGBRAIN_CHAT_BASE_URL"},
		{"temperature", map[string]string{"OPENAI_API_KEY": "k", "PGBRAIN_CHAT_TEMPERATURE": " 0.3 "}, ChatConfig{APIKey: "k", Temperature: 0.3}, ""},
		{"the model's temperature", map[string]string{"OPENAI_API_KEY": "k", "PGBRAIN_CHAT_TEMPERATURE": "Default"}, ChatConfig{APIKey: "k", OmitTemperature: true}, ""},
		{"bad temperature", map[string]string{"OPENAI_API_KEY": "k", "PGBRAIN_CHAT_TEMPERATURE": "warm"}, ChatConfig{}, `reading PGBRAIN_CHAT_TEMPERATURE: "warm" is not a temperature`},
		{"temperature out of range", map[string]string{"OPENAI_API_KEY": "k", "PGBRAIN_CHAT_TEMPERATURE": "3"}, ChatConfig{}, "give a number from 0 to 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chatFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if tt.name == "nothing set" && !errors.Is(err, ErrNoChatModel) {
					t.Errorf("err = %v, want ErrNoChatModel", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.BaseURL != tt.want.BaseURL || got.Model != tt.want.Model || got.APIKey != tt.want.APIKey ||
				got.Temperature != tt.want.Temperature || got.OmitTemperature != tt.want.OmitTemperature {
				t.Errorf("config = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestChatReportsUsage(t *testing.T) {
	cases := []struct {
		name         string
		usage        any // the reply's "usage" member; nil sends none
		wantReported bool
		wantP, wantC int
	}{
		{"reported", map[string]any{"prompt_tokens": 31, "completion_tokens": 7, "total_tokens": 38}, true, 31, 7},
		{"absent", nil, false, 0, 0},
		{"empty object", map[string]any{}, false, 0, 0},
		{"negative", map[string]any{"prompt_tokens": -1, "completion_tokens": 5}, false, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := chatServer(t, func(w http.ResponseWriter, n int, req chatRequest, h http.Header) {
				reply := map[string]any{
					"object":  "chat.completion",
					"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": " ok "}, "finish_reason": "stop"}},
				}
				if tc.usage != nil {
					reply["usage"] = tc.usage
				}
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(reply)
			})
			c, err := NewChat(ChatConfig{BaseURL: s.URL, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Send(context.Background(), []Message{{Role: "user", Content: "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != "ok" || r.Usage.Reported != tc.wantReported || r.Usage.PromptTokens != tc.wantP || r.Usage.CompletionTokens != tc.wantC {
				t.Fatalf("Send = %+v, want text ok, reported %v, %d+%d", r, tc.wantReported, tc.wantP, tc.wantC)
			}
		})
	}
}
