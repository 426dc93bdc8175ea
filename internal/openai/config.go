package openai

import (
	"fmt"
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
	// Patience bounds each request and says how failures are retried.
	Patience
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
	c.Patience = c.Patience.withDefaults(DefaultTimeout)
	return c
}

func (c Config) validate() error {
	if c.Dim <= 0 {
		return fmt.Errorf("openai embedder: dimension %d is not positive; pass the brain's dimension (pgbrain init --dim N)", c.Dim)
	}
	return nil
}

// endpoint resolves BaseURL to the embeddings URL.
func (c Config) endpoint() (string, error) {
	return resolveURL(c.BaseURL, "embeddings", DefaultBaseURL)
}
