// Package openai talks to OpenAI-compatible servers (OpenAI, Ollama, vLLM,
// ...): POST /v1/embeddings as a pgbrain embedder (Client), and
// POST /v1/chat/completions for answers written by a chat model (Chat).
// Both share one transport: per-attempt timeouts, retries with backoff, and
// errors that name the fix.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/pgbrain/pgbrain/internal/embed"
)

// Name is the provider name recorded with a brain that uses this embedder.
const Name = "openai"

// maxResponseBytes bounds how much of a reply is read, so a misbehaving
// server cannot exhaust memory; a 64-text batch of 3072-d floats is ~4 MiB.
const maxResponseBytes = 256 << 20

// Client calls one embeddings endpoint. It is safe for concurrent use.
type Client struct {
	cfg Config
	t   *transport
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
	c := &Client{cfg: cfg}
	c.t = &transport{
		who: "openai embedder", url: u, hint: c.hint,
		maxBytes: maxResponseBytes, tooLarge: "lower BatchSize",
		apiKey: cfg.APIKey, Patience: cfg.Patience,
	}
	return c, nil
}

// Name returns "openai".
func (c *Client) Name() string { return Name }

// Model returns the configured model identifier.
func (c *Client) Model() string { return c.cfg.Model }

// Dim returns the brain dimension every vector is checked against.
func (c *Client) Dim() int { return c.cfg.Dim }

// URL returns the resolved embeddings endpoint, for diagnostics.
func (c *Client) URL() string { return c.t.url }

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

func (c *Client) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	req := request{Model: c.cfg.Model, Input: texts, EncodingFormat: "float"}
	if c.cfg.SendDimensions {
		req.Dimensions = c.cfg.Dim
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("openai embedder: encoding request: %w", err)
	}
	var vecs [][]float32
	err = c.t.post(ctx, body, func(data []byte) error {
		vecs, err = c.decode(data, len(texts))
		return err
	})
	if err != nil {
		return nil, err
	}
	return vecs, nil
}

func (c *Client) hint(e *APIError) string {
	status := e.StatusCode
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
		return nil, fmt.Errorf("openai embedder: decoding response from %s: %w; the server did not answer in the OpenAI embeddings format, check the base URL", c.t.url, err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("openai embedder: %s returned %d embeddings for %d inputs; the server must return one per input", c.t.url, len(r.Data), n)
	}
	// Servers may answer out of order; "index" is the only reliable link
	// back to the input.
	out := make([][]float32, n)
	seen := make([]bool, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n {
			return nil, fmt.Errorf("openai embedder: %s returned index %d for %d inputs; the server must index inputs from 0", c.t.url, d.Index, n)
		}
		if seen[d.Index] {
			return nil, fmt.Errorf("openai embedder: %s returned index %d twice; the server must return one entry per input with distinct \"index\" values", c.t.url, d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("openai embedder: %s returned an empty embedding for input %d; check that model %q is an embedding model", c.t.url, d.Index, c.cfg.Model)
		}
		seen[d.Index] = true
		out[d.Index] = d.Embedding
	}
	if err := embed.CheckDim(Name, c.cfg.Model, c.cfg.Dim, out); err != nil {
		return nil, err
	}
	return out, nil
}
