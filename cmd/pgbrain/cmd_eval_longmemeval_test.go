package main

// End-to-end tests of `pgbrain eval longmemeval` (docs/eval-loop.md): the
// run happens in a scratch database beside the brain named by
// --database-url, which must be left exactly as it was, with no scratch
// database behind; the output holds every question once and one summary,
// also after a resume; --by-type-floor fails the run when a type misses.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/testdb"
)

const lmeFixture = "../../internal/longmemeval/testdata/mini.json"

// lmeLine is one output line: a question row or the summary.
type lmeLine struct {
	SchemaVersion       int      `json:"schema_version"`
	Kind                string   `json:"kind"`
	QuestionID          string   `json:"question_id"`
	Hypothesis          string   `json:"hypothesis"`
	RetrievedSessionIDs []string `json:"retrieved_session_ids"`
	RecallAny           *bool    `json:"recall_any"`
	RecallAll           *bool    `json:"recall_all"`
	RecallByType        map[string]struct {
		Hit, Total int
		Rate       float64
	} `json:"recall_by_type"`
	Aggregate struct {
		Hit, Total int
		AllHit     int `json:"all_hit"`
		Rate       float64
	} `json:"aggregate"`
}

func lmeRead(t *testing.T, path string) []lmeLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []lmeLine
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		var x lmeLine
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("%s: line %q: %v", path, l, err)
		}
		out = append(out, x)
	}
	return out
}

// lmeCheckOutput asserts one row per question in order (as given), no row
// twice, and exactly one summary, last.
func lmeCheckOutput(t *testing.T, got []lmeLine, questions ...string) {
	t.Helper()
	if len(got) != len(questions)+1 {
		t.Fatalf("%d lines, want %d questions and a summary: %+v", len(got), len(questions), got)
	}
	for i, q := range questions {
		if got[i].Kind != "" || got[i].QuestionID != q {
			t.Errorf("line %d = %+v, want question %s", i+1, got[i], q)
		}
	}
	if last := got[len(got)-1]; last.Kind != "by_type_summary" || last.SchemaVersion != 1 {
		t.Errorf("last line = %+v, want the by_type_summary", last)
	}
}

// lmeBrainState is every row of every brain table and sequence of the
// database at url, as row counts and checksums, plus the BM25 statistics in
// full. The sequences catch rows written and deleted again.
func lmeBrainState(t *testing.T, url string) map[string]string {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, url)
	state := testdb.Fingerprints(t, conn, true)
	var stats string
	if err := conn.QueryRow(ctx, `SELECT coalesce(string_agg(lexeme || ':' || doc_freq, ' ' ORDER BY lexeme), '') FROM brain.term_stats`).Scan(&stats); err != nil {
		t.Fatal(err)
	}
	state["term_stats in full"] = stats
	return state
}

