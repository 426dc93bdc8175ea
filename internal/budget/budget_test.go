package budget

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pgbrain/pgbrain/internal/openai"
)

func TestLookup(t *testing.T) {
	p := DefaultPrices()
	cases := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4o-mini", Price{0.15, 0.60}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.60}, true}, // longest prefix, not gpt-4o
		{"gpt-4o-2024-08-06", Price{2.50, 10.00}, true},
		{"gpt-4o2", Price{}, false}, // a prefix must end at "-"
		{"llama3.1:8b", Price{}, false},
		{"", Price{}, false},
	}
	for _, tc := range cases {
		got, ok := p.Lookup(tc.model)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tc.model, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParsePrices(t *testing.T) {
	cases := []struct {
		doc     string
		model   string
		want    Price
		wantErr string
	}{
		{``, "gpt-4o-mini", Price{0.15, 0.60}, ""},
		{`{"eval":{"capture":true}}`, "gpt-4o", Price{2.5, 10}, ""},
		{`{"budget":{"prices":{"llama3.1:8b":{"input_per_mtok":0,"output_per_mtok":0}}}}`, "llama3.1:8b", Price{}, ""},
		{`{"budget":{"prices":{"gpt-4o-mini":{"input_per_mtok":1,"output_per_mtok":2}}}}`, "gpt-4o-mini", Price{1, 2}, ""},
		{`{"budget":{"prices":{"m":{"input_per_mtok":1}}}}`, "m", Price{}, `needs both "input_per_mtok" and "output_per_mtok"`},
		{`{"budget":{"prices":{"m":null}}}`, "m", Price{}, `needs both`},
		{`{"budget":{"prices":{"m":{"input_per_mtok":-1,"output_per_mtok":0}}}}`, "m", Price{}, "is not a price"},
		{`{"budget":{"prices":{" ":{"input_per_mtok":1,"output_per_mtok":0}}}}`, " ", Price{}, "empty model name"},
		{`{"budget":{"prices":[1]}}`, "m", Price{}, "cannot unmarshal"},
		{`{not json`, "m", Price{}, "invalid character"},
	}
	for _, tc := range cases {
		p, err := ParsePrices([]byte(tc.doc))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParsePrices(%s) error = %v, want one containing %q", tc.doc, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParsePrices(%s): %v", tc.doc, err)
			continue
		}
		if got, ok := p.Lookup(tc.model); !ok || got != tc.want {
			t.Errorf("ParsePrices(%s)[%q] = %v, %v; want %v", tc.doc, tc.model, got, ok, tc.want)
		}
	}
}

