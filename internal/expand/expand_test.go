package expand

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// scripted is a /v1/chat/completions server answering every request with
// answer(query), after delay; it counts requests.
type scripted struct {
	*httptest.Server
	calls atomic.Int64
}

func newScripted(t *testing.T, delay time.Duration, answer func(q string) string) *scripted {
	t.Helper()
	s := &scripted{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		var req struct {
			Messages []openai.Message `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer(req.Messages[1].Content)}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 120, "completion_tokens": 30},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

// chat is a model at url; each scripted server gets its own model name, so
// their cache entries stay apart.
func chat(t *testing.T, url string, model ...string) *openai.Chat {
	t.Helper()
	name := "gpt-4o-mini"
	if len(model) > 0 {
		name = model[0]
	}
	c, err := openai.NewChat(openai.ChatConfig{BaseURL: url, Model: name, Patience: openai.Patience{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// closedURL is an address where nothing listens.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func brainWith(t *testing.T) *brain.Brain {
	t.Helper()
	b := dbtest.Open(t)
	docs := []ingest.Doc{
		{Slug: "pets/rex", Data: []byte("# Rex\n\nRex is my beagle; the dog loves the park.\n")},
		{Slug: "pets/vet", Data: []byte("# Vet\n\nThe veterinarian is Dr. Ωμέγα, open on Mondays.\n")},
		{Slug: "food/ramen", Data: []byte("# Ramen\n\n拉面 with miso, a favourite dinner.\n")},
	}
	if _, err := ingest.ImportDocs(ctx(t), b, docs, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return b
}

func slugsOf(r *search.Response) []string {
	var s []string
	for _, x := range r.Results {
		s = append(s, x.Slug)
	}
	return s
}

func TestExpandSearchCachesAndDegrades(t *testing.T) {
	t.Parallel()
	b := brainWith(t)
	zero := 0.0
	kw := search.Tuning{VectorWeight: &zero}
	good := newScripted(t, 0, func(q string) string {
		return "```json\n[\"veterinarian\", \"" + q + "\", \"VETERINARIAN \", \"dog doctor\"]\n```"
	})
	m := budget.NewMeter(nil)
	e := &Expander{DB: b.Pool, Model: m.Wrap(chat(t, good.URL)), Hits: m}
	o := search.Options{Expand: true}

	plain, err := search.Hybrid(ctx(t), b.Pool, "who treats my dog", nil, o, kw)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Search(ctx(t), b.Pool, e, "who treats my dog", nil, nil, o, kw)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Meta.ExpansionApplied || r.Meta.Expansion == nil || r.Meta.Expansion.Cached ||
		!slices.Equal(r.Meta.Expansion.Variants, []string{"veterinarian", "dog doctor"}) {
		t.Fatalf("first expansion: applied %v, %+v", r.Meta.ExpansionApplied, r.Meta.Expansion)
	}
	if !slices.Contains(slugsOf(r), "pets/vet") || slices.Contains(slugsOf(plain), "pets/vet") {
		t.Fatalf("the variant did not add pets/vet: expanded %v, plain %v", slugsOf(r), slugsOf(plain))
	}
	if good.calls.Load() != 1 {
		t.Fatalf("%d model calls, want 1", good.calls.Load())
	}
	// The second time, and for a cache-only expander (a replay without a
	// model), the cache answers: no model call.
	for _, ex := range []*Expander{e, {DB: b.Pool, ModelName: "gpt-4o-mini", Hits: m}} {
		again, err := Search(ctx(t), b.Pool, ex, "who treats my dog", nil, nil, o, kw)
		if err != nil {
			t.Fatal(err)
		}
		if !again.Meta.ExpansionApplied || !again.Meta.Expansion.Cached || !slices.Equal(slugsOf(again), slugsOf(r)) {
			t.Fatalf("cached expansion: %+v, %v (first %v)", again.Meta.Expansion, slugsOf(again), slugsOf(r))
		}
	}
	if good.calls.Load() != 1 {
		t.Fatalf("cached expansions called the model: %d calls", good.calls.Load())
	}
	s := m.Summary()
	if s.Calls != 1 || s.CacheHits != 2 || s.PromptTokens != 120 || s.CompletionTokens != 30 || s.EstimatedCalls != 0 {
		t.Fatalf("meter = %+v", s)
	}
	// Another model's cache is its own.
	other := &Expander{DB: b.Pool, ModelName: "another-model"}
	if v, info := other.Expand(ctx(t), "who treats my dog"); v != nil || info.Cached || !strings.Contains(info.Note, "no chat model") {
		t.Fatalf("another model's expansion: %v, %+v", v, info)
	}

	// Every failure answers the plain query, with a note.
	garbage := newScripted(t, 0, func(string) string { return "Sure! Here are some ideas: vets, dogs." })
	slow := newScripted(t, 2*time.Second, func(string) string { return `["veterinarian"]` })
	empty := newScripted(t, 0, func(string) string { return `{"variants": []}` })
	cases := []struct {
		name string
		e    *Expander
		note string
	}{
		{"server down", &Expander{DB: b.Pool, Model: chat(t, closedURL(t), "down")}, "expansion failed"},
		{"garbage", &Expander{DB: b.Pool, Model: chat(t, garbage.URL, "garbage")}, "not a list of rephrasings"},
		{"timeout", &Expander{DB: b.Pool, Model: chat(t, slow.URL, "slow"), Timeout: 200 * time.Millisecond}, "expansion failed"},
		{"no rephrasing", &Expander{DB: b.Pool, Model: chat(t, empty.URL, "empty")}, "no usable rephrasing"},
		{"no model, not cached", &Expander{DB: b.Pool, ModelName: "never-asked"}, "no chat model"},
		{"no expander", nil, "not available"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r, err := Search(ctx(t), b.Pool, tc.e, "what does my dog eat", nil, nil, o, kw)
			if err != nil {
				t.Fatal(err)
			}
			p, err := search.Hybrid(ctx(t), b.Pool, "what does my dog eat", nil, o, kw)
			if err != nil {
				t.Fatal(err)
			}
			if r.Meta.ExpansionApplied || r.Meta.Expansion == nil || !strings.Contains(r.Meta.Expansion.Note, tc.note) ||
				len(r.Meta.Expansion.Variants) != 0 || !slices.Equal(slugsOf(r), slugsOf(p)) {
				t.Fatalf("got applied %v, %+v, %v; want the plain %v and a note with %q", r.Meta.ExpansionApplied, r.Meta.Expansion, slugsOf(r), slugsOf(p), tc.note)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("a failing expansion held the search for %v", time.Since(start))
			}
		})
	}
	// A garbage answer is not cached: the next try asks again.
	n := garbage.calls.Load()
	(&Expander{DB: b.Pool, Model: chat(t, garbage.URL, "garbage")}).Expand(ctx(t), "what does my dog eat")
	if garbage.calls.Load() != n+1 {
		t.Fatal("a garbage answer was cached")
	}
	// An empty answer is: asked once.
	n = empty.calls.Load()
	(&Expander{DB: b.Pool, Model: chat(t, empty.URL, "empty")}).Expand(ctx(t), "what does my dog eat")
	if empty.calls.Load() != n {
		t.Fatal("an empty answer was asked again")
	}
	// Without Expand, nothing is asked.
	n = good.calls.Load()
	r, err = Search(ctx(t), b.Pool, e, "a fresh question", nil, nil, search.Options{}, kw)
	if err != nil || r.Meta.Expansion != nil || r.Meta.ExpansionApplied || good.calls.Load() != n {
		t.Fatalf("expand off: %+v, %v, %d calls", r.Meta, err, good.calls.Load()-n)
	}
}

