package main

// Query expansion end to end: query --expand against a scripted chat
// server, capture, export, replay from the cache with the server gone, and
// the server-down degradation.

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/testdb"
)

// expansionServer answers every chat request with the same rephrasings and
// a usage object; it counts the requests.
func expansionServer(t *testing.T, answer string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "unexpected path", http.StatusNotFound)
			return
		}
		n.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 1000, "completion_tokens": 200},
		})
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func setChat(t *testing.T, base, model string) {
	t.Setenv("PGBRAIN_CHAT_BASE_URL", base)
	t.Setenv("PGBRAIN_CHAT_MODEL", model)
	t.Setenv("PGBRAIN_CHAT_API_KEY", "")
	t.Setenv("PGBRAIN_CHAT_TEMPERATURE", "")
}

type expandedQuery struct {
	Results []struct{ Slug string }
	Meta    struct {
		ExpandEnabled    *bool `json:"expand_enabled"`
		ExpansionApplied bool  `json:"expansion_applied"`
		Expansion        *struct {
			Variants []string
			Cached   bool
			Note     string
		}
	}
	Usage *struct {
		Calls            int     `json:"calls"`
		CacheHits        int     `json:"cache_hits"`
		PromptTokens     int     `json:"prompt_tokens"`
		CompletionTokens int     `json:"completion_tokens"`
		USD              float64 `json:"usd"`
	}
}

func decodeQuery(t *testing.T, out string) expandedQuery {
	t.Helper()
	var q expandedQuery
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatalf("query --json output %q: %v", out, err)
	}
	return q
}

func slugsIn(q expandedQuery) []string {
	var s []string
	for _, r := range q.Results {
		s = append(s, r.Slug)
	}
	return s
}

