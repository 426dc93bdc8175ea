package contradictions

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/openai/openaitest"
	"github.com/pgbrain/pgbrain/internal/replay"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// seeded are the contradictions planted in testdata/brain: two phrases, one
// in each passage, and the severity the scripted judge gives them.
var seeded = []struct{ a, b, severity string }{
	{"founded Widget Co in 2019", "founded in 2017", High},
	{"still runs the company", "stepped down", High},
	{"$2M", "$5M", Medium},
}

// judge is a scripted model that flags exactly the seeded contradictions.
func judge(r openaitest.Request) openaitest.Reply {
	u := r.User()
	for _, s := range seeded {
		if strings.Contains(u, s.a) && strings.Contains(u, s.b) {
			return openaitest.Reply{Content: fmt.Sprintf("Here is my verdict:\n```json\n{\"contradiction\": true, \"severity\": %q, \"explanation\": \"the passages disagree\", \"evidence_a\": %q, \"evidence_b\": %q}\n```", s.severity, s.a, s.b),
				PromptTokens: 500, CompletionTokens: 60}
		}
	}
	return openaitest.Reply{Content: `{"contradiction": false, "severity": null, "explanation": "no conflict", "evidence_a": "", "evidence_b": ""}`}
}

var queries = []string{"who founded Widget Co", "Alice Example chief executive", "Acme seed round", "Gizmo project prototype"}

