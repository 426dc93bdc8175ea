// Package openai embeds texts through any OpenAI-compatible
// POST /v1/embeddings endpoint (OpenAI, Ollama, vLLM, ...).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pgbrain/pgbrain/client/embed"
)

// Name is the provider name recorded with a brain that uses this embedder.
const Name = "openai"

// maxResponseBytes bounds how much of a reply is read, so a misbehaving
// server cannot exhaust memory; a 64-text batch of 3072-d floats is ~4 MiB.
const maxResponseBytes = 256 << 20

// maxErrorBodyBytes bounds an error reply quoted back to the user.
const maxErrorBodyBytes = 512

// Client calls one embeddings endpoint. It is safe for concurrent use.
type Client struct {
	cfg Config
	url string
}

var _ embed.Embedder = (*Client)(nil)

// New validates cfg, fills in defaults and returns a ready Client.
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	u, err := cfg.endpoint()
	if err != nil {
		return nil, fmt.Errorf("openai embedder: %w", err)
	}
	return &Client{cfg: cfg, url: u}, nil
}

// Name returns "openai".
func (c *Client) Name() string { return Name }

// Model returns the configured model identifier.
func (c *Client) Model() string { return c.cfg.Model }

// Dim returns the brain dimension every vector is checked against.
func (c *Client) Dim() int { return c.cfg.Dim }

// URL returns the resolved embeddings endpoint, for diagnostics.
func (c *Client) URL() string { return c.url }

// Embed returns one vector per text in input order, sending at most
// BatchSize texts per request. Empty input makes no request.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.cfg.BatchSize {
		end := min(start+c.cfg.BatchSize, len(texts))
		vecs, err := c.embedBatch(ctx, texts[start:end])
		if err != nil {
			if len(texts) > c.cfg.BatchSize {
				return nil, fmt.Errorf("embedding texts %d-%d of %d: %w", start+1, end, len(texts), err)
			}
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
}

// failure is one attempt's outcome when it did not produce vectors.
type failure struct {
	err        error
	retry      bool
	retryAfter time.Duration
	hasAfter   bool // the server named a wait with Retry-After
}

func (c *Client) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	req := request{Model: c.cfg.Model, Input: texts, EncodingFormat: "float"}
	if c.cfg.SendDimensions {
		req.Dimensions = c.cfg.Dim
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("openai embedder: encoding request: %w", err)
	}
	for attempt := 0; ; attempt++ {
		vecs, f := c.attempt(ctx, body, len(texts))
		if f == nil {
			return vecs, nil
		}
		if !f.retry {
			return nil, f.err
		}
		if attempt >= c.cfg.MaxRetries {
			n := "1 attempt"
			if attempt > 0 {
				n = fmt.Sprintf("%d attempts", attempt+1)
			}
			return nil, fmt.Errorf("giving up after %s: %w", n, f.err)
		}
		if err := c.cfg.Sleep(ctx, c.backoff(attempt, f)); err != nil {
			return nil, fmt.Errorf("%w; retry abandoned: %w", f.err, err)
		}
	}
}

// backoff is full-jitter exponential unless the server asked for a wait.
// Both are capped so a single call never stalls for minutes.
func (c *Client) backoff(attempt int, f *failure) time.Duration {
	if f.hasAfter {
		return min(f.retryAfter, c.cfg.BackoffMax)
	}
	bound := c.cfg.BackoffBase
	for i := 0; i < attempt && bound < c.cfg.BackoffMax; i++ {
		bound *= 2
	}
	bound = min(bound, c.cfg.BackoffMax)
	return rand.N(bound + 1)
}

func (c *Client) attempt(ctx context.Context, body []byte, n int) ([][]float32, *failure) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()

	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, &failure{err: fmt.Errorf("openai embedder: building request for %s: %w", c.url, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}

	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, c.transportFailure(ctx, "calling", err)
	}
	defer resp.Body.Close()

	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, c.transportFailure(ctx, "reading the response from", err)
	}
	if len(data) > maxResponseBytes {
		return nil, &failure{err: fmt.Errorf("openai embedder: response from %s exceeds %d bytes; lower BatchSize", c.url, maxResponseBytes)}
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.statusFailure(resp, data)
	}

	vecs, err := c.decode(data, n)
	if err != nil {
		return nil, &failure{err: err}
	}
	return vecs, nil
}