// lmeScratchLeft lists the scratch databases of the database at url.
func lmeScratchLeft(t *testing.T, url string) []string {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, url)
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database WHERE starts_with(datname, current_database() || '_longmemeval_')`)
	if err != nil {
		t.Fatal(err)
	}
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return left
}

func TestEvalLongMemEvalRunAndResume(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dir := t.TempDir()
	// The user's brain holds a page of its own, with a slug a session also
	// gets: the run must neither read nor change it.
	if _, errOut, code := pgbrain(t, url, "# Biscuit\n\nMy neighbour's dog Biscuit is a poodle.\n", "put", "sessions/answer_dog_1"); code != 0 {
		t.Fatalf("put: %s", errOut)
	}
	before := lmeBrainState(t, url)

	// --method fused, the default, named: this run is also
	// TestEvalLongMemEvalMethods' run of it.
	full := filepath.Join(dir, "full.jsonl")
	_, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--retrieval-only", "--top-k", "5", "--by-type", "--method", "fused", "--output", full)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	got := lmeRead(t, full)
	lmeCheckOutput(t, got, "q-001", "q-002", "q-003_abs", "q-004")
	for _, r := range got[:4] {
		if r.Hypothesis != "" {
			t.Errorf("%s: --retrieval-only wrote a hypothesis %q", r.QuestionID, r.Hypothesis)
		}
		if r.QuestionID == "q-003_abs" {
			if r.RecallAny != nil || r.RecallAll != nil {
				t.Errorf("abstention question has recall %v/%v, want null", r.RecallAny, r.RecallAll)
			}
			continue
		}
		if r.RecallAny == nil || !*r.RecallAny || r.RecallAll == nil || !*r.RecallAll {
			t.Errorf("%s: recall_any %v recall_all %v, want both true at k=5 (retrieved %v)", r.QuestionID, r.RecallAny, r.RecallAll, r.RetrievedSessionIDs)
		}
	}
	if s := got[4]; s.Aggregate.Hit != 3 || s.Aggregate.Total != 3 || len(s.RecallByType) != 3 {
		t.Errorf("summary = %+v, want 3 of 3 over 3 types", s)
	}
	if s := got[4]; s.Aggregate.Total == 0 || s.Aggregate.AllHit != s.Aggregate.Total {
		t.Errorf("--method fused: summary %+v, want every answer session of every scored question found", s.Aggregate)
	}
	if got[0].RetrievedSessionIDs[0] != "answer_dog_1" {
		t.Errorf("q-001 retrieved %v, want answer_dog_1 first", got[0].RetrievedSessionIDs)
	}

	// Resume a run cut off after two questions, into the same file.
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(dir, "half.jsonl")
	firstTwo := strings.SplitAfterN(string(data), "\n", 3)
	if err := os.WriteFile(half, []byte(firstTwo[0]+firstTwo[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--retrieval-only", "--top-k", "5", "--by-type",
		"--resume-from", half, "--output", half); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	resumed := lmeRead(t, half)
	lmeCheckOutput(t, resumed, "q-001", "q-002", "q-003_abs", "q-004")
	if resumed[4].Aggregate != got[4].Aggregate {
		t.Errorf("resumed summary %+v, want %+v as in the full run", resumed[4].Aggregate, got[4].Aggregate)
	}
	// Resuming a finished run answers nothing and still ends in one summary.
	if _, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--retrieval-only", "--by-type",
		"--resume-from", half, "--output", half); code != 0 {
		t.Fatalf("resume of a finished run: exit %d: %s", code, errOut)
	}
	lmeCheckOutput(t, lmeRead(t, half), "q-001", "q-002", "q-003_abs", "q-004")

	// An --output that exists is not replaced without --force; a row of
	// another dataset in --resume-from is left out and named.
	if _, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--retrieval-only", "--output", full); code != 2 || !strings.Contains(errOut, "exists") {
		t.Errorf("--output over an existing file: exit %d, %q; want a usage error", code, errOut)
	}
	mixed := filepath.Join(dir, "mixed.jsonl")
	foreign := strings.Replace(firstTwo[0], `"q-001"`, `"zzz-foreign"`, 1)
	if err := os.WriteFile(mixed, []byte(firstTwo[0]+foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "out2.jsonl")
	if _, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--retrieval-only", "--top-k", "5", "--by-type",
		"--resume-from", mixed, "--output", out2); code != 0 || !strings.Contains(errOut, `not questions of`) {
		t.Fatalf("resume with a foreign row: exit %d: %s", code, errOut)
	}
	if rows := lmeRead(t, out2); rows[len(rows)-1].Aggregate != got[4].Aggregate {
		t.Errorf("summary with a foreign row resumed: %+v, want %+v", rows[len(rows)-1].Aggregate, got[4].Aggregate)
	}
	// Resuming into that same file would delete the foreign row: refused.
	before2, _ := os.ReadFile(mixed)
	if _, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--retrieval-only",
		"--resume-from", mixed, "--output", mixed); code != 2 || !strings.Contains(errOut, "would remove them") {
		t.Errorf("resume into a file with a foreign row: exit %d, %q; want a usage error", code, errOut)
	}
	if after2, _ := os.ReadFile(mixed); string(after2) != string(before2) {
		t.Error("the refused resume changed the file")
	}

	after := lmeBrainState(t, url)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("the user's brain changed: %s was %s, now %s", k, v, after[k])
		}
	}
	if len(after) != len(before) {
		t.Errorf("the user's brain has %d tables, had %d", len(after), len(before))
	}
	if left := lmeScratchLeft(t, url); len(left) > 0 {
		t.Errorf("scratch databases left behind: %v", left)
	}
}

// lmeMissDataset has one question whose answer session shares no word with
// the question while a noise session repeats it: at k=1 it is missed.
const lmeMissDataset = `[{"question_id":"m-1","question_type":"knowledge-update","question":"Which city did I move to?","answer":"Lisbon",
"haystack_session_ids":["answer_move","noise_move"],"haystack_dates":["2023/01/01","2023/01/02"],
"haystack_sessions":[[{"role":"user","content":"We relocated to Lisbon last spring."}],
[{"role":"user","content":"Which city should I move to? I did consider a move to a bigger city."}]],
"answer_session_ids":["answer_move"]},
{"question_id":"m-2","question_type":"single-session-user","question":"What breed is my dog Biscuit?","answer":"beagle",
"haystack_session_ids":["answer_dog","noise_pasta"],"haystack_sessions":[[{"role":"user","content":"My dog Biscuit is a beagle."}],
[{"role":"user","content":"A pasta recipe with tomatoes, please."}]],"answer_session_ids":["answer_dog"]}]
`

func TestEvalLongMemEvalByTypeFloor(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	dataset := filepath.Join(t.TempDir(), "miss.json")
	if err := os.WriteFile(dataset, []byte(lmeMissDataset), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		floor    string
		wantCode int
		wantErr  string
	}{
		{"a type below the floor fails the run", "0.9", 1, "recall_any below the floor 0.900 for: knowledge-update 0.000"},
		{"a floor every type meets passes", "0", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", dataset, "--keyword-only", "--retrieval-only", "--top-k", "1", "--by-type-floor", tc.floor)
			if code != tc.wantCode || !strings.Contains(errOut, tc.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, tc.wantCode, tc.wantErr)
			}
			// The floor implies --by-type: the summary is printed either way.
			if n := strings.Count(out, `"kind":"by_type_summary"`); n != 1 || strings.Count(out, "\n") != 3 {
				t.Errorf("stdout has %d summaries in %q", n, out)
			}
		})
	}
	if left := lmeScratchLeft(t, url); len(left) > 0 {
		t.Errorf("scratch databases left behind: %v", left)
	}
}

// TestEvalLongMemEvalAnswers runs without --retrieval-only against a local
// server speaking the OpenAI chat completions format, named by the
// environment: every question's hypothesis is the model's answer to a
// prompt quoting its retrieved sessions.
func TestEvalLongMemEvalAnswers(t *testing.T) {
	url := testdb.New(t)
	var mu sync.Mutex
	prompts := map[string]string{} // question line -> user message
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model       string `json:"model"`
			Messages    []struct{ Role, Content string }
			Temperature *float64 `json:"temperature"`
		}
		// PGBRAIN_CHAT_TEMPERATURE=default below: the request carries none.
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" ||
			json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "tiny-chat" || len(req.Messages) != 2 || req.Temperature != nil {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		user := req.Messages[1].Content
		question := user[strings.LastIndex(user, "Question: "):]
		mu.Lock()
		prompts[question] = user
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": "model says: " + strings.TrimSpace(question)}}}})
	}))
	defer chat.Close()
	t.Setenv("PGBRAIN_CHAT_BASE_URL", chat.URL+"/v1")
	t.Setenv("PGBRAIN_CHAT_MODEL", "tiny-chat")
	t.Setenv("PGBRAIN_CHAT_API_KEY", "test-key")
	t.Setenv("PGBRAIN_CHAT_TEMPERATURE", "default")

	out, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--top-k", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []lmeLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r lmeLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	if len(rows) != 4 || len(prompts) != 4 {
		t.Fatalf("%d rows from %d prompts", len(rows), len(prompts))
	}
	for _, r := range rows {
		if !strings.HasPrefix(r.Hypothesis, "model says: Question: ") {
			t.Errorf("%s: hypothesis %q is not the model's answer", r.QuestionID, r.Hypothesis)
		}
	}
	dog := prompts["Question: What breed is my dog Biscuit?\n"]
	if !strings.Contains(dog, "My dog Biscuit is a beagle") || !strings.Contains(dog, "<history>") || strings.Contains(dog, "answer_dog_1") {
		t.Errorf("the dog question's prompt does not quote its evidence session (without its id):\n%s", dog)
	}
}

func TestEvalLongMemEvalNeedsAChatModel(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	// TestMain unsets every variable that names a chat model.
	out := filepath.Join(t.TempDir(), "out.jsonl")
	_, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--output", out)
	if code != 2 || !strings.Contains(errOut, "needs a chat model") || !strings.Contains(errOut, "PGBRAIN_CHAT_BASE_URL") || !strings.Contains(errOut, "--retrieval-only") {
		t.Errorf("exit %d, stderr %q: want a usage error naming the settings and --retrieval-only", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the output file was created before the run could start: %v", err)
	}
	if left := lmeScratchLeft(t, url); len(left) > 0 {
		t.Errorf("scratch databases created: %v", left)
	}
}

// A question listing one session twice with the same turns, as 13 of
// LongMemEval_S's do, runs with the session imported once, and the run says
// so.
func TestEvalLongMemEvalRepeatedSession(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	path := filepath.Join(t.TempDir(), "repeated.json")
	data := `[{"question_id":"q1","question_type":"single-session-user","question":"What breed is my dog?","answer":"beagle",
		"haystack_session_ids":["filler","answer_1","filler"],
		"haystack_dates":["2023/01/01 (Sun) 10:00","2023/01/02 (Mon) 10:00","2023/01/05 (Thu) 10:00"],
		"haystack_sessions":[[{"role":"user","content":"Any tips for watering tomatoes?"}],
			[{"role":"user","content":"My dog is a beagle.","has_answer":true}],
			[{"role":"user","content":"Any tips for watering tomatoes?"}]],
		"answer_session_ids":["answer_1"]}]`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", path, "--retrieval-only", "--top-k", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var row lmeLine
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &row); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	if len(row.RetrievedSessionIDs) != 2 || row.RetrievedSessionIDs[0] != "answer_1" || row.RetrievedSessionIDs[1] != "filler" || !*row.RecallAny {
		t.Errorf("row = %+v, want answer_1 then filler, once each", row)
	}
	if !strings.Contains(errOut, "1 question(s) in "+path+" list a session more than once") {
		t.Errorf("stderr %q does not report the repeated session", errOut)
	}
}

func TestEvalLongMemEvalBadTemperature(t *testing.T) {
	url := testdb.New(t)
	t.Setenv("PGBRAIN_CHAT_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("PGBRAIN_CHAT_TEMPERATURE", "warm")
	_, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture)
	if code != 2 || !strings.Contains(errOut, `PGBRAIN_CHAT_TEMPERATURE: "warm" is not a temperature`) || strings.Contains(errOut, "needs a chat model") {
		t.Errorf("exit %d, stderr %q: want a usage error naming the setting", code, errOut)
	}
	if left := lmeScratchLeft(t, url); len(left) > 0 {
		t.Errorf("scratch databases created: %v", left)
	}
}

// TestEvalLongMemEvalUsageErrors: a run called wrongly exits 2 before it
// touches any database.
func TestEvalLongMemEvalUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no dataset", nil, "exactly one dataset"},
		{"top-k zero", []string{lmeFixture, "--retrieval-only", "--top-k", "0"}, "--top-k 0 is out of range"},
		{"negative limit", []string{lmeFixture, "--retrieval-only", "--limit", "-1"}, "--limit must not be negative"},
		{"floor above 1", []string{lmeFixture, "--retrieval-only", "--by-type-floor", "1.5"}, "between 0 and 1"},
		{"no context", []string{lmeFixture, "--retrieval-only", "--context-chars", "0"}, "--context-chars must be positive"},
		{"no answer workers", []string{lmeFixture, "--retrieval-only", "--answer-workers", "0"}, "--answer-workers 0 is out of range"},
		{"unknown method", []string{lmeFixture, "--retrieval-only", "--method", "bm26"}, `--method "bm26" is not known; use one of fused, bm25, hybrid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := offline(t, append([]string{"eval", "longmemeval"}, tt.args...)...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

// TestEvalLongMemEvalMethods runs the fixture by each retrieval method: each
// finds the answers, and the summary counts recall_all beside recall_any.
// The run by fused, the default, with the same flags, is
// TestEvalLongMemEvalRunAndResume's first.
func TestEvalLongMemEvalMethods(t *testing.T) {
	t.Parallel()
	url := testdb.New(t)
	for _, m := range []string{"bm25", "hybrid"} {
		out, errOut, code := pgbrain(t, url, "", "eval", "longmemeval", lmeFixture, "--retrieval-only", "--top-k", "5", "--by-type", "--method", m)
		if code != 0 {
			t.Fatalf("--method %s: exit %d, stderr %q", m, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var sum struct {
			Aggregate struct {
				Hit    int `json:"hit"`
				Total  int `json:"total"`
				AllHit int `json:"all_hit"`
			} `json:"aggregate"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
			t.Fatalf("--method %s: summary %q: %v", m, lines[len(lines)-1], err)
		}
		if sum.Aggregate.Total == 0 || sum.Aggregate.AllHit != sum.Aggregate.Total {
			t.Errorf("--method %s: summary %+v, want every answer session of every scored question found", m, sum)
		}
	}
	if left := lmeScratchLeft(t, url); len(left) > 0 {
		t.Errorf("scratch databases left behind: %v", left)
	}
}
