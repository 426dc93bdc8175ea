// Package budget accounts for what chat-model calls cost: tokens and
// estimated US dollars, under one optional cap.
//
// The API is four pieces:
//
//   - Prices: USD per million prompt and completion tokens for each model.
//     DefaultPrices holds list prices of common hosted models; LoadPrices
//     overlays "budget.prices" from $PGBRAIN_HOME/config.json, e.g.
//     {"budget":{"prices":{"llama3.1:8b":{"input_per_mtok":0,"output_per_mtok":0}}}}.
//     A dated model name ("gpt-4o-mini-2024-07-18") takes the price of its
//     longest listed prefix.
//   - EstimateTokens / EstimateMessages: a deliberately high token count for
//     text, used when an endpoint reports no usage and before a run starts.
//   - Prices.Check: the pre-flight test. Given an Estimate of the calls a
//     run will make, it returns the estimated dollars, or ErrOverBudget when
//     they exceed the cap, or ErrUnpriced when a cap is set and the model has
//     no price (an unknown price could be anything, so it never passes a cap).
//   - Meter: accumulates the calls actually made (Record, or through Wrap,
//     which meters every call of a chat model) and cache hits, and reports
//     them as one stderr line (Report) or a Summary for --json output.
//
// Counts come from the usage the endpoint returns; a call whose reply has
// none is estimated from its text and counted in Summary.EstimatedCalls, so a
// reader knows which totals are measured.
package budget

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/openai"
)

// Price is what one model charges, in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok"`
}

// Cost is the price of the given token counts.
func (p Price) Cost(promptTokens, completionTokens int) float64 {
	return (float64(promptTokens)*p.InputPerMTok + float64(completionTokens)*p.OutputPerMTok) / 1e6
}

// Prices maps a model name to its price.
type Prices map[string]Price

// DefaultPrices returns a fresh table of list prices (USD per million
// tokens, standard tier) for common hosted chat models. Prices change;
// config.json overrides any of them.
func DefaultPrices() Prices {
	return Prices{
		"gpt-4o-mini":   {0.15, 0.60},
		"gpt-4o":        {2.50, 10.00},
		"gpt-4.1":       {2.00, 8.00},
		"gpt-4.1-mini":  {0.40, 1.60},
		"gpt-4.1-nano":  {0.10, 0.40},
		"gpt-4-turbo":   {10.00, 30.00},
		"gpt-3.5-turbo": {0.50, 1.50},
		"o1":            {15.00, 60.00},
		"o1-mini":       {1.10, 4.40},
		"o3":            {2.00, 8.00},
		"o3-mini":       {1.10, 4.40},
		"o4-mini":       {1.10, 4.40},
	}
}

// Lookup returns the price of model: an exact entry, else the longest entry
// that the name extends with "-" (a dated or suffixed version of it).
func (p Prices) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	best, found := "", false
	for name := range p {
		if strings.HasPrefix(model, name+"-") && len(name) > len(best) {
			best, found = name, true
		}
	}
	return p[best], found
}

// ConfigFile is the file in $PGBRAIN_HOME that LoadPrices reads.
const ConfigFile = "config.json"