func TestLoadPrices(t *testing.T) {
	home := t.TempDir()
	p, err := LoadPrices(home)
	if err != nil || len(p) != len(DefaultPrices()) {
		t.Fatalf("LoadPrices without a file = %d prices, %v", len(p), err)
	}
	path := filepath.Join(home, ConfigFile)
	if err := os.WriteFile(path, []byte(`{"budget":{"prices":{"local":{"input_per_mtok":0,"output_per_mtok":0}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err = LoadPrices(home); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Lookup("local"); !ok {
		t.Fatalf("configured price missing: %v", p)
	}
	if err := os.WriteFile(path, []byte(`{"budget":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err = LoadPrices(home); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("malformed file: error %v does not name %s", err, path)
	}
}

func TestEstimateTokens(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{"日本語", 3},
		{"café", 2}, // 3 ASCII bytes round up to 1, é is 1
		{"🐕🐕", 2},
		{strings.Repeat("x", 4000), 1000},
	}
	for _, tc := range cases {
		if got := EstimateTokens(tc.text); got != tc.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
	msgs := []openai.Message{{Role: "system", Content: "abcd"}, {Role: "user", Content: "日本"}}
	// 3 to prime the reply; per message 4 framing + role + content.
	if got, want := EstimateMessages(msgs), 3+(4+2+1)+(4+1+2); got != want {
		t.Errorf("EstimateMessages = %d, want %d", got, want)
	}
}

func TestCheck(t *testing.T) {
	p := DefaultPrices()
	e := Estimate{Model: "gpt-4o-mini", Calls: 10, PromptTokens: 1_000_000, CompletionTokens: 100_000}
	want := 0.15 + 0.06
	cases := []struct {
		cap     float64
		model   string
		wantErr error
	}{
		{0, "gpt-4o-mini", nil},
		{1, "gpt-4o-mini", nil},
		{0.21, "gpt-4o-mini", nil},
		{0.20, "gpt-4o-mini", ErrOverBudget},
		{0.01, "gpt-4o-mini", ErrOverBudget},
		{1, "local-model", ErrUnpriced},
		{0, "local-model", nil},
	}
	for _, tc := range cases {
		e.Model = tc.model
		usd, err := p.Check(e, tc.cap)
		if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
			t.Errorf("Check(%s, cap %v) error = %v, want %v", tc.model, tc.cap, err, tc.wantErr)
		}
		if tc.model == "gpt-4o-mini" && math.Abs(usd-want) > 1e-9 {
			t.Errorf("Check(cap %v) = $%v, want $%v", tc.cap, usd, want)
		}
	}
}

// usageServer answers every chat request with "ok"; usage decides the
// "usage" member (nil sends none). It counts the requests.
func usageServer(t *testing.T, usage map[string]any) (*httptest.Server, *int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		reply := map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "okay"}, "finish_reason": "stop"}}}
		if usage != nil {
			reply["usage"] = usage
		}
		_ = json.NewEncoder(w).Encode(reply)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func TestMeterCountsReportedAndEstimatedUsage(t *testing.T) {
	ctx := context.Background()
	reported, _ := usageServer(t, map[string]any{"prompt_tokens": 1000, "completion_tokens": 500})
	silent, _ := usageServer(t, nil)
	m := NewMeter(DefaultPrices())
	a, err := openai.NewChat(openai.ChatConfig{BaseURL: reported.URL, Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := openai.NewChat(openai.ChatConfig{BaseURL: silent.URL, Model: "local"})
	if err != nil {
		t.Fatal(err)
	}
	ma, mb := m.Wrap(a), m.Wrap(b)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); _, _ = ma.Answer(ctx, "sys", "question") }()
		go func() { defer wg.Done(); _, _ = mb.Answer(ctx, "abcd", "abcdefgh") }()
	}
	wg.Wait()
	m.CacheHit()
	s := m.Summary()
	estPrompt := EstimateMessages([]openai.Message{{Role: "system", Content: "abcd"}, {Role: "user", Content: "abcdefgh"}})
	if s.Calls != 8 || s.EstimatedCalls != 4 || s.CacheHits != 1 ||
		s.PromptTokens != 4*1000+4*estPrompt || s.CompletionTokens != 4*500+4*EstimateTokens("okay") {
		t.Fatalf("Summary = %+v", s)
	}
	wantUSD := 4 * (1000*0.15 + 500*0.60) / 1e6
	if math.Abs(s.USD-wantUSD) > 1e-12 || len(s.Unpriced) != 1 || s.Unpriced[0] != "local" {
		t.Fatalf("USD = %v (want %v), unpriced %v", s.USD, wantUSD, s.Unpriced)
	}
	if !s.Models["gpt-4o-mini"].Priced || s.Models["local"].EstimatedCalls != 4 {
		t.Fatalf("per-model = %+v", s.Models)
	}
	var buf bytes.Buffer
	m.Report(&buf)
	line := buf.String()
	for _, want := range []string{"8 call(s)", "4 call(s) estimated", "1 cache hit(s)", "$0.0018", "no price for local"} {
		if !strings.Contains(line, want) {
			t.Errorf("Report %q lacks %q", line, want)
		}
	}
	if strings.Count(line, "\n") != 1 {
		t.Errorf("Report is not one line: %q", line)
	}
	js, err := json.Marshal(s)
	if err != nil || !bytes.Contains(js, []byte(`"estimated_calls":4`)) || !bytes.Contains(js, []byte(`"usd":`)) {
		t.Fatalf("Summary JSON = %s, %v", js, err)
	}
}

func TestMeterSkipsFailedCalls(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"no such model"}}`, http.StatusNotFound)
	}))
	defer s.Close()
	c, err := openai.NewChat(openai.ChatConfig{BaseURL: s.URL, Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMeter(nil)
	if _, err := m.Wrap(c).Answer(context.Background(), "s", "u"); err == nil {
		t.Fatal("a 404 answered")
	}
	if got := m.Summary(); got.Calls != 0 || got.USD != 0 {
		t.Fatalf("failed call was metered: %+v", got)
	}
}