func fixture(t *testing.T) *brain.Brain {
	t.Helper()
	b := dbtest.Open(t)
	if _, err := ingest.ImportDir(context.Background(), b, "testdata/brain", ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return b
}

func model(t *testing.T, url, name string, m *budget.Meter) budget.Sender {
	t.Helper()
	c, err := openai.NewChat(openai.ChatConfig{BaseURL: url, Model: name, Patience: openai.Patience{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return m.Wrap(c)
}

func TestProbeFlagsSeededContradictionsAndCachesVerdicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := fixture(t)
	srv := openaitest.New(t, judge)
	meter := budget.NewMeter(nil)
	ret := FromSearch(replay.DB{Q: b.Pool})
	now := time.Now().UTC()
	first, err := Run(ctx, b.Pool, ret, queries, Options{Model: model(t, srv.URL, "gpt-4o-mini", meter), Now: func() time.Time { return now.Add(-48 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if calls == 0 || first.ModelCalls != calls {
		t.Fatalf("first run: %d model calls reported, %d served", first.ModelCalls, calls)
	}
	found := map[string]string{}
	for _, f := range first.Findings {
		found[f.EvidenceA+"|"+f.EvidenceB] = f.Severity
		if f.HashA > f.HashB {
			t.Errorf("finding %s vs %s is not ordered by hash", f.SlugA, f.SlugB)
		}
	}
	for _, s := range seeded {
		if sev, ok := found[s.a+"|"+s.b]; !ok || sev != s.severity {
			t.Errorf("seeded contradiction %q vs %q: flagged %v with severity %q; findings %+v", s.a, s.b, ok, sev, first.Findings)
		}
	}
	kinds := map[string]bool{}
	for _, f := range first.Findings {
		kinds[f.Kind] = true
	}
	if !kinds[TruthVsTimeline] || !kinds[CrossPage] {
		t.Errorf("finding kinds = %v, want both %s and %s", kinds, TruthVsTimeline, CrossPage)
	}
	// Every query aimed at a seeded contradiction flags; the headline is
	// the share of queries with a finding.
	flaggedQ, pairs := map[string]bool{}, map[string]bool{}
	for _, f := range first.Findings {
		flaggedQ[f.Query] = true
		pairs[f.HashA+f.HashB] = true
	}
	for _, q := range queries[:3] {
		if !flaggedQ[q] {
			t.Errorf("query %q flagged nothing", q)
		}
	}
	if first.QueriesFlagged != len(flaggedQ) || first.Queries != 4 || first.PairsFlagged != len(first.Findings) {
		t.Errorf("queries flagged = %d of %d, pairs flagged %d; findings name %d queries", first.QueriesFlagged, first.Queries, first.PairsFlagged, len(flaggedQ))
	}
	if w := Wilson(len(flaggedQ), 4); first.Headline != w {
		t.Errorf("headline = %+v, want %+v", first.Headline, w)
	}
	if s := meter.Summary(); s.Calls != calls || s.PromptTokens == 0 {
		t.Errorf("meter = %+v after %d calls", s, calls)
	}

	// A second run asks the model nothing: every pair is cached.
	second, err := Run(ctx, b.Pool, ret, queries, Options{Model: model(t, srv.URL, "gpt-4o-mini", meter), BudgetUSD: 0.0000001})
	if err != nil {
		t.Fatalf("a fully cached run must pass any budget: %v", err)
	}
	if srv.Calls() != calls || second.ModelCalls != 0 || second.CacheHits != second.Pairs || second.PairsFlagged != first.PairsFlagged {
		t.Fatalf("second run: %d new calls, report %+v", srv.Calls()-calls, second)
	}

	// The trend has the two days with runs and the day between without.
	days, err := Trend(ctx, b.Pool, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 3 || !days[0].Ran || days[1].Ran || !days[2].Ran ||
		days[0].Flagged != int64(len(pairs)) || days[2].Flagged != int64(len(pairs)) || days[1].Flagged != 0 ||
		days[0].High != 2 || days[0].Medium != 1 {
		t.Fatalf("trend = %+v", days)
	}
	var chart strings.Builder
	if err := DrawTrend(&chart, days, 20); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(chart.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], strings.Repeat("#", 20)) || !strings.Contains(lines[1], "no run") {
		t.Fatalf("chart:\n%s", chart.String())
	}

	// Doctor's view: the latest run, its high findings and how to resolve them.
	l, err := LatestRun(ctx, b.Pool)
	if err != nil {
		t.Fatal(err)
	}
	if l.RunID != second.RunID || len(l.High) != 2 {
		t.Fatalf("latest = %+v", l)
	}
	h := l.High[0]
	if !strings.Contains(h.Open, "pgbrain get "+h.SlugA) || !strings.Contains(h.Dismiss, h.HashA+" "+h.HashB) {
		t.Fatalf("resolve commands = %q / %q", h.Open, h.Dismiss)
	}
	if added, err := Dismiss(ctx, b.Pool, h.HashB, h.HashA, "checked by hand"); err != nil || !added {
		t.Fatalf("dismiss (reversed order) = %v, %v", added, err)
	}
	if added, err := Dismiss(ctx, b.Pool, h.HashA, h.HashB, ""); err != nil || added {
		t.Fatalf("dismissing twice = %v, %v", added, err)
	}
	if _, err := Dismiss(ctx, b.Pool, "nothex", h.HashB, ""); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("bad hash: %v", err)
	}
	third, err := Run(ctx, b.Pool, ret, queries, Options{Model: model(t, srv.URL, "gpt-4o-mini", meter)})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != calls || third.Dismissed == 0 || third.PairsFlagged != second.PairsFlagged-third.Dismissed {
		t.Fatalf("after dismissing: %d new calls, report %+v", srv.Calls()-calls, third)
	}
	for _, f := range third.Findings {
		if f.HashA == h.HashA && f.HashB == h.HashB {
			t.Fatalf("dismissed pair flagged again: %+v", f)
		}
	}
	if l, _ = LatestRun(ctx, b.Pool); len(l.High) != 1 {
		t.Fatalf("latest after dismissing = %+v", l.High)
	}
}

func TestProbeRefusesOverBudgetBeforeAnyCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := fixture(t)
	srv := openaitest.New(t, judge)
	ret := FromSearch(replay.DB{Q: b.Pool})
	cases := []struct {
		model string
		cap   float64
		want  error
	}{
		{"gpt-4o", 0.01, budget.ErrOverBudget},
		{"my-local-model", 0.01, budget.ErrUnpriced},
	}
	for _, tc := range cases {
		_, err := Run(ctx, b.Pool, ret, queries, Options{Model: model(t, srv.URL, tc.model, budget.NewMeter(nil)), BudgetUSD: tc.cap})
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "refusing to start") {
			t.Errorf("%s under $%v: error %v, want %v", tc.model, tc.cap, err, tc.want)
		}
	}
	if srv.Calls() != 0 {
		t.Fatalf("a refused run called the model %d times", srv.Calls())
	}
	var runs int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.eval_contradiction_runs`).Scan(&runs); err != nil || runs != 0 {
		t.Fatalf("refused runs recorded: %d, %v", runs, err)
	}
}

func TestProbeKeepsPaidVerdictsWhenTheModelFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := fixture(t)
	n := 0
	srv := openaitest.New(t, func(r openaitest.Request) openaitest.Reply {
		n++
		if n > 2 {
			return openaitest.Reply{Status: http.StatusTooManyRequests, Content: "slow down"}
		}
		return judge(r)
	})
	ret := FromSearch(replay.DB{Q: b.Pool})
	_, err := Run(ctx, b.Pool, ret, queries, Options{Model: model(t, srv.URL, "gpt-4o-mini", budget.NewMeter(nil))})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || !strings.Contains(err.Error(), "resumes") {
		t.Fatalf("rate limited run: %v", err)
	}
	var cached int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.eval_contradictions_cache`).Scan(&cached); err != nil || cached != 2 {
		t.Fatalf("cached verdicts = %d, %v; want the 2 answered", cached, err)
	}
	closed := openaitest.ClosedURL(t)
	if _, err := Run(ctx, b.Pool, ret, queries, Options{Model: model(t, closed, "gpt-4o-mini", budget.NewMeter(nil))}); err == nil || !strings.Contains(err.Error(), "server is running") {
		t.Fatalf("closed port: %v", err)
	}
}

func TestParseJudgement(t *testing.T) {
	cases := []struct {
		reply   string
		want    Judgement
		wantErr string
	}{
		{`{"contradiction": false, "severity": null}`, Judgement{}, ""},
		{"```json\n{\"contradiction\": true, \"severity\": \"HIGH\", \"explanation\": \"x {y}\", \"evidence_a\": \"a\", \"evidence_b\": \"b\"}\n```",
			Judgement{Contradiction: true, Severity: High, Explanation: "x {y}", EvidenceA: "a", EvidenceB: "b"}, ""},
		{`Sure! {not json} then {"contradiction": true, "severity": "low"}`, Judgement{Contradiction: true, Severity: Low}, ""},
		{`{"contradiction": true, "severity": "critical"}`, Judgement{}, "severity"},
		{`{"contradiction": true}`, Judgement{}, "severity"},
		{`{"severity": "low"}`, Judgement{}, `"contradiction"`},
		{`no verdict at all`, Judgement{}, "no JSON object"},
		{`{"contradiction": true, "severity": "low", "evidence_a": "a\u0000b"}`, Judgement{Contradiction: true, Severity: Low, EvidenceA: "ab"}, ""},
		{`{"contradiction": "yes"}`, Judgement{}, "verdict format"},
		{`{"contradiction": false, "explanation": "東京 café 🐕 \"quoted\""}`, Judgement{Explanation: "東京 café 🐕 \"quoted\""}, ""},
	}
	for _, tc := range cases {
		got, err := ParseJudgement(tc.reply)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseJudgement(%q) error = %v, want %q", tc.reply, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseJudgement(%q) = %+v, %v; want %+v", tc.reply, got, err, tc.want)
		}
	}
}

func TestWilson(t *testing.T) {
	cases := []struct {
		hits, n   int
		low, high float64
	}{
		{0, 0, 0, 1},
		{0, 10, 0, 0.2775},
		{5, 10, 0.2366, 0.7634},
		{10, 10, 0.7225, 1},
		{81, 263, 0.2553, 0.3662},
	}
	for _, tc := range cases {
		w := Wilson(tc.hits, tc.n)
		if math.Abs(w.Low-tc.low) > 1e-4 || math.Abs(w.High-tc.high) > 1e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tc.hits, tc.n, w.Low, w.High, tc.low, tc.high)
		}
	}
}

