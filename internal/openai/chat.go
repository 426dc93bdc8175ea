package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Chat defaults, applied by NewChat to zero-valued ChatConfig fields.
const (
	DefaultChatModel = "gpt-4o-mini"
	// DefaultChatTimeout is longer than an embedding call's: a model writes
	// its answer before the reply starts.
	DefaultChatTimeout = 120 * time.Second
)

// maxChatResponseBytes bounds a chat reply; an answer is a few KB.
const maxChatResponseBytes = 16 << 20

// Environment variables read by ChatFromEnv. The base URL falls back to the
// embedder's (EnvBaseURL, then EnvBaseURLOpenAI), since one local server
// (Ollama, vLLM) often serves both; the key falls back to EnvAPIKey.
const (
	EnvChatBaseURL     = "PGBRAIN_CHAT_BASE_URL"
	EnvChatModel       = "PGBRAIN_CHAT_MODEL"
	EnvChatAPIKey      = "PGBRAIN_CHAT_API_KEY"
	EnvChatTemperature = "PGBRAIN_CHAT_TEMPERATURE"
)

// ModelTemperature, as the value of PGBRAIN_CHAT_TEMPERATURE, sends no
// temperature at all, for models that accept only their own (reasoning
// models refuse 0).
const ModelTemperature = "default"

// ErrNoChatModel is returned by ChatFromEnv when nothing names a chat
// endpoint: no base URL and no key, so not even the default server could
// be reached.
var ErrNoChatModel = errors.New("no chat model is configured: set " + EnvChatBaseURL +
	" (an OpenAI-compatible server such as http://localhost:11434/v1) and " + EnvChatModel +
	", or " + EnvAPIKey + " for OpenAI itself")

// ChatConfig describes one OpenAI-compatible chat completions endpoint.
// Zero values take the defaults.
type ChatConfig struct {
	// BaseURL is the server root, with or without a trailing "/v1".
	BaseURL string
	Model   string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// MaxTokens bounds the answer's length; 0 leaves it to the server.
	MaxTokens int
	// Temperature is sent with every request (0 by default, so that a
	// rerun asks the same question the same way), unless
	// OmitTemperature leaves the choice to the model.
	Temperature     float64
	OmitTemperature bool
	// Patience bounds each request and says how failures are retried.
	Patience
}

// ChatFromEnv builds a ChatConfig from PGBRAIN_CHAT_BASE_URL (else the
// embedder's base URL variables), PGBRAIN_CHAT_MODEL, PGBRAIN_CHAT_API_KEY
// (else OPENAI_API_KEY) and PGBRAIN_CHAT_TEMPERATURE (a number from 0 to 2,
// or "default" for none).
func ChatFromEnv() (ChatConfig, error) {
	return chatFromEnv(os.Getenv)
}

func chatFromEnv(getenv func(string) string) (ChatConfig, error) {
	first := func(names ...string) string {
		for _, n := range names {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return v
			}
		}
		return ""
	}
	cfg := ChatConfig{
		BaseURL: first(EnvChatBaseURL, EnvBaseURL, EnvBaseURLOpenAI),
		Model:   first(EnvChatModel),
		APIKey:  first(EnvChatAPIKey, EnvAPIKey),
	}
	if cfg.BaseURL == "" && cfg.APIKey == "" {
		return ChatConfig{}, ErrNoChatModel
	}
	switch t := first(EnvChatTemperature); {
	case t == "":
	case strings.EqualFold(t, ModelTemperature):
		cfg.OmitTemperature = true
	default:
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || !(v >= 0 && v <= 2) {
			return ChatConfig{}, fmt.Errorf("reading %s: %q is not a temperature: give a number from 0 to 2, or %q to send none", EnvChatTemperature, t, ModelTemperature)
		}
		cfg.Temperature = v
	}
	if _, err := cfg.withDefaults().endpoint(); err != nil {
		return ChatConfig{}, fmt.Errorf("reading %s: %w", EnvChatBaseURL, err)
	}
	return cfg, nil
}

func (c ChatConfig) withDefaults() ChatConfig {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Model == "" {
		c.Model = DefaultChatModel
	}
	c.Patience = c.Patience.withDefaults(DefaultChatTimeout)
	return c
}

func (c ChatConfig) endpoint() (string, error) {
	return resolveURL(c.BaseURL, "chat/completions", DefaultBaseURL)
}

// Chat asks one chat model for answers. It is safe for concurrent use.
type Chat struct {
	cfg ChatConfig
	t   *transport
}

