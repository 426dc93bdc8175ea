package nightly

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/crossmodal"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/internal/openai/openaitest"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

var items = []crossmodal.Item{{ID: "q1", Task: "what is my dog's name?"}, {ID: "q2", Task: "where did I travel in May?"}}

func rows() []longmemeval.Row {
	return []longmemeval.Row{{SchemaVersion: 1, QuestionID: "q1", Question: items[0].Task, Hypothesis: "Biscuit"},
		{SchemaVersion: 1, QuestionID: "q2", Question: items[1].Task, Hypothesis: "Lisbon"}}
}

func judgeSlot(t *testing.T, url, model string, m *budget.Meter) crossmodal.Slot {
	c, err := openai.NewChat(openai.ChatConfig{BaseURL: url, Model: model, Patience: openai.Patience{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return crossmodal.Slot{Name: "1", Model: m.Wrap(c)}
}

func verdicts(v1, v2 string) func(openaitest.Request) openaitest.Reply {
	return func(r openaitest.Request) openaitest.Reply {
		v := v1
		if strings.Contains(r.User(), "Lisbon") {
			v = v2
		}
		if v == "429" {
			return openaitest.Reply{Status: http.StatusTooManyRequests, Content: "slow down"}
		}
		// The reason carries a NUL, which PostgreSQL text cannot hold.
		return openaitest.Reply{Content: `{"verdict":"` + v + `","reason":"scripted \u0000` + v + `"}`, PromptTokens: 200, CompletionTokens: 20}
	}
}

func TestEveryOutcomeIsRecordedAndMovesDoctor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := filepath.Join(t.TempDir(), "audit")
	free := budget.DefaultPrices()
	free["local-judge"] = budget.Price{}
	answer := func(context.Context) ([]longmemeval.Row, error) { return rows(), nil }
	closed := openaitest.ClosedURL(t)

	h, err := Check(ctx, b.Pool, false, time.Now())
	if err != nil || h.State != Skipped || !strings.Contains(h.Message, EnableCommand) {
		t.Fatalf("disabled: %+v, %v", h, err)
	}
	if h, err = Check(ctx, b.Pool, true, time.Now()); err != nil || h.State != OK || h.Last != nil {
		t.Fatalf("enabled, no run: %+v, %v", h, err)
	}

	cases := []struct {
		outcome string
		probe   func(m *budget.Meter) Probe
		health  string
	}{
		{Pass, func(m *budget.Meter) Probe {
			return Probe{Answer: answer, Slots: []crossmodal.Slot{judgeSlot(t, openaitest.New(t, verdicts("PASS", "PASS")).URL, "local-judge", m)}}
		}, OK},
		{Fail, func(m *budget.Meter) Probe {
			return Probe{Answer: answer, Slots: []crossmodal.Slot{judgeSlot(t, openaitest.New(t, verdicts("PASS", "FAIL")).URL, "local-judge", m)}}
		}, Warn},
		{Inconclusive, func(m *budget.Meter) Probe {
			return Probe{Answer: answer, Slots: []crossmodal.Slot{judgeSlot(t, openaitest.New(t, verdicts("INCONCLUSIVE", "PASS")).URL, "local-judge", m)}}
		}, Warn},
		{Error, func(m *budget.Meter) Probe {
			return Probe{Answer: answer, Slots: []crossmodal.Slot{judgeSlot(t, closed, "local-judge", m)}}
		}, Warn},
		{RateLimited, func(m *budget.Meter) Probe {
			return Probe{Answer: answer, Slots: []crossmodal.Slot{judgeSlot(t, openaitest.New(t, verdicts("PASS", "429")).URL, "local-judge", m)}}
		}, Warn},
		{RateLimited, func(m *budget.Meter) Probe {
			limited := func(context.Context) ([]longmemeval.Row, error) {
				return nil, &openai.APIError{StatusCode: 429, Message: "slow down"}
			}
			return Probe{Answer: limited, Slots: []crossmodal.Slot{judgeSlot(t, closed, "local-judge", m)}}
		}, Warn},
		{BudgetExceeded, func(m *budget.Meter) Probe {
			srv := openaitest.New(t, verdicts("PASS", "PASS"))
			t.Cleanup(func() {
				if srv.Calls() != 0 {
					t.Errorf("a run over budget called the judge %d times", srv.Calls())
				}
			})
			return Probe{Answer: func(context.Context) ([]longmemeval.Row, error) {
				t.Error("a run over budget answered")
				return nil, errors.New("unreachable")
			}, AnswerEstimate: budget.Estimate{Model: "gpt-4o", Calls: 2, PromptTokens: 1_000_000}, Slots: []crossmodal.Slot{judgeSlot(t, srv.URL, "local-judge", m)}}
		}, Warn},
		{NoModel, func(m *budget.Meter) Probe { return Probe{NoModelReason: "no chat model is configured"} }, Warn},
	}
	for i, tc := range cases {
		m := budget.NewMeter(free)
		p := tc.probe(m)
		p.Prices, p.MaxUSD, p.Meter, p.FixtureSHA256 = free, 1, m, strings.Repeat("ab", 32)
		e := p.Run(ctx, items)
		if e.Outcome != tc.outcome || e.Reason == "" && tc.outcome != Pass {
			t.Fatalf("case %d: outcome %s (%s), want %s", i, e.Outcome, e.Reason, tc.outcome)
		}
		if err := Record(ctx, b.Pool, &e); err != nil {
			t.Fatal(err)
		}
		path, err := AppendEvent(dir, e)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(path) != WeekFileName(e.Timestamp) {
			t.Fatalf("event went to %s", path)
		}
		lines := readLines(t, path)
		var last Event
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Outcome != tc.outcome || last.RunID != e.RunID || last.FixtureSHA256 != p.FixtureSHA256 {
			t.Fatalf("week file's last event = %+v, %v", last, err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Fatalf("week file mode %v", fi.Mode().Perm())
		}
		var outcome, sha string
		var pass, fail int
		if err := b.Pool.QueryRow(ctx, `SELECT outcome, fixture_sha256, pass_count, fail_count FROM brain.eval_nightly_runs WHERE id = $1`, e.RunID).Scan(&outcome, &sha, &pass, &fail); err != nil ||
			outcome != tc.outcome || sha != p.FixtureSHA256 || pass != e.Pass || fail != e.Fail {
			t.Fatalf("row = %s %s %d %d, %v", outcome, sha, pass, fail, err)
		}
		h, err := Check(ctx, b.Pool, true, time.Now())
		if err != nil || h.State != tc.health || h.Last == nil {
			t.Fatalf("case %d (%s): health %+v, %v; want %s", i, tc.outcome, h, err, tc.health)
		}
		if tc.health == Warn && (!strings.Contains(h.Message, strings.ReplaceAll(e.Reason, "\x00", "")) || !strings.Contains(h.Message, "pass 1")) {
			t.Fatalf("warning %q lacks the counts or the latest reason %q", h.Message, e.Reason)
		}
	}
	// A week later only old runs remain: WARN says no recent run.
	if h, _ := Check(ctx, b.Pool, true, time.Now().Add(8*24*time.Hour)); h.State != Warn || !strings.Contains(h.Message, "no run in the last 7 days") {
		t.Fatalf("stale: %+v", h)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func TestWeekFileName(t *testing.T) {
	cases := []struct {
		t    string
		want string
	}{
		{"2027-01-01T12:00:00Z", "quality-probe-2026-W53.jsonl"},
		{"2026-11-24T23:00:00Z", "quality-probe-2026-W48.jsonl"},
		{"2025-12-29T00:00:00Z", "quality-probe-2026-W01.jsonl"},
		{"2026-01-05T01:00:00+03:00", "quality-probe-2026-W01.jsonl"}, // Sunday 22:00 UTC
	}
	for _, tc := range cases {
		ts, _ := time.Parse(time.RFC3339, tc.t)
		if got := WeekFileName(ts); got != tc.want {
			t.Errorf("WeekFileName(%s) = %s, want %s", tc.t, got, tc.want)
		}
	}
}

func TestAppendEventRefusesSymlinks(t *testing.T) {
	root := t.TempDir()
	e := Event{SchemaVersion: 1, Timestamp: time.Now().UTC(), Outcome: Pass, FixtureSHA256: strings.Repeat("0", 64)}
	target := filepath.Join(root, "elsewhere.jsonl")
	dir := filepath.Join(root, "audit")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, WeekFileName(e.Timestamp))); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendEvent(dir, e); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("file symlink: %v", err)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the symlink's target was written")
	}
	linkDir := filepath.Join(root, "linked")
	if err := os.Symlink(root, linkDir); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendEvent(linkDir, e); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("folder symlink: %v", err)
	}
	// A file with wider permissions is narrowed to 0600.
	own := filepath.Join(root, "own")
	if err := os.MkdirAll(own, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(own, WeekFileName(e.Timestamp))
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendEvent(own, e); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
}

func TestInstallTimer(t *testing.T) {
	ctx := context.Background()
	cfg := filepath.Join(t.TempDir(), ".config")
	missing := func(string) (string, error) { return "", errors.New("not found") }
	in, err := InstallTimer(ctx, InstallOptions{ConfigDir: cfg, Bin: "/opt/my tools/pgbrain", Home: "/home/u/.pgbrain", LookPath: missing,
		Run: func(context.Context, string, ...string) error { t.Fatal("systemctl run although missing"); return nil }})
	if err != nil || in.Enabled || len(in.ToRun) != 2 || !strings.Contains(in.ToRun[1], "enable --now "+TimerName) {
		t.Fatalf("without systemctl: %+v, %v", in, err)
	}
	svc, err := os.ReadFile(filepath.Join(cfg, "systemd", "user", ServiceName))
	if err != nil || !strings.Contains(string(svc), `ExecStart="/opt/my tools/pgbrain" eval nightly`) || !strings.Contains(string(svc), "Environment=PGBRAIN_HOME=/home/u/.pgbrain") ||
		!strings.Contains(string(svc), "EnvironmentFile=-"+filepath.Join(cfg, "pgbrain", "nightly.env")) {
		t.Fatalf("service:\n%s\n%v", svc, err)
	}
	tm, err := os.ReadFile(filepath.Join(cfg, "systemd", "user", TimerName))
	if err != nil || !strings.Contains(string(tm), "OnCalendar=") || !strings.Contains(string(tm), "Persistent=true") {
		t.Fatalf("timer:\n%s\n%v", tm, err)
	}
	var ran []string
	in, err = InstallTimer(ctx, InstallOptions{ConfigDir: cfg, Bin: "/usr/bin/pgbrain", LookPath: func(string) (string, error) { return "/bin/systemctl", nil },
		Run: func(_ context.Context, name string, args ...string) error {
			ran = append(ran, name+" "+strings.Join(args, " "))
			return nil
		}})
	if err != nil || !in.Enabled || len(ran) != 2 || ran[0] != "systemctl --user daemon-reload" {
		t.Fatalf("with systemctl: %+v, %v, ran %q", in, err, ran)
	}
	if _, err := InstallTimer(ctx, InstallOptions{ConfigDir: "relative"}); err == nil {
		t.Fatal("a relative config dir was accepted")
	}
}

// TestReasonIsScrubbed: an endpoint error that echoes a key reaches the
// week file, the table and doctor only redacted.
func TestReasonIsScrubbed(t *testing.T) {
	const key = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	m := budget.NewMeter(nil)
	p := Probe{
		Answer: func(context.Context) ([]longmemeval.Row, error) {
			return nil, &openai.APIError{StatusCode: 401, Message: "Incorrect API key provided: " + key}
		},
		Slots:  []crossmodal.Slot{judgeSlot(t, openaitest.ClosedURL(t), "local-judge", m)},
		Prices: budget.Prices{"local-judge": {}}, Meter: m,
	}
	e := p.Run(context.Background(), items)
	if e.Outcome != Error || strings.Contains(e.Reason, key) || !strings.Contains(e.Reason, "Incorrect API key provided: [REDACTED]") {
		t.Fatalf("outcome %s, reason %q", e.Outcome, e.Reason)
	}
}