// A huge query (an agent's 50,000 characters) costs the model no more
// than MaxModelQuery bytes of prompt.
func TestModelSeesABoundedQuery(t *testing.T) {
	t.Parallel()
	b := brainWith(t)
	var seen atomic.Int64
	srv := newScripted(t, 0, func(q string) string {
		seen.Store(int64(len(q)))
		return `["dog doctor"]`
	})
	e := &Expander{DB: b.Pool, Model: chat(t, srv.URL)}
	q := strings.Repeat("vétérinaire pour mon chien ", 2000)
	if _, info := e.Expand(ctx(t), q); info.Note != "" {
		t.Fatalf("expansion note: %s", info.Note)
	}
	if n := seen.Load(); n == 0 || n > MaxModelQuery {
		t.Fatalf("the model was shown %d bytes of a %d-byte query, want 1..%d", n, len(q), MaxModelQuery)
	}
}

func TestVariantsCount(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	s := newScripted(t, 0, func(string) string { return `["a one","b two","c three","d four","e five","f six"]` })
	for _, tc := range []struct{ n, want int }{{0, DefaultVariants}, {1, 1}, {5, 5}, {9, AskVariants}} {
		e := &Expander{DB: b.Pool, Model: chat(t, s.URL), Variants: tc.n}
		v, _ := e.Expand(ctx(t), "query")
		if len(v) != tc.want {
			t.Errorf("Variants %d: got %d variants %v, want %d", tc.n, len(v), v, tc.want)
		}
	}
	// Cached once, with all AskVariants the model gave.
	if s.calls.Load() != 1 {
		t.Errorf("%d model calls for one query", s.calls.Load())
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		ok   bool
	}{
		{`["a", "b"]`, []string{"a", "b"}, true},
		{"```json\n[\"a\"]\n```", []string{"a"}, true},
		{"```\n[\"a\"]```", []string{"a"}, true},
		{`{"variants": ["x", "y"]}`, []string{"x", "y"}, true},
		{`{"variants": ["x"], "other": ["y"]}`, nil, false},
		{`{"note": "none"}`, nil, false},
		{`[]`, []string{}, true},
		{`[1, 2]`, nil, false},
		{`- a\n- b`, nil, false},
		{``, nil, false},
		{`Here you go: ["a"]`, nil, false},
	}
	for _, tc := range cases {
		got, err := Parse(tc.in)
		if (err == nil) != tc.ok || (tc.ok && !slices.Equal(got, tc.want)) {
			t.Errorf("Parse(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	// The error quotes the start of the answer, which may echo the query:
	// scrubbed before it is cut and quoted, so neither the cut nor the
	// quoting leaves part of a secret.
	for _, reply := range []string{
		`Sure! {"token": "tOk3nValue998877"}`,
		"Sure! ghp_​R7kQ2mZx9LwP4vB8nT3yH6jD1sF5aG0cE2uK",
		"Sure! " + strings.Repeat("x", 50) + " carol.cut55@example.org and more",
	} {
		_, err := Parse(reply)
		if err == nil || strings.Contains(err.Error(), "tOk3nValue") || strings.Contains(err.Error(), "R7kQ2mZx") || strings.Contains(err.Error(), "carol.cut") {
			t.Errorf("Parse(%q): error %v quotes the secret", reply, err)
		}
	}
}

func TestClean(t *testing.T) {
	long := strings.Repeat("é", MaxVariantChars+1)
	got := Clean("Dog food", []string{"  dog   FOOD ", "what\ndogs eat", "", "what dogs eat", "a\x00b", "bad \xff", long, "犬の餌", "🐕 kibble", "v6", "v7", "v8"})
	want := []string{"what dogs eat", "犬の餌", "🐕 kibble", "v6", "v7"}
	if !slices.Equal(got, want) {
		t.Fatalf("Clean = %q, want %q", got, want)
	}
	// A model echoes the query, secrets and all: they never reach the
	// cache, the meta or a search.
	got = Clean("rotate AKIAZ3Q7XK2LMN5KKH7Y", []string{"how to rotate aws key AKIAZ3Q7XK2LMN5KKH7Y now", "mail carol@example.org about PGPASSWORD=hunter3", "AKIAZ3Q7XK2LMN5KKH7Y"})
	want = []string{"how to rotate aws key now", "mail about PGPASSWORD="}
	if !slices.Equal(got, want) {
		t.Fatalf("Clean of echoed secrets = %q, want %q", got, want)
	}
}
