package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults applied by New to zero-valued Config fields.
const (
	DefaultBaseURL     = "https://api.openai.com"
	DefaultModel       = "text-embedding-3-small"
	DefaultBatchSize   = 64
	DefaultTimeout     = 30 * time.Second
	DefaultMaxRetries  = 4
	DefaultBackoffBase = 500 * time.Millisecond
	DefaultBackoffMax  = 20 * time.Second
)

// Environment variables read by FromEnv.
const (
	EnvBaseURL       = "PGBRAIN_OPENAI_BASE_URL"
	EnvBaseURLOpenAI = "OPENAI_BASE_URL"
	EnvModel         = "PGBRAIN_EMBED_MODEL"
	EnvAPIKey        = "OPENAI_API_KEY"
)

// Config describes one OpenAI-compatible embeddings endpoint. Zero values
// take the defaults above.
type Config struct {
	// BaseURL is the server root, with or without a trailing "/v1"
	// (https://api.openai.com, http://localhost:11434/v1, ...).
	BaseURL string
	Model   string
	// APIKey is sent as a bearer token when set; local servers such as
	// Ollama need none.
	APIKey string
	// Dim is the brain's vector dimension; every returned vector must match.
	Dim int
	// SendDimensions asks the server to shorten vectors to Dim. Only some
	// models accept it (OpenAI text-embedding-3-*); others reject the field.
	SendDimensions bool
	// BatchSize is the most texts sent in one request.
	BatchSize int
	// Timeout bounds each HTTP attempt, not the whole Embed call.
	Timeout time.Duration
	// MaxRetries is how many times a failed request is retried after the
	// first attempt. Negative disables retries.
	MaxRetries int
	// BackoffBase is the first retry's upper bound; it doubles per retry up
	// to BackoffMax, and the actual wait is uniform in [0, bound].
	BackoffBase time.Duration
	// BackoffMax caps every wait, including one asked for by Retry-After.
	BackoffMax time.Duration
	// HTTPClient defaults to a fresh http.Client; per-attempt deadlines come
	// from Timeout, so its own Timeout can stay zero.
	HTTPClient *http.Client
	// Sleep waits between retries and must return early with ctx.Err() when
	// ctx ends. Tests replace it to observe waits without spending them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// FromEnv builds a Config for a brain of dimension dim from the environment:
// PGBRAIN_OPENAI_BASE_URL (else OPENAI_BASE_URL), PGBRAIN_EMBED_MODEL and
// OPENAI_API_KEY. OpenAI text-embedding-3 models are asked for dim-length
// vectors, since they can shorten theirs and the brain's column is fixed.
func FromEnv(dim int) (Config, error) {
	return fromEnv(os.Getenv, dim)
}

func fromEnv(getenv func(string) string, dim int) (Config, error) {
	cfg := Config{
		BaseURL: strings.TrimSpace(getenv(EnvBaseURL)),
		Model:   strings.TrimSpace(getenv(EnvModel)),
		APIKey:  strings.TrimSpace(getenv(EnvAPIKey)),
		Dim:     dim,
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = strings.TrimSpace(getenv(EnvBaseURLOpenAI))
	}
	cfg = cfg.withDefaults()
	cfg.SendDimensions = strings.HasPrefix(cfg.Model, "text-embedding-3")
	if _, err := cfg.endpoint(); err != nil {
		return Config{}, fmt.Errorf("reading %s/%s: %w", EnvBaseURL, EnvBaseURLOpenAI, err)
	}
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func (c Config) withDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = DefaultBackoffBase
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = DefaultBackoffMax
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.Sleep == nil {
		c.Sleep = sleepCtx
	}
	return c
}

func (c Config) validate() error {
	if c.Dim <= 0 {
		return fmt.Errorf("openai embedder: dimension %d is not positive; pass the brain's dimension (pgbrain init --dim N)", c.Dim)
	}
	return nil
}

// endpoint resolves BaseURL to the embeddings URL, accepting roots with or
// without "/v1" so users can paste whatever their provider documents.
func (c Config) endpoint() (string, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return "", fmt.Errorf("parsing base URL %q: %w; use a URL such as %s", c.BaseURL, err, DefaultBaseURL)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q needs an http:// or https:// scheme and a host; use a URL such as %s", c.BaseURL, DefaultBaseURL)
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path = p + "/v1/embeddings"
	u.RawPath = ""
	return u.String(), nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
