package crossmodal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/openai/openaitest"
)

// scripted answers every item with the verdict its script names for the
// item's task; "429" and "garbage" are a rate limit and an unreadable reply.
func scripted(t *testing.T, byTask map[string]string) *openaitest.Server {
	return openaitest.New(t, func(r openaitest.Request) openaitest.Reply {
		for task, v := range byTask {
			if strings.Contains(r.User(), fmt.Sprintf("%q", task)) {
				switch v {
				case "429":
					return openaitest.Reply{Status: http.StatusTooManyRequests, Content: "rate limited"}
				case "garbage":
					return openaitest.Reply{Content: "I think it is fine, probably."}
				}
				return openaitest.Reply{Content: fmt.Sprintf(`{"verdict": %q, "reason": "scripted"}`, v), PromptTokens: 100, CompletionTokens: 10}
			}
		}
		return openaitest.Reply{Content: `{"verdict": "PASS"}`}
	})
}

func slot(t *testing.T, name, url string) Slot {
	c, err := openai.NewChat(openai.ChatConfig{BaseURL: url, Model: "judge-" + name, Patience: openai.Patience{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return Slot{Name: name, Model: c}
}

func TestBatchVerdictFollowsPrecedence(t *testing.T) {
	cases := []struct {
		name  string
		slots [][]string // per slot, the verdict for items q1, q2
		want  Verdict
		exit  int
		rate  bool
	}{
		{"all pass", [][]string{{"PASS", "PASS"}, {"pass", "PASS"}, {"PASS", "Pass"}}, Pass, 0, false},
		{"majority fail", [][]string{{"PASS", "FAIL"}, {"PASS", "FAIL"}, {"PASS", "PASS"}}, Fail, 1, false},
		{"split is inconclusive", [][]string{{"PASS", "FAIL"}, {"PASS", "PASS"}}, Inconclusive, 2, false},
		{"inconclusive judge", [][]string{{"PASS", "INCONCLUSIVE"}}, Inconclusive, 2, false},
		{"unreadable reply", [][]string{{"PASS", "garbage"}}, Inconclusive, 2, false},
		{"fail beats inconclusive", [][]string{{"FAIL", "INCONCLUSIVE"}}, Fail, 1, false},
		{"error beats fail", [][]string{{"FAIL", "429"}, {"FAIL", "PASS"}}, Error, 2, true},
		{"single slot fail", [][]string{{"FAIL", "FAIL"}}, Fail, 1, false},
	}
	items := []Item{{ID: "q1", Task: "task one 東京", Output: "answer one"}, {ID: "q2", Task: "task two 🐕", Output: "answer two"}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var slots []Slot
			for i, vs := range tc.slots {
				s := scripted(t, map[string]string{items[0].Task: vs[0], items[1].Task: vs[1]})
				slots = append(slots, slot(t, fmt.Sprint(i+1), s.URL))
			}
			dir := t.TempDir()
			rep, err := Run(context.Background(), items, slots, Options{Cycles: 2, Concurrent: 2, ReceiptDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != tc.want || ExitCode(rep.Verdict) != tc.exit || rep.RateLimited != tc.rate {
				t.Fatalf("verdict %s (exit %d, rate limited %v), want %s (exit %d, %v): %+v", rep.Verdict, ExitCode(rep.Verdict), rep.RateLimited, tc.want, tc.exit, tc.rate, rep.Results)
			}
			if got := len(rep.Results[0].Judgements); got != 2*len(slots) {
				t.Fatalf("%d judgements per item, want cycles × slots = %d", got, 2*len(slots))
			}
			n := rep.Counts.Pass + rep.Counts.Fail + rep.Counts.Inconclusive + rep.Counts.Error
			if n != len(items) || rep.Results[0].ID != "q1" || rep.Results[1].ID != "q2" {
				t.Fatalf("counts %+v, results %+v", rep.Counts, rep.Results)
			}
			receipts, _ := filepath.Glob(filepath.Join(dir, "item-*.json"))
			if len(receipts) != len(items) {
				t.Fatalf("%d receipts, want %d", len(receipts), len(items))
			}
		})
	}
}

func TestClosedPortIsAnError(t *testing.T) {
	items := []Item{{ID: "q1", Task: "t", Output: "o"}}
	rep, err := Run(context.Background(), items, []Slot{slot(t, "1", openaitest.ClosedURL(t))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Error || rep.RateLimited || !strings.Contains(rep.Results[0].Judgements[0].Reason, "server is running") {
		t.Fatalf("closed port: %+v", rep)
	}
	if rep, _ := Run(context.Background(), nil, []Slot{slot(t, "1", openaitest.ClosedURL(t))}, Options{}); rep.Verdict != Error {
		t.Fatalf("an empty batch must not pass: %+v", rep)
	}
}

func TestPreflight(t *testing.T) {
	items := []Item{{ID: "q1", Task: strings.Repeat("word ", 2000), Output: "o"}}
	p := budget.DefaultPrices()
	mk := func(model string) Slot {
		c, _ := openai.NewChat(openai.ChatConfig{BaseURL: "http://127.0.0.1:1", Model: model})
		return Slot{Name: "1", Model: c}
	}
	est := Estimate(items, []Slot{mk("gpt-4o"), mk("gpt-4o-mini")}, 3)
	if est[0].Calls != 3 || est[0].PromptTokens < 3*2500 || est[0].CompletionTokens != 3*completionEstimate {
		t.Fatalf("estimate = %+v", est[0])
	}
	want := 0.0
	for _, e := range est {
		pr, _ := p.Lookup(e.Model)
		want += pr.Cost(e.PromptTokens, e.CompletionTokens)
	}
	usd, err := Preflight(p, est, 0)
	if err != nil || math.Abs(usd-want) > 1e-12 {
		t.Fatalf("no cap: $%v, %v; want $%v", usd, err, want)
	}
	if _, err := Preflight(p, est, want*0.99); !errors.Is(err, budget.ErrOverBudget) {
		t.Fatalf("cap just under the estimate: %v", err)
	}
	if _, err := Preflight(p, est, want*1.01); err != nil {
		t.Fatalf("cap just over the estimate: %v", err)
	}
	if _, err := Preflight(p, Estimate(items, []Slot{mk("local")}, 1), 5); !errors.Is(err, budget.ErrUnpriced) {
		t.Fatalf("unpriced model under a cap: %v", err)
	}
}

func TestSlots(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := Slots([]string{"gpt-4o-mini@https://api.openai.com", "llama3.1@http://localhost:11434/v1"}, env(map[string]string{"PGBRAIN_CROSSMODAL_2_API_KEY": "k2", "OPENAI_API_KEY": "k"}))
	if err != nil || len(s) != 2 || s[1].Model != "llama3.1" || s[1].APIKey != "k2" || s[0].APIKey != "k" {
		t.Fatalf("flags: %+v, %v", s, err)
	}
	s, err = Slots(nil, env(map[string]string{"PGBRAIN_CROSSMODAL_1_BASE_URL": "http://a", "PGBRAIN_CROSSMODAL_1_MODEL": "m1",
		"PGBRAIN_CROSSMODAL_3_BASE_URL": "http://c", "PGBRAIN_CROSSMODAL_3_MODEL": "m3"}))
	if err != nil || len(s) != 2 || s[1].Name != "3" || s[1].Model != "m3" {
		t.Fatalf("env: %+v, %v", s, err)
	}
	s, err = Slots(nil, env(map[string]string{"PGBRAIN_CHAT_BASE_URL": "http://chat", "PGBRAIN_CHAT_MODEL": "c"}))
	if err != nil || len(s) != 1 || s[0].Model != "c" {
		t.Fatalf("chat fallback: %+v, %v", s, err)
	}
	bad := []struct {
		flags []string
		env   map[string]string
		want  string
	}{
		{nil, nil, "no scoring model"},
		{[]string{"nomodel"}, nil, "MODEL@BASE_URL"},
		{[]string{"m@ftp://x"}, nil, "http://"},
		{[]string{"a@http://x", "b@http://x", "c@http://x", "d@http://x"}, nil, "at most 3"},
		{nil, map[string]string{"PGBRAIN_CROSSMODAL_2_MODEL": "m"}, "set both"},
	}
	for _, tc := range bad {
		if _, err := Slots(tc.flags, env(tc.env)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Slots(%q, %v) error = %v, want %q", tc.flags, tc.env, err, tc.want)
		}
	}
}

func TestParseBatchSkipsSummary(t *testing.T) {
	in := `{"schema_version":1,"question_id":"q1","question_type":"multi-session","question":"how many?","hypothesis":"three","retrieved_session_ids":[],"recall_any":true,"recall_all":true}
{"schema_version":1,"kind":"by_type_summary","recall_by_type":{},"aggregate":{"hit":1,"total":1,"rate":1}}
`
	items, err := ParseBatch("run.jsonl", strings.NewReader(in))
	if err != nil || len(items) != 1 || items[0].Task != "how many?" || items[0].Output != "three" {
		t.Fatalf("ParseBatch = %+v, %v", items, err)
	}
	if _, err := ParseBatch("run.jsonl", strings.NewReader(`{"schema_version":1,"question_id":"q1","hypothesis":"x"}`)); err == nil || !strings.Contains(err.Error(), `no "question"`) {
		t.Fatalf("row without question: %v", err)
	}
	if _, err := ParseBatch("run.jsonl", strings.NewReader("{\"schema_version\":2,\"question_id\":\"q\"}")); err == nil || !strings.Contains(err.Error(), "run.jsonl:1") {
		t.Fatalf("wrong version: %v", err)
	}
}

func TestParseVerdict(t *testing.T) {
	cases := []struct {
		in   string
		want Verdict
	}{
		{`{"verdict":"PASS","reason":"ok"}`, Pass},
		{"```json\n{\"verdict\": \"fail\", \"reason\": \"wrong {date}\"}\n```", Fail},
		{"INCONCLUSIVE.", Inconclusive},
		{"**PASS**", Pass},
		{`{"verdict":"maybe"}`, Inconclusive},
		{"", Inconclusive},
	}
	for _, tc := range cases {
		if got, _ := ParseVerdict(tc.in); got != tc.want {
			t.Errorf("ParseVerdict(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