func TestQueryExpandCapturedExportedAndReplayedFromTheCache(t *testing.T) {
	b := newCLIBrain(t, testdb.New(t))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "people/alice.md"), "---\ntitle: Alice\n---\nAlice founded Widget Co.\n")
	writeFile(t, filepath.Join(dir, "notes/vet.md"), "---\ntitle: Vet\n---\nThe veterinarian sees the beagle on Mondays.\n")
	b.must("import", dir)
	t.Setenv("PGBRAIN_CONTRIBUTOR_MODE", "1")
	srv, calls := expansionServer(t, `["veterinarian appointment", "beagle checkup"]`)
	setChat(t, srv.URL, "gpt-4o-mini")

	out, errOut, code := b.run("query", "--expand", "--json", "--limit", "5", "who treats my dog")
	if code != 0 {
		t.Fatalf("query --expand: exit %d: %s", code, errOut)
	}
	q := decodeQuery(t, out)
	if !q.Meta.ExpansionApplied || q.Meta.Expansion == nil || len(q.Meta.Expansion.Variants) != 2 || q.Meta.Expansion.Cached ||
		q.Meta.ExpandEnabled == nil || !*q.Meta.ExpandEnabled {
		t.Fatalf("meta = %+v", q.Meta)
	}
	if got := slugsIn(q); len(got) == 0 || got[0] != "notes/vet" {
		t.Fatalf("expanded results %v, want notes/vet found by the variants", got)
	}
	// gpt-4o-mini: 1000 prompt and 200 completion tokens at $0.15 and $0.60 per million.
	if q.Usage == nil || q.Usage.Calls != 1 || q.Usage.PromptTokens != 1000 || q.Usage.CompletionTokens != 200 ||
		q.Usage.USD < 0.00026999 || q.Usage.USD > 0.00027001 {
		t.Fatalf("usage = %+v", q.Usage)
	}
	if !strings.Contains(errOut, "model usage: 1 call(s), 1000 prompt + 200 completion tokens") || !strings.Contains(errOut, "$0.0003") {
		t.Fatalf("stderr lacks the usage line: %s", errOut)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d model calls", calls.Load())
	}

	export := filepath.Join(t.TempDir(), "export.ndjson")
	exported := b.must("eval", "export")
	// An export window ends before any transaction of the brain still
	// running (brain.eval_window_end), so on a busy machine the capture can
	// fall in the next window: the next export, which starts where this
	// one ended, holds it.
	for try := 0; try < 20 && len(lines(exported)) == 0; try++ {
		time.Sleep(250 * time.Millisecond)
		exported = b.must("eval", "export")
	}
	writeFile(t, export, exported)
	rows := lines(exported)
	if len(rows) != 1 || !strings.Contains(rows[0], `"expand_enabled":true`) || !strings.Contains(rows[0], `"expansion_applied":true`) {
		t.Fatalf("export = %s", rows)
	}

	// The server is gone: replay expands from the cache, no model call.
	t.Setenv("PGBRAIN_CONTRIBUTOR_MODE", "")
	srv.Close()
	setChat(t, closedPort(t), "gpt-4o-mini")
	out, errOut, code = b.run("eval", "replay", "--against", export, "--json", "--verbose")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	var rep struct {
		Summary struct {
			RowsReplayed int     `json:"rows_replayed"`
			MeanJaccard  float64 `json:"mean_jaccard"`
		}
		Results []struct {
			ExpansionApplied         bool   `json:"expansion_applied"`
			CapturedExpansionApplied bool   `json:"captured_expansion_applied"`
			ExpansionNote            string `json:"expansion_note"`
		}
		Usage struct {
			Calls     int `json:"calls"`
			CacheHits int `json:"cache_hits"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("replay JSON %s: %v", out, err)
	}
	if rep.Summary.RowsReplayed != 1 || rep.Summary.MeanJaccard != 1 || len(rep.Results) != 1 ||
		!rep.Results[0].ExpansionApplied || !rep.Results[0].CapturedExpansionApplied || rep.Results[0].ExpansionNote != "" ||
		rep.Usage.Calls != 0 || rep.Usage.CacheHits != 1 {
		t.Fatalf("replay = %s", out)
	}
	if calls.Load() != 1 {
		t.Fatalf("replay called the model: %d calls", calls.Load())
	}
	if !strings.Contains(errOut, "model usage: 0 call(s)") || !strings.Contains(errOut, "1 cache hit(s)") {
		t.Fatalf("replay stderr lacks the usage line: %s", errOut)
	}
}

func TestQueryExpandDegradesWhenTheModelFails(t *testing.T) {
	b := tinyBrain(t)
	plain := b.must("query", "--json", "widget gizmo")
	garbage, _ := expansionServer(t, "I cannot help with that.")
	cases := []struct {
		name, base, note string
	}{
		{"server down", closedPort(t), "expansion failed, searched the plain query"},
		{"garbage", garbage.URL, "not a list of rephrasings"},
		{"no model", "", "no chat model is configured"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setChat(t, tc.base, "m-"+strings.ReplaceAll(tc.name, " ", "-"))
			if tc.base == "" {
				for _, k := range []string{"PGBRAIN_OPENAI_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"} {
					t.Setenv(k, "")
				}
			}
			out, errOut, code := b.run("query", "--expand", "--json", "widget gizmo")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			q := decodeQuery(t, out)
			if q.Meta.ExpansionApplied || q.Meta.Expansion == nil || !strings.Contains(q.Meta.Expansion.Note, tc.note) {
				t.Fatalf("meta = %+v", q.Meta)
			}
			if got, want := slugsIn(q), slugsIn(decodeQuery(t, plain)); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("results %v, the plain query's %v", got, want)
			}
			if !strings.Contains(errOut, "pgbrain: note: ") || !strings.Contains(errOut, tc.note) {
				t.Fatalf("stderr lacks the note: %s", errOut)
			}
		})
	}
	// A model that echoes a secret of the query in a non-list answer: the
	// note on stderr quotes it scrubbed.
	const secret = "ghp_0123456789abcdefABCDEF0123456789abcd"
	echo, _ := expansionServer(t, "Sorry, I will not rephrase widget token "+secret)
	setChat(t, echo.URL, "m-echo")
	if _, errOut, code := b.run("query", "--expand", "widget gizmo"); code != 0 || !strings.Contains(errOut, "not a list of rephrasings") ||
		strings.Contains(errOut, secret) || !strings.Contains(errOut, "[REDACTED]") {
		t.Fatalf("echoed secret: exit %d, stderr %s", code, errOut)
	}
	if _, errOut, code := b.run("query", "--expand", "--variants", "9", "widget"); code != 2 || !strings.Contains(errOut, "--variants 9 is out of range") {
		t.Fatalf("--variants 9: exit %d: %s", code, errOut)
	}
}

func TestEvalLongMemEvalExpansionIsCached(t *testing.T) {
	b := newCLIBrain(t, testdb.New(t))
	srv, calls := expansionServer(t, `["pet dog breed", "puppy breed"]`)
	setChat(t, srv.URL, "expander")
	run := func() lmeLine {
		out := filepath.Join(t.TempDir(), "run.jsonl")
		_, errOut, code := b.run("eval", "longmemeval", sampleLongMemEval, "--retrieval-only", "--expansion", "--by-type", "--output", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		rows := lmeRead(t, out)
		if len(rows) != 15 || rows[14].Kind != "by_type_summary" {
			t.Fatalf("%d lines", len(rows))
		}
		return rows[14]
	}
	run()
	if calls.Load() != 14 {
		t.Fatalf("first run: %d expansion calls for 14 questions", calls.Load())
	}
	run()
	if calls.Load() != 14 {
		t.Fatalf("second run called the model: %d calls in all", calls.Load())
	}
}
