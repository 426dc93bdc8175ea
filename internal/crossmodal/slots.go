package crossmodal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pgbrain/pgbrain/internal/longmemeval"
	"github.com/pgbrain/pgbrain/internal/openai"
)

// Environment variables naming slot N (1 to 3): PGBRAIN_CROSSMODAL_N_BASE_URL,
// _MODEL and _API_KEY. A slot's key falls back to PGBRAIN_CHAT_API_KEY, then
// OPENAI_API_KEY.
const EnvPrefix = "PGBRAIN_CROSSMODAL_"

// SlotConfig names one slot's endpoint.
type SlotConfig struct {
	Name string
	openai.ChatConfig
}

// ErrNoSlots says no model was named for scoring.
var ErrNoSlots = errors.New("no scoring model is configured: pass --slot MODEL@BASE_URL (up to 3), or set " +
	EnvPrefix + "1_BASE_URL and " + EnvPrefix + "1_MODEL (and _2_, _3_), or " + openai.EnvChatBaseURL + " and " + openai.EnvChatModel + " for a single slot")

// ParseSlot reads a --slot value: MODEL@BASE_URL.
func ParseSlot(s string) (openai.ChatConfig, error) {
	model, base, ok := strings.Cut(strings.TrimSpace(s), "@")
	if !ok || strings.TrimSpace(model) == "" || strings.TrimSpace(base) == "" {
		return openai.ChatConfig{}, fmt.Errorf("--slot %q: write MODEL@BASE_URL, e.g. gpt-4o-mini@https://api.openai.com or llama3.1@http://localhost:11434/v1", s)
	}
	cfg := openai.ChatConfig{Model: strings.TrimSpace(model), BaseURL: strings.TrimSpace(base)}
	if _, err := openai.NewChat(cfg); err != nil {
		return openai.ChatConfig{}, fmt.Errorf("--slot %q: %w", s, err)
	}
	return cfg, nil
}

// Slots resolves the scoring models: the --slot flags when given, else the
// PGBRAIN_CROSSMODAL_N_* variables, else the one chat model of
// PGBRAIN_CHAT_*. getenv is os.Getenv outside tests.
func Slots(flags []string, getenv func(string) string) ([]SlotConfig, error) {
	key := func(n int) string {
		for _, v := range []string{fmt.Sprintf("%s%d_API_KEY", EnvPrefix, n), openai.EnvChatAPIKey, openai.EnvAPIKey} {
			if k := strings.TrimSpace(getenv(v)); k != "" {
				return k
			}
		}
		return ""
	}
	if len(flags) > MaxSlots {
		return nil, fmt.Errorf("%d --slot flags: at most %d models score each output", len(flags), MaxSlots)
	}
	var out []SlotConfig
	for i, f := range flags {
		cfg, err := ParseSlot(f)
		if err != nil {
			return nil, err
		}
		cfg.APIKey = key(i + 1)
		out = append(out, SlotConfig{Name: fmt.Sprint(i + 1), ChatConfig: cfg})
	}
	if len(out) > 0 {
		return out, nil
	}
	for n := 1; n <= MaxSlots; n++ {
		base := strings.TrimSpace(getenv(fmt.Sprintf("%s%d_BASE_URL", EnvPrefix, n)))
		model := strings.TrimSpace(getenv(fmt.Sprintf("%s%d_MODEL", EnvPrefix, n)))
		if base == "" && model == "" {
			continue
		}
		if base == "" || model == "" {
			return nil, fmt.Errorf("slot %d: set both %s%d_BASE_URL and %s%d_MODEL", n, EnvPrefix, n, EnvPrefix, n)
		}
		cfg := openai.ChatConfig{BaseURL: base, Model: model, APIKey: key(n)}
		if _, err := openai.NewChat(cfg); err != nil {
			return nil, fmt.Errorf("slot %d (%s%d_BASE_URL): %w", n, EnvPrefix, n, err)
		}
		out = append(out, SlotConfig{Name: fmt.Sprint(n), ChatConfig: cfg})
	}
	if len(out) > 0 {
		return out, nil
	}
	cfg, err := openai.ChatFromEnvFunc(getenv)
	if errors.Is(err, openai.ErrNoChatModel) {
		return nil, ErrNoSlots
	}
	if err != nil {
		return nil, err
	}
	return []SlotConfig{{Name: "1", ChatConfig: cfg}}, nil
}

// ReadBatch reads a LongMemEval output (`pgbrain eval longmemeval
// --output`): each question row becomes an item (the question is the task,
// the hypothesis the output); the by_type_summary line is skipped.
func ReadBatch(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening --batch: %w", err)
	}
	defer f.Close()
	return ParseBatch(path, f)
}

// ParseBatch is ReadBatch over r, named name in errors.
func ParseBatch(name string, r io.Reader) ([]Item, error) {
	rows, err := longmemeval.ParseResults(name, r)
	if err != nil {
		return nil, err
	}
	items := make([]Item, 0, len(rows))
	for _, row := range rows {
		if strings.TrimSpace(row.Question) == "" {
			return nil, fmt.Errorf("%s: question %q has no \"question\" text to score against: produce the file with this pgbrain's 'eval longmemeval'", name, row.QuestionID)
		}
		items = append(items, Item{ID: row.QuestionID, Type: row.QuestionType, Task: row.Question, Output: row.Hypothesis})
	}
	return items, nil
}

// FromRows turns LongMemEval rows into items.
func FromRows(rows []longmemeval.Row) []Item {
	items := make([]Item, 0, len(rows))
	for _, row := range rows {
		items = append(items, Item{ID: row.QuestionID, Type: row.QuestionType, Task: row.Question, Output: row.Hypothesis})
	}
	return items
}
