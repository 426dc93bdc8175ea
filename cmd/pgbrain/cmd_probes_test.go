package main

// End-to-end tests of the model-judged probes (docs/eval-loop.md): every
// model is a local scripted /v1/chat/completions server.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pgbrain/pgbrain/internal/nightly"
	"github.com/pgbrain/pgbrain/internal/openai/openaitest"
	"github.com/pgbrain/pgbrain/testdb"
)

// chatEnv points PGBRAIN_CHAT_* at url (model) and clears every other
// variable that could name a model.
func chatEnv(t *testing.T, url, model string) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "PGBRAIN_OPENAI_BASE_URL", "PGBRAIN_CHAT_API_KEY", "PGBRAIN_CHAT_TEMPERATURE"} {
		t.Setenv(v, "")
	}
	for n := 1; n <= 3; n++ {
		for _, s := range []string{"BASE_URL", "MODEL", "API_KEY"} {
			t.Setenv(fmt.Sprintf("PGBRAIN_CROSSMODAL_%d_%s", n, s), "")
		}
	}
	t.Setenv("PGBRAIN_CHAT_BASE_URL", url)
	t.Setenv("PGBRAIN_CHAT_MODEL", model)
}

// contradictionJudge flags the contradictions seeded in
// internal/contradictions/testdata/brain.
func contradictionJudge(r openaitest.Request) openaitest.Reply {
	u := r.User()
	for _, s := range [][3]string{{"founded Widget Co in 2019", "founded in 2017", "high"}, {"still runs the company", "stepped down", "high"}, {"$2M", "$5M", "medium"}} {
		if strings.Contains(u, s[0]) && strings.Contains(u, s[1]) {
			return openaitest.Reply{Content: fmt.Sprintf(`{"contradiction": true, "severity": %q, "explanation": "seeded", "evidence_a": %q, "evidence_b": %q}`, s[2], s[0], s[1])}
		}
	}
	return openaitest.Reply{Content: `{"contradiction": false, "severity": null, "explanation": "", "evidence_a": "", "evidence_b": ""}`}
}

