package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/embed"
	"github.com/pgbrain/pgbrain/internal/expand"
	"github.com/pgbrain/pgbrain/internal/openai"
)

// newMeter returns a meter pricing with $PGBRAIN_HOME/config.json's table.
func newMeter(c *cli.Context) (*budget.Meter, error) {
	p, err := loadPrices(c)
	if err != nil {
		return nil, err
	}
	return budget.NewMeter(p), nil
}

// loadPrices is the price table of the home's config.json over the list
// prices: the one table every command that meters a model uses.
func loadPrices(c *cli.Context) (budget.Prices, error) {
	home, err := homeDir(c)
	if err != nil {
		return nil, err
	}
	return budget.LoadPrices(home)
}

// chatConfig reads the chat model from the environment; model, when not
// empty, replaces PGBRAIN_CHAT_MODEL (a --model flag).
func chatConfig(model string) (openai.ChatConfig, error) {
	cfg, err := openai.ChatFromEnv()
	if err != nil {
		return cfg, err
	}
	if m := strings.TrimSpace(model); m != "" {
		cfg.Model = m
	}
	return cfg, nil
}

// chatModelName is the model a configured chat would use, for the
// expansion cache's key when no endpoint is configured.
func chatModelName() string {
	if m := strings.TrimSpace(os.Getenv(openai.EnvChatModel)); m != "" {
		return m
	}
	return openai.DefaultChatModel
}

// expansionPatience fails an expansion fast: a search is waiting for it, and
// a failure only costs the variants.
var expansionPatience = openai.Patience{Timeout: expand.DefaultTimeout, MaxRetries: 1}

// newExpander builds the query expander: the chat model of the environment
// metered by m, or, when none is configured, one that serves cached
// expansions only (each use then says so in its note). A chat configuration
// that is present but wrong is an error.
func newExpander(db expand.DB, m *budget.Meter, variants int) (*expand.Expander, error) {
	e := &expand.Expander{DB: db, Variants: variants, Hits: m}
	cfg, err := chatConfig("")
	switch {
	case errors.Is(err, openai.ErrNoChatModel):
		e.ModelName = chatModelName()
		return e, nil
	case err != nil:
		return nil, err
	}
	cfg.Patience = expansionPatience
	chat, err := openai.NewChat(cfg)
	if err != nil {
		return nil, err
	}
	e.Model = m.Wrap(chat)
	return e, nil
}

// variantEmbedder adapts a client-side embedder for the variants of an
// expanded query (nil for a brain that embeds in SQL).
func variantEmbedder(emb embed.Embedder, b *brain.Brain) expand.Embedder {
	if emb == nil {
		return nil
	}
	dim := b.Settings.Dim
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if len(v) != dim {
				return nil, fmt.Errorf("the embedder returned a vector of dimension %d, expected %d", len(v), dim)
			}
		}
		return vs, nil
	}
}

// reportUsage writes the meter's line on stderr when a model was asked or
// a cache answered for one.
func reportUsage(w io.Writer, m *budget.Meter) {
	if m == nil {
		return
	}
	if s := m.Summary(); s.Calls > 0 || s.CacheHits > 0 {
		m.Report(w)
	}
}

// usageOf is the meter's summary for --json output (nil: no meter).
func usageOf(m *budget.Meter) *budget.Summary {
	if m == nil {
		return nil
	}
	s := m.Summary()
	return &s
}