// NewChat fills in defaults and returns a ready Chat.
func NewChat(cfg ChatConfig) (*Chat, error) {
	cfg = cfg.withDefaults()
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("chat model: MaxTokens %d is negative; use 0 to leave the length to the server", cfg.MaxTokens)
	}
	if !(cfg.Temperature >= 0 && cfg.Temperature <= 2) {
		return nil, fmt.Errorf("chat model: temperature %v is out of range; use 0 to 2", cfg.Temperature)
	}
	u, err := cfg.endpoint()
	if err != nil {
		return nil, fmt.Errorf("chat model: %w", err)
	}
	c := &Chat{cfg: cfg}
	c.t = &transport{
		who: "chat model", url: u, hint: c.hint,
		maxBytes: maxChatResponseBytes, tooLarge: "lower MaxTokens",
		apiKey: cfg.APIKey, Patience: cfg.Patience,
	}
	return c, nil
}

// Model returns the configured model identifier.
func (c *Chat) Model() string { return c.cfg.Model }

// URL returns the resolved chat completions endpoint, for diagnostics.
func (c *Chat) URL() string { return c.t.url }

// Message is one chat message: role "system", "user" or "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
}

type chatResponse struct {
	Usage   *Usage `json:"usage"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// Usage is what one call consumed, as the endpoint's "usage" object reports
// it. Reported is false when the reply carried no usage (many local servers
// send none); the counts are then zero and a caller that must account for
// the call estimates them (package budget does).
type Usage struct {
	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens int  `json:"completion_tokens"`
	Reported         bool `json:"-"`
}

// Reply is one answer and what it cost.
type Reply struct {
	Text  string
	Usage Usage
}

// Complete returns the model's reply to msgs.
func (c *Chat) Complete(ctx context.Context, msgs []Message) (string, error) {
	r, err := c.Send(ctx, msgs)
	return r.Text, err
}

// Send returns the model's reply to msgs together with the usage the
// endpoint reported for it.
func (c *Chat) Send(ctx context.Context, msgs []Message) (Reply, error) {
	req := chatRequest{Model: c.cfg.Model, Messages: msgs, MaxTokens: c.cfg.MaxTokens}
	if !c.cfg.OmitTemperature {
		req.Temperature = &c.cfg.Temperature
	}
	body, err := json.Marshal(req)
	if err != nil {
		return Reply{}, fmt.Errorf("chat model: encoding request: %w", err)
	}
	var reply Reply
	err = c.t.post(ctx, body, func(data []byte) error {
		reply, err = c.decode(data)
		return err
	})
	return reply, err
}

// Answer asks with a system prompt and one user message.
func (c *Chat) Answer(ctx context.Context, system, user string) (string, error) {
	return c.Complete(ctx, []Message{{Role: "system", Content: system}, {Role: "user", Content: user}})
}

func (c *Chat) decode(data []byte) (Reply, error) {
	var r chatResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return Reply{}, fmt.Errorf("chat model: decoding response from %s: %w; the server did not answer in the OpenAI chat completions format, check the base URL", c.t.url, err)
	}
	if len(r.Choices) == 0 {
		return Reply{}, fmt.Errorf("chat model: %s returned no choices; the server did not answer in the OpenAI chat completions format, check the base URL", c.t.url)
	}
	var u Usage
	// A server that sends "usage": {} or negative counts reported nothing
	// usable; the caller then estimates.
	if r.Usage != nil && r.Usage.PromptTokens >= 0 && r.Usage.CompletionTokens >= 0 &&
		r.Usage.PromptTokens+r.Usage.CompletionTokens > 0 {
		u = Usage{PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens, Reported: true}
	}
	m := r.Choices[0].Message
	switch {
	case m.Content != nil:
		return Reply{Text: strings.TrimSpace(*m.Content), Usage: u}, nil
	case m.Refusal != nil:
		return Reply{Text: strings.TrimSpace(*m.Refusal), Usage: u}, nil
	default:
		return Reply{}, fmt.Errorf("chat model: %s returned a reply without content (finish_reason %q); check that model %q is a chat model", c.t.url, r.Choices[0].FinishReason, c.cfg.Model)
	}
}

func (c *Chat) hint(e *APIError) string {
	status := e.StatusCode
	switch {
	case status == http.StatusBadRequest && !c.cfg.OmitTemperature &&
		(e.Param == "temperature" || strings.Contains(strings.ToLower(e.Message), "temperature")):
		return fmt.Sprintf("model %q does not take temperature %v: set %s=%s to send none, or a value it accepts", c.cfg.Model, c.cfg.Temperature, EnvChatTemperature, ModelTemperature)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if c.cfg.APIKey == "" {
			return "set " + EnvChatAPIKey + " or " + EnvAPIKey
		}
		return "check " + EnvChatAPIKey + " or " + EnvAPIKey
	case status == http.StatusNotFound:
		return fmt.Sprintf("check %s and that model %q is served there", EnvChatBaseURL, c.cfg.Model)
	case status == http.StatusTooManyRequests:
		return "the server is rate limiting; retry later"
	case status >= 500:
		return "the server failed; check its logs or retry later"
	default:
		return fmt.Sprintf("check that model %q exists and that the prompt fits its context window", c.cfg.Model)
	}
}