// ParsePrices reads the "budget.prices" object of a config.json document
// over DefaultPrices. An empty document, or one without the key, yields the
// defaults. A price must be a finite, non-negative number.
func ParsePrices(data []byte) (Prices, error) {
	p := DefaultPrices()
	if len(bytes.TrimSpace(data)) == 0 {
		return p, nil
	}
	var doc struct {
		Budget struct {
			Prices map[string]*struct {
				In  *float64 `json:"input_per_mtok"`
				Out *float64 `json:"output_per_mtok"`
			} `json:"prices"`
		} `json:"budget"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	for name, v := range doc.Budget.Prices {
		if strings.TrimSpace(name) == "" {
			return nil, errors.New(`budget.prices has an empty model name`)
		}
		if v == nil || v.In == nil || v.Out == nil {
			return nil, fmt.Errorf(`budget.prices[%q] needs both "input_per_mtok" and "output_per_mtok" (US dollars per million tokens; 0 for a free local model)`, name)
		}
		for _, x := range []float64{*v.In, *v.Out} {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return nil, fmt.Errorf("budget.prices[%q]: %v is not a price; give US dollars per million tokens, 0 or more", name, x)
			}
		}
		p[name] = Price{InputPerMTok: *v.In, OutputPerMTok: *v.Out}
	}
	return p, nil
}

// LoadPrices returns the price table for the brain whose home is home:
// DefaultPrices overlaid with config.json's "budget.prices". A missing file
// yields the defaults; an unreadable or malformed one is an error naming it.
func LoadPrices(home string) (Prices, error) {
	path := filepath.Join(home, ConfigFile)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading prices from %s: %w (fix its permissions or remove it)", path, err)
	}
	p, err := ParsePrices(data)
	if err != nil {
		return nil, fmt.Errorf("reading prices from %s: %w (expected {\"budget\":{\"prices\":{\"MODEL\":{\"input_per_mtok\":0.15,\"output_per_mtok\":0.6}}}})", path, err)
	}
	return p, nil
}

// Per-message framing tokens the chat format adds, and the tokens that
// prime a reply (OpenAI's published counting rule).
const (
	messageOverhead = 4
	replyOverhead   = 3
)

// EstimateTokens returns a token count for text that is meant to be high
// rather than exact: a quarter token per ASCII byte, rounded up, and one
// token per other character (CJK, Greek, accents and emoji all cost at least
// that in common tokenizers).
func EstimateTokens(text string) int {
	ascii, other := 0, 0
	for _, r := range text {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return (ascii+3)/4 + other
}

// EstimateMessages is EstimateTokens over a prompt, with the chat framing.
func EstimateMessages(msgs []openai.Message) int {
	n := replyOverhead
	for _, m := range msgs {
		n += messageOverhead + EstimateTokens(m.Role) + EstimateTokens(m.Content)
	}
	return n
}

// Estimate is what a run expects to spend, before it starts.
type Estimate struct {
	Model            string `json:"model"`
	Calls            int    `json:"calls"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}

// Errors returned by Check, wrapped with the numbers.
var (
	ErrOverBudget = errors.New("estimated cost exceeds the budget")
	ErrUnpriced   = errors.New("model has no price")
)

// Check returns the estimated dollars of e. With capUSD > 0 it refuses, with
// ErrOverBudget, an estimate above the cap, and with ErrUnpriced a model
// that has no price. capUSD <= 0 means no cap.
func (p Prices) Check(e Estimate, capUSD float64) (float64, error) {
	pr, ok := p.Lookup(e.Model)
	if !ok {
		if capUSD > 0 {
			return 0, fmt.Errorf("%w: %q is not in the price table, so a cap of $%.4f cannot be checked; add it to budget.prices in config.json (0 for a free local model)", ErrUnpriced, e.Model, capUSD)
		}
		return 0, nil
	}
	usd := pr.Cost(e.PromptTokens, e.CompletionTokens)
	if capUSD > 0 && usd > capUSD {
		return usd, fmt.Errorf("%w: %d call(s) to %s, about %d prompt + %d completion tokens, cost an estimated $%.4f, over the cap of $%.4f; raise the cap or narrow the run",
			ErrOverBudget, e.Calls, e.Model, e.PromptTokens, e.CompletionTokens, usd, capUSD)
	}
	return usd, nil
}

// ModelUsage is one model's share of a Summary.
type ModelUsage struct {
	Calls            int     `json:"calls"`
	EstimatedCalls   int     `json:"estimated_calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	USD              float64 `json:"usd"`
	Priced           bool    `json:"priced"`
}

// Summary is what a Meter counted, in the shape --json output carries.
type Summary struct {
	Calls int `json:"calls"`
	// EstimatedCalls is how many of Calls had no usage from the endpoint
	// and were estimated.
	EstimatedCalls   int `json:"estimated_calls"`
	CacheHits        int `json:"cache_hits"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// USD counts priced models only; Unpriced names the others.
	USD      float64               `json:"usd"`
	Unpriced []string              `json:"unpriced_models,omitempty"`
	Models   map[string]ModelUsage `json:"models,omitempty"`
}

// Meter accumulates model usage. It is safe for concurrent use.
type Meter struct {
	prices Prices
	mu     sync.Mutex
	hits   int
	models map[string]*ModelUsage
}

// NewMeter returns an empty meter pricing with p (nil: DefaultPrices).
func NewMeter(p Prices) *Meter {
	if p == nil {
		p = DefaultPrices()
	}
	return &Meter{prices: p, models: map[string]*ModelUsage{}}
}

// Record counts one call to model with prompt msgs and reply r, estimating
// the tokens when the endpoint reported none.
func (m *Meter) Record(model string, msgs []openai.Message, r openai.Reply) {
	u := r.Usage
	if !u.Reported {
		u.PromptTokens, u.CompletionTokens = EstimateMessages(msgs), EstimateTokens(r.Text)
	}
	pr, priced := m.prices.Lookup(model)
	m.mu.Lock()
	defer m.mu.Unlock()
	mu := m.models[model]
	if mu == nil {
		mu = &ModelUsage{Priced: priced}
		m.models[model] = mu
	}
	mu.Calls++
	if !r.Usage.Reported {
		mu.EstimatedCalls++
	}
	mu.PromptTokens += u.PromptTokens
	mu.CompletionTokens += u.CompletionTokens
	mu.USD += pr.Cost(u.PromptTokens, u.CompletionTokens)
}

// CacheHit counts one answer served from a cache instead of a model.
func (m *Meter) CacheHit() {
	m.mu.Lock()
	m.hits++
	m.mu.Unlock()
}

// Summary returns the totals so far.
func (m *Meter) Summary() Summary {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Summary{CacheHits: m.hits}
	if len(m.models) > 0 {
		s.Models = make(map[string]ModelUsage, len(m.models))
	}
	for name, u := range m.models {
		s.Models[name] = *u
		s.Calls += u.Calls
		s.EstimatedCalls += u.EstimatedCalls
		s.PromptTokens += u.PromptTokens
		s.CompletionTokens += u.CompletionTokens
		s.USD += u.USD
		if !u.Priced {
			s.Unpriced = append(s.Unpriced, name)
		}
	}
	sort.Strings(s.Unpriced)
	return s
}

// Report writes the totals as one line for stderr, e.g.
//
//	pgbrain: model usage: 12 call(s), 3456 prompt + 789 completion tokens (2 call(s) estimated), 5 cache hit(s), about $0.0010
func (m *Meter) Report(w io.Writer) {
	s := m.Summary()
	var b strings.Builder
	fmt.Fprintf(&b, "pgbrain: model usage: %d call(s), %d prompt + %d completion tokens", s.Calls, s.PromptTokens, s.CompletionTokens)
	if s.EstimatedCalls > 0 {
		fmt.Fprintf(&b, " (%d call(s) estimated: the endpoint reported no usage)", s.EstimatedCalls)
	}
	if s.CacheHits > 0 {
		fmt.Fprintf(&b, ", %d cache hit(s)", s.CacheHits)
	}
	fmt.Fprintf(&b, ", about $%.4f", s.USD)
	if len(s.Unpriced) > 0 {
		fmt.Fprintf(&b, " (no price for %s: add it to budget.prices in config.json)", strings.Join(s.Unpriced, ", "))
	}
	fmt.Fprintln(w, b.String())
}

// Sender is a chat model that reports usage; *openai.Chat is one.
type Sender interface {
	Send(ctx context.Context, msgs []openai.Message) (openai.Reply, error)
	Model() string
}

// Chat is a chat model whose every successful call is recorded on a Meter.
type Chat struct {
	s Sender
	m *Meter
}

// Wrap returns s metered by m.
func (m *Meter) Wrap(s Sender) *Chat { return &Chat{s: s, m: m} }

// Model returns the wrapped model's name.
func (c *Chat) Model() string { return c.s.Model() }

// Send asks the model and records the call.
func (c *Chat) Send(ctx context.Context, msgs []openai.Message) (openai.Reply, error) {
	r, err := c.s.Send(ctx, msgs)
	if err != nil {
		return r, err
	}
	c.m.Record(c.s.Model(), msgs, r)
	return r, nil
}

// Complete returns the reply text to msgs.
func (c *Chat) Complete(ctx context.Context, msgs []openai.Message) (string, error) {
	r, err := c.Send(ctx, msgs)
	return r.Text, err
}

// Answer asks with a system prompt and one user message.
func (c *Chat) Answer(ctx context.Context, system, user string) (string, error) {
	return c.Complete(ctx, []openai.Message{{Role: "system", Content: system}, {Role: "user", Content: user}})
}