func TestSuspectedContradictionsCommand(t *testing.T) {
	url := testdb.New(t)
	home := t.TempDir()
	if _, errOut, code := pgbrain(t, url, "", "import", "../../internal/contradictions/testdata/brain"); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	queries := filepath.Join(t.TempDir(), "queries.jsonl")
	if err := os.WriteFile(queries, []byte("{\"query\":\"who founded Widget Co\"}\n{\"query\":\"Alice Example chief executive\"}\n{\"query\":\"Acme seed round\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := openaitest.New(t, contradictionJudge)
	chatEnv(t, srv.URL, "gpt-4o-mini")
	probe := func(args ...string) (string, string, int) {
		return pgbrain(t, url, "", append([]string{"--home", home, "eval", "suspected-contradictions"}, args...)...)
	}

	if _, errOut, code := probe("--queries-file", queries, "--from-captured", "5"); code != 2 || !strings.Contains(errOut, "not both") {
		t.Fatalf("both sources: code %d, %s", code, errOut)
	}
	if _, errOut, code := probe(); code != 2 || !strings.Contains(errOut, "--queries-file") {
		t.Fatalf("no source: code %d, %s", code, errOut)
	}

	// Over budget: refused before any call, nothing recorded.
	t.Setenv("PGBRAIN_CHAT_MODEL", "gpt-4o")
	if _, errOut, code := probe("--queries-file", queries, "--budget-usd", "0.01"); code != 1 || !strings.Contains(errOut, "refusing to start") || srv.Calls() != 0 {
		t.Fatalf("--budget-usd 0.01: code %d, %d calls, %s", code, srv.Calls(), errOut)
	}
	t.Setenv("PGBRAIN_CHAT_MODEL", "gpt-4o-mini")

	outFile := filepath.Join(t.TempDir(), "run.json")
	out, errOut, code := probe("--queries-file", queries, "--top-k", "5", "--budget-usd", "5", "--output", outFile)
	if code != 0 {
		t.Fatalf("probe: code %d, %s", code, errOut)
	}
	calls := srv.Calls()
	if calls == 0 || !strings.Contains(out, "3 surfaced a suspected contradiction") || !strings.Contains(out, "[high]") || !strings.Contains(errOut, "model usage:") {
		t.Fatalf("probe output:\n%s\n%s", out, errOut)
	}
	var run struct {
		SchemaVersion int `json:"schema_version"`
		ModelCalls    int `json:"model_calls"`
		Findings      []struct{ Severity string }
		Usage         struct{ Calls int }
	}
	data, err := os.ReadFile(outFile)
	if err != nil || json.Unmarshal(data, &run) != nil || run.SchemaVersion != 1 || run.ModelCalls != calls || run.Usage.Calls != calls || len(run.Findings) == 0 {
		t.Fatalf("--output: %v %+v\n%s", err, run, data)
	}

	// Again: everything from the cache.
	out, errOut, code = probe("--queries-file", queries, "--json")
	if code != 0 || srv.Calls() != calls || !strings.Contains(out, `"model_calls": 0`) {
		t.Fatalf("second run: code %d, %d new calls\n%s\n%s", code, srv.Calls()-calls, out, errOut)
	}

	out, _, code = pgbrain(t, url, "", "--home", home, "eval", "suspected-contradictions", "trend", "--days", "3")
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(out, "#") || !strings.Contains(out, "no run") {
		t.Fatalf("trend:\n%s", out)
	}

	out, _, code = pgbrain(t, url, "", "--home", home, "doctor")
	if code != 0 || !regexp.MustCompile(`contradictions +100\.0% of 3 queries surfaced one \(95% CI 43\.9–100\.0%\)`).MatchString(out) {
		t.Fatalf("doctor headline:\n%s", out)
	}
	m := regexp.MustCompile(`dismiss: (pgbrain eval suspected-contradictions dismiss ([0-9a-f]{64}) ([0-9a-f]{64}))`).FindAllStringSubmatch(out, -1)
	if len(m) != 2 || !strings.Contains(out, "open:    pgbrain get ") {
		t.Fatalf("doctor resolve commands:\n%s", out)
	}
	if out, errOut, code := pgbrain(t, url, "", "--home", home, "eval", "suspected-contradictions", "dismiss", m[0][2], m[0][3]); code != 0 || !strings.Contains(out, "marked") {
		t.Fatalf("dismiss: %d %s %s", code, out, errOut)
	}
	if _, _, code := probe("--queries-file", queries); code != 0 || srv.Calls() != calls {
		t.Fatalf("run after dismissing: code %d, %d new calls", code, srv.Calls()-calls)
	}
	out, _, _ = pgbrain(t, url, "", "--home", home, "doctor")
	if strings.Contains(out, m[0][2]+" "+m[0][3]) || !strings.Contains(out, m[1][2]+" "+m[1][3]) {
		t.Fatalf("doctor after dismissing:\n%s", out)
	}
}

// lmeBatch writes a LongMemEval output with two questions and a summary.
func lmeBatch(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "run.jsonl")
	data := `{"schema_version":1,"question_id":"q1","question_type":"single-session-user","question":"what is my dog called?","hypothesis":"Biscuit","retrieved_session_ids":[],"recall_any":true,"recall_all":true}
{"schema_version":1,"question_id":"q2","question_type":"multi-session","question":"where did I travel in May?","hypothesis":"Lisbon","retrieved_session_ids":[],"recall_any":false,"recall_all":false}
{"schema_version":1,"kind":"by_type_summary","recall_by_type":{},"aggregate":{"hit":1,"total":2,"rate":0.5}}
`
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// verdictServer answers the q1 item with v1 and the q2 item with v2.
func verdictServer(t *testing.T, v1, v2 string) *openaitest.Server {
	return openaitest.New(t, func(r openaitest.Request) openaitest.Reply {
		v := v1
		if strings.Contains(r.User(), "Lisbon") {
			v = v2
		}
		if v == "429" {
			return openaitest.Reply{Status: http.StatusTooManyRequests, Content: "slow down"}
		}
		return openaitest.Reply{Content: `{"verdict":"` + v + `","reason":"scripted"}`}
	})
}

func TestCrossModalBatchExitStatus(t *testing.T) {
	batch := lmeBatch(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"budget":{"prices":{"judge":{"input_per_mtok":0,"output_per_mtok":0}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	chatEnv(t, "", "")
	cases := []struct {
		name  string
		slots [][2]string
		exit  int
		want  string
	}{
		{"all pass", [][2]string{{"PASS", "PASS"}, {"PASS", "PASS"}, {"PASS", "PASS"}}, 0, "Verdict: PASS"},
		{"one failing question", [][2]string{{"PASS", "FAIL"}, {"PASS", "FAIL"}}, 1, "Verdict: FAIL"},
		{"judges disagree", [][2]string{{"PASS", "FAIL"}, {"PASS", "PASS"}}, 2, "Verdict: INCONCLUSIVE"},
		{"fail and inconclusive", [][2]string{{"INCONCLUSIVE", "FAIL"}}, 1, "Verdict: FAIL"},
		{"rate limited beats fail", [][2]string{{"429", "FAIL"}}, 2, "Verdict: ERROR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--home", home, "eval", "cross-modal", "--batch", batch}
			for _, s := range tc.slots {
				args = append(args, "--slot", "judge@"+verdictServer(t, s[0], s[1]).URL)
			}
			out, errOut, code := pgbrain(t, "", "", args...)
			if code != tc.exit || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, want %d:\n%s\n%s", code, tc.exit, out, errOut)
			}
			if strings.Contains(out, "by_type_summary") || !strings.Contains(out, "Scored 2 output(s)") {
				t.Fatalf("summary line scored:\n%s", out)
			}
		})
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("receipts left behind in %s: %v", tmp, left)
	}

	// --json inlines every verdict.
	srv := verdictServer(t, "PASS", "FAIL")
	out, _, code := pgbrain(t, "", "", "--home", home, "eval", "cross-modal", "--batch", batch, "--slot", "judge@"+srv.URL, "--json")
	var rep struct {
		Verdict string
		Results []struct {
			ID, Verdict string
		}
		Usage struct{ Calls int }
	}
	if code != 1 || json.Unmarshal([]byte(out), &rep) != nil || rep.Verdict != "FAIL" || len(rep.Results) != 2 || rep.Results[1].Verdict != "FAIL" || rep.Usage.Calls != 2 {
		t.Fatalf("--json: code %d %+v\n%s", code, rep, out)
	}

	// The estimate over --max-usd refuses unless --yes.
	priced := verdictServer(t, "PASS", "PASS")
	out, errOut, code := pgbrain(t, "", "", "--home", home, "eval", "cross-modal", "--batch", batch, "--slot", "gpt-4o@"+priced.URL, "--max-usd", "0.0001")
	if code != 2 || !strings.Contains(errOut, "refusing to start") || !strings.Contains(errOut, "--yes") || priced.Calls() != 0 {
		t.Fatalf("over --max-usd: code %d, %d calls\n%s%s", code, priced.Calls(), out, errOut)
	}
	if _, errOut, code := pgbrain(t, "", "", "--home", home, "eval", "cross-modal", "--batch", batch, "--slot", "gpt-4o@"+priced.URL, "--max-usd", "0.0001", "--yes"); code != 0 || priced.Calls() != 2 {
		t.Fatalf("--yes: code %d, %d calls, %s", code, priced.Calls(), errOut)
	}

	usage := []struct {
		args []string
		want string
	}{
		{[]string{"--batch", batch, "--task", "t", "--output", "o"}, "mutually exclusive"},
		{[]string{"--task", "t"}, "--batch run.jsonl"},
		{[]string{"--task", "t", "--output", "o", "--limit", "1"}, "--batch only"},
		{[]string{"--batch", batch, "--slot", "nomodel"}, "MODEL@BASE_URL"},
		{[]string{"--batch", batch}, "no scoring model"},
	}
	for _, u := range usage {
		if _, errOut, code := pgbrain(t, "", "", append([]string{"--home", home, "eval", "cross-modal"}, u.args...)...); code != 2 || !strings.Contains(errOut, u.want) {
			t.Errorf("%q: code %d, %s", u.args, code, errOut)
		}
	}

	// One task, default three cycles.
	out, _, code = pgbrain(t, "", "", "--home", home, "eval", "cross-modal", "--task", "what is my dog called?", "--output", "Biscuit", "--slot", "judge@"+srv.URL)
	if code != 0 || !strings.Contains(out, "1#3 PASS") {
		t.Fatalf("single task: code %d\n%s", code, out)
	}
}

// nightlyServer answers LongMemEval questions and grades the answers with
// the verdict held in mode ("PASS", "FAIL", ... or "429" for everything).
func nightlyServer(t *testing.T, mode *atomic.Value) *openaitest.Server {
	return openaitest.New(t, func(r openaitest.Request) openaitest.Reply {
		m := mode.Load().(string)
		if m == "429" {
			return openaitest.Reply{Status: http.StatusTooManyRequests, Content: "slow down"}
		}
		if strings.Contains(r.Messages[0].Content, "You grade whether") {
			return openaitest.Reply{Content: `{"verdict":"` + m + `","reason":"scripted ` + m + `"}`}
		}
		return openaitest.Reply{Content: "The answer is in the history.", PromptTokens: 300, CompletionTokens: 8}
	})
}

func TestNightlyCommandRecordsEveryRunAndMovesDoctor(t *testing.T) {
	url := testdb.New(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"budget":{"prices":{"local-test":{"input_per_mtok":0,"output_per_mtok":0}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var mode atomic.Value
	mode.Store("PASS")
	srv := nightlyServer(t, &mode)
	chatEnv(t, srv.URL, "local-test")
	nightlyRun := func(args ...string) (string, string, int) {
		return pgbrain(t, url, "", append([]string{"--home", home, "eval", "nightly", "--limit", "2"}, args...)...)
	}
	doctorProbe := func() string {
		out, errOut, code := pgbrain(t, url, "", "--home", home, "doctor")
		if code != 0 {
			t.Fatalf("doctor: %d %s", code, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "nightly probe") {
				return l
			}
		}
		t.Fatalf("doctor has no nightly line:\n%s", out)
		return ""
	}
	rows := func() []string {
		var out []string
		conn := connect(t, url)
		r, err := conn.Query(t.Context(), `SELECT outcome FROM brain.eval_nightly_runs ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var o string
			if err := r.Scan(&o); err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
		return out
	}
	audit := filepath.Join(home, "audit")

	// Disabled: nothing runs, nothing is written, doctor says how to enable.
	if _, errOut, code := nightlyRun(); code != 0 || !strings.Contains(errOut, "disabled") || srv.Calls() != 0 {
		t.Fatalf("disabled run: code %d, %d calls, %s", code, srv.Calls(), errOut)
	}
	if out, errOut, code := nightlyRun("--json"); code != 0 || !strings.Contains(strings.Join(strings.Fields(out), ""), `"outcome":"disabled"`) || srv.Calls() != 0 {
		t.Fatalf("disabled run --json: code %d, %d calls, stdout %q, %s", code, srv.Calls(), out, errOut)
	}
	if _, err := os.Stat(audit); !os.IsNotExist(err) || len(rows()) != 0 {
		t.Fatalf("a disabled run left a trace: %v %v", err, rows())
	}
	if l := doctorProbe(); !strings.Contains(l, "SKIPPED") || !strings.Contains(l, nightly.EnableCommand) {
		t.Fatalf("doctor disabled: %s", l)
	}
	if out, errOut, code := pgbrain(t, url, "", "--home", home, "eval", "nightly", "--enable", "--max-usd", "1"); code != 0 || !strings.Contains(out, "enabled") {
		t.Fatalf("--enable: %d %s %s", code, out, errOut)
	}
	if l := doctorProbe(); !strings.Contains(l, "OK: enabled, no run yet") {
		t.Fatalf("doctor enabled: %s", l)
	}

	steps := []struct {
		mode, model string
		outcome     string
		exit        int
		doctor      string
	}{
		{"PASS", "local-test", nightly.Pass, 0, "OK: every run of the last 7 days passed"},
		{"FAIL", "local-test", nightly.Fail, 1, "WARN: last 7 days: pass 1, fail 1"},
		{"INCONCLUSIVE", "local-test", nightly.Inconclusive, 2, "inconclusive 1"},
		{"429", "local-test", nightly.RateLimited, 2, "rate_limited 1"},
		{"PASS", "gpt-4o", nightly.BudgetExceeded, 2, "budget_exceeded 1"}, // under max_usd 0.01
		{"PASS", "", nightly.NoModel, 2, "no_model 1"},
	}
	for i, s := range steps {
		mode.Store(s.mode)
		if s.model == "" {
			chatEnv(t, "", "")
		} else {
			chatEnv(t, srv.URL, s.model)
		}
		if s.outcome == nightly.BudgetExceeded {
			if _, errOut, code := pgbrain(t, url, "", "--home", home, "eval", "nightly", "--enable", "--max-usd", "0.01"); code != 0 {
				t.Fatal(errOut)
			}
		}
		before := srv.Calls()
		out, errOut, code := nightlyRun("--json")
		var e nightly.Event
		if err := json.Unmarshal([]byte(out), &e); err != nil || code != s.exit || e.Outcome != s.outcome {
			t.Fatalf("step %d (%s): code %d, event %+v, %v\n%s\n%s", i, s.outcome, code, e, err, out, errOut)
		}
		if (s.outcome == nightly.BudgetExceeded || s.outcome == nightly.NoModel) && srv.Calls() != before {
			t.Fatalf("%s called the model %d times", s.outcome, srv.Calls()-before)
		}
		if len(e.FixtureSHA256) != 64 || (s.outcome == nightly.Pass && e.Pass != 2) {
			t.Fatalf("event %+v", e)
		}
		if got := rows(); len(got) != i+1 || got[i] != s.outcome {
			t.Fatalf("table after step %d: %v", i, got)
		}
		week := filepath.Join(audit, nightly.WeekFileName(e.Timestamp))
		data, err := os.ReadFile(week)
		if err != nil || strings.Count(string(data), "\n") != i+1 || !strings.Contains(string(data), `"outcome":"`+s.outcome+`"`) {
			t.Fatalf("week file after step %d: %v\n%s", i, err, data)
		}
		if fi, _ := os.Stat(week); fi.Mode().Perm() != 0o600 {
			t.Fatalf("week file mode %v", fi.Mode().Perm())
		}
		if l := doctorProbe(); !strings.Contains(l, s.doctor) {
			t.Fatalf("doctor after %s: %s", s.outcome, l)
		}
	}
}

func TestNightlyInstallTimer(t *testing.T) {
	h := t.TempDir()
	t.Setenv("HOME", h)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("PATH", t.TempDir()) // no systemctl
	out, errOut, code := pgbrain(t, "", "", "--home", filepath.Join(h, "brain"), "eval", "nightly", "--install-timer")
	if code != 0 || !strings.Contains(out, "systemctl --user enable --now "+nightly.TimerName) {
		t.Fatalf("install: code %d\n%s\n%s", code, out, errOut)
	}
	svc, err := os.ReadFile(filepath.Join(h, ".config", "systemd", "user", nightly.ServiceName))
	if err != nil || !strings.Contains(string(svc), "eval nightly") || !strings.Contains(string(svc), "PGBRAIN_HOME="+filepath.Join(h, "brain")) {
		t.Fatalf("service: %v\n%s", err, svc)
	}
	if _, err := os.Stat(filepath.Join(h, ".config", "systemd", "user", nightly.TimerName)); err != nil {
		t.Fatal(err)
	}
}