func TestParseQueries(t *testing.T) {
	good := "{\"query\": \"who is alice\"}\n\n{\"schema_version\":1,\"query\":\"  東京 café 🐕 \",\"tool_name\":\"query\"}\n{\"query\":\"who is alice\"}\n"
	qs, err := ParseQueries("q.jsonl", strings.NewReader(good))
	if err != nil || len(qs) != 2 || qs[1] != "東京 café 🐕" {
		t.Fatalf("ParseQueries = %q, %v", qs, err)
	}
	bad := []struct{ in, want string }{
		{"{\"query\":\"a\"}\nnot json\n", "q.jsonl:2: not a JSON object"},
		{"{\"q\":\"a\"}\n", `q.jsonl:1: no "query"`},
		{"{\"query\":\"   \"}\n", `q.jsonl:1: no "query"`},
		{"\n\n", "q.jsonl: no queries"},
		{"{\"query\":\"\xff\"}\n", "q.jsonl:1: not UTF-8"},
		{"{\"query\":\"" + strings.Repeat("x", MaxQueryChars+1) + "\"}", "over the limit"},
	}
	for _, tc := range bad {
		if _, err := ParseQueries("q.jsonl", strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseQueries(%.40q) error = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestTopCaptured(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	for _, q := range []string{"acme seed", "who is alice", "acme seed", "who is alice", "acme seed", "  ", "gizmo"} {
		if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.eval_candidates (tool_name, query, vector_enabled, latency_ms) VALUES ('search', $1, false, 1)`, q); err != nil {
			t.Fatal(err)
		}
	}
	qs, err := TopCaptured(ctx, b.Pool, 2)
	if err != nil || len(qs) != 2 || qs[0] != "acme seed" || qs[1] != "who is alice" {
		t.Fatalf("TopCaptured(2) = %q, %v", qs, err)
	}
	if qs, _ = TopCaptured(ctx, b.Pool, 10); len(qs) != 3 {
		t.Fatalf("blank queries must be left out: %q", qs)
	}
}

// TestProbeScrubsPassagesSentToTheModel: the probe reads every page as the
// owner, so a credential or an email address in a page reaches the prompt
// only as [REDACTED]; the rest of the passage is the page's text.
func TestProbeScrubsPassagesSentToTheModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	const key, mail = "AKIAIOSFODNN7EXAMPLE", "dana.ops@example.org"
	pages := map[string]string{
		"ops/deploy.md":  "---\ntitle: Deploy keys\ntype: note\n---\nThe deploy bucket key is " + key + " and the on-call contact is " + mail + "; the bucket holds 40 TB.\n",
		"ops/storage.md": "---\ntitle: Storage plan\ntype: note\n---\nThe deploy bucket holds 12 TB according to the storage plan.\n",
	}
	for name, text := range pages {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := dbtest.Open(t)
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	srv := openaitest.New(t, func(r openaitest.Request) openaitest.Reply {
		mu.Lock()
		seen = append(seen, r.User())
		mu.Unlock()
		return openaitest.Reply{Content: `{"contradiction": false, "severity": null, "explanation": "", "evidence_a": "", "evidence_b": ""}`}
	})
	if _, err := Run(ctx, b.Pool, FromSearch(replay.DB{Q: b.Pool}), []string{"deploy bucket"},
		Options{Model: model(t, srv.URL, "gpt-4o-mini", budget.NewMeter(nil))}); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("the model was asked nothing; the two pages should make a pair")
	}
	for _, u := range seen {
		if strings.Contains(u, key) || strings.Contains(u, mail) {
			t.Errorf("prompt holds a secret:\n%s", u)
		}
		if !strings.Contains(u, "[REDACTED]") || !strings.Contains(u, "the bucket holds 40 TB") {
			t.Errorf("prompt lost the passage around the redaction:\n%s", u)
		}
	}
}