// transportFailure classifies errors below HTTP. They are retried unless the
// caller's own context ended, which means the caller gave up.
func (c *Client) transportFailure(ctx context.Context, doing string, err error) *failure {
	if ctx.Err() != nil {
		return &failure{err: fmt.Errorf("openai embedder: %s %s: %w", doing, c.url, err)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &failure{
			err:   fmt.Errorf("openai embedder: %s %s: no response within %v: %w; raise Timeout or check the server's load", doing, c.url, c.cfg.Timeout, err),
			retry: true,
		}
	}
	return &failure{
		err:   fmt.Errorf("openai embedder: %s %s: %w; check that the server is running and the base URL is right", doing, c.url, err),
		retry: true,
	}
}

func (c *Client) statusFailure(resp *http.Response, body []byte) *failure {
	apiErr := parseAPIError(resp.StatusCode, body)
	f := &failure{
		err:   fmt.Errorf("openai embedder: POST %s: %w; %s", c.url, apiErr, c.hint(resp.StatusCode)),
		retry: resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500,
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		f.retryAfter, f.hasAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return f
}

func (c *Client) hint(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if c.cfg.APIKey == "" {
			return "set " + EnvAPIKey
		}
		return "check " + EnvAPIKey
	case status == http.StatusNotFound:
		return fmt.Sprintf("check %s and that model %q is served there", EnvBaseURL, c.cfg.Model)
	case status == http.StatusTooManyRequests:
		return "the server is rate limiting; retry later or lower BatchSize"
	case status >= 500:
		return "the server failed; check its logs or retry later"
	case c.cfg.SendDimensions:
		return fmt.Sprintf("check model %q exists and accepts \"dimensions\": %d", c.cfg.Model, c.cfg.Dim)
	default:
		return fmt.Sprintf("check model %q exists and the input texts are non-empty", c.cfg.Model)
	}
}

func (c *Client) decode(data []byte, n int) ([][]float32, error) {
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("openai embedder: decoding response from %s: %w; the server did not answer in the OpenAI embeddings format, check the base URL", c.url, err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("openai embedder: %s returned %d embeddings for %d inputs; the server must return one per input", c.url, len(r.Data), n)
	}
	// Servers may answer out of order; "index" is the only reliable link
	// back to the input.
	out := make([][]float32, n)
	seen := make([]bool, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n {
			return nil, fmt.Errorf("openai embedder: %s returned index %d for %d inputs; the server must index inputs from 0", c.url, d.Index, n)
		}
		if seen[d.Index] {
			return nil, fmt.Errorf("openai embedder: %s returned index %d twice; the server must return one entry per input with distinct \"index\" values", c.url, d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("openai embedder: %s returned an empty embedding for input %d; check that model %q is an embedding model", c.url, d.Index, c.cfg.Model)
		}
		seen[d.Index] = true
		out[d.Index] = d.Embedding
	}
	if err := embed.CheckDim(Name, c.cfg.Model, c.cfg.Dim, out); err != nil {
		return nil, err
	}
	return out, nil
}

// APIError is a non-2xx reply. Message is the server's own explanation when
// it sent one in the OpenAI error format, else the start of the body.
type APIError struct {
	StatusCode int
	Type       string
	Code       string
	Message    string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("HTTP %d", e.StatusCode)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	return s
}

func parseAPIError(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	// OpenAI: {"error":{"message","type","code"}}; some compatible servers
	// use {"error":"..."} or a bare {"message":"..."} / {"detail":"..."}.
	var wire struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &wire) == nil {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		}
		var str string
		switch {
		case json.Unmarshal(wire.Error, &obj) == nil && obj.Message != "":
			e.Message, e.Type = obj.Message, obj.Type
			if obj.Code != nil {
				e.Code = fmt.Sprint(obj.Code)
			}
		case json.Unmarshal(wire.Error, &str) == nil && str != "":
			e.Message = str
		case wire.Message != "":
			e.Message = wire.Message
		case wire.Detail != nil:
			if d, err := json.Marshal(wire.Detail); err == nil {
				e.Message = strings.Trim(string(d), `"`)
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body))
		if len(e.Message) > maxErrorBodyBytes {
			e.Message = e.Message[:maxErrorBodyBytes] + "..."
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

// parseRetryAfter reads delay-seconds (fractions tolerated) or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs > 24*60*60 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
