package capture

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/scrub"
	"github.com/pgbrain/pgbrain/internal/search"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

var on = evalconfig.Settings{Capture: true, ScrubPII: true}

func ptr[T any](v T) *T { return &v }

func queryResponse(q string) *search.Response {
	return &search.Response{
		Query: q,
		Results: []search.Result{
			{Slug: "people/alice", SourceID: "default", ChunkID: 11},
			{Slug: "people/bob", SourceID: "work", ChunkID: 20},
			{Slug: "people/alice", SourceID: "default", ChunkID: 12},
			{Slug: "notes/x", SourceID: "work", ChunkID: 31},
		},
		Meta: search.Meta{Tool: "query", VectorEnabled: true, Detail: ptr("medium"), DetailResolved: ptr("low"),
			ExpandEnabled: ptr(false), LatencyMS: 12.5},
	}
}

// rows returns every exported line of the database, decoded.
func rows(t *testing.T, db *pgxpool.Pool) []map[string]any {
	t.Helper()
	rs, err := db.Query(context.Background(), `SELECT row_json::text FROM brain.eval_export`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("row %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

type failureRow struct {
	Tool, Reason, SQLState, Message string
	Spooled                         bool
}

func failures(t *testing.T, db *pgxpool.Pool) []failureRow {
	t.Helper()
	rs, err := db.Query(context.Background(), `SELECT coalesce(tool_name, ''), reason, coalesce(sqlstate, ''), message, spool_id IS NOT NULL
		FROM brain.eval_capture_failures ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (failureRow, error) {
		var f failureRow
		err := r.Scan(&f.Tool, &f.Reason, &f.SQLState, &f.Message, &f.Spooled)
		return f, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func closeRecorder(t *testing.T, r *Recorder) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestRecordWritesDocumentedFields(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	r := New(b.Pool, on, t.TempDir(), nil)
	r.Record(context.Background(), queryResponse("email alice@example.com about it"), Caller{})
	search := &search.Response{Query: "bob", Results: nil,
		Meta: search.Meta{Tool: "search", ExpandEnabled: ptr(true), LatencyMS: 0.25}}
	r.Record(context.Background(), search, Caller{Remote: true, JobID: ptr(int64(7)), SubagentID: ptr(int64(9))})
	closeRecorder(t, r)

	got := rows(t, b.Pool)
	if len(got) != 2 {
		t.Fatalf("got %d rows, want 2: %v", len(got), got)
	}
	byTool := map[string]map[string]any{}
	for _, g := range got {
		byTool[g["tool_name"].(string)] = g
	}
	q := byTool["query"]
	want := map[string]any{
		"schema_version":      1.0,
		"query":               "email " + scrub.Redacted + " about it",
		"retrieved_slugs":     []any{"people/alice", "people/bob", "notes/x"},
		"retrieved_chunk_ids": []any{11.0, 20.0, 12.0, 31.0},
		"source_ids":          []any{"default", "work"},
		"expand_enabled":      false,
		"detail":              "medium",
		"detail_resolved":     "low",
		"vector_enabled":      true,
		"expansion_applied":   false,
		"latency_ms":          12.5,
		"remote":              false,
		"job_id":              nil,
		"subagent_id":         nil,
	}
	for k, v := range want {
		if gb, _ := json.Marshal(q[k]); string(gb) != mustJSON(v) {
			t.Errorf("query row %s = %s, want %s", k, gb, mustJSON(v))
		}
	}
	s := byTool["search"]
	wantSearch := map[string]any{
		"query": "bob", "retrieved_slugs": []any{}, "retrieved_chunk_ids": []any{}, "source_ids": []any{},
		"expand_enabled": nil, "detail": nil, "detail_resolved": nil, "vector_enabled": false,
		"latency_ms": 0.25, "remote": true, "job_id": 7.0, "subagent_id": 9.0,
	}
	for k, v := range wantSearch {
		if gb, _ := json.Marshal(s[k]); string(gb) != mustJSON(v) {
			t.Errorf("search row %s = %s, want %s", k, gb, mustJSON(v))
		}
	}
	if f := failures(t, b.Pool); len(f) != 0 {
		t.Errorf("unexpected failures: %+v", f)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSwitchAndScrubSetting(t *testing.T) {
	t.Parallel()
	const q = "call 415-555-0199 or mail bob@example.org"
	tests := []struct {
		name string
		cfg  evalconfig.Settings
		want []string // stored queries
	}{
		{"capture off stores nothing", evalconfig.Settings{Capture: false, ScrubPII: true}, nil},
		{"scrubbed by default", on, []string{scrub.Scrub(q)}},
		{"scrub_pii false keeps the text", evalconfig.Settings{Capture: true, ScrubPII: false}, []string{q}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := dbtest.Open(t)
			r := New(b.Pool, tc.cfg, t.TempDir(), nil)
			r.Record(context.Background(), queryResponse(q), Caller{})
			closeRecorder(t, r)
			var got []string
			for _, row := range rows(t, b.Pool) {
				got = append(got, row["query"].(string))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("stored %q, want %q", got, tc.want)
			}
			if len(tc.want) > 0 && tc.cfg.ScrubPII && (strings.Contains(got[0], "bob@example.org") || strings.Contains(got[0], "555-0199")) {
				t.Fatalf("PII survived scrubbing: %q", got[0])
			}
		})
	}
}

func TestHostileQueryTextIsCaptured(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	r := New(b.Pool, on, t.TempDir(), nil)
	r.Record(context.Background(), queryResponse("nul\x00byte"), Caller{})
	r.Record(context.Background(), queryResponse("bad\xff\xfeutf8"), Caller{})
	closeRecorder(t, r)
	got := map[string]bool{}
	for _, row := range rows(t, b.Pool) {
		got[row["query"].(string)] = true
	}
	for _, want := range []string{"nul\uFFFDbyte", "bad\uFFFDutf8"} {
		if !got[want] {
			t.Errorf("missing %q in %v", want, got)
		}
	}
	if f := failures(t, b.Pool); len(f) != 0 {
		t.Errorf("unexpected failures: %+v", f)
	}
}

func TestFailuresAreRecordedWithReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		resp   func() *search.Response
		scrub  func(string) string
		reason string
		state  string
	}{
		{"query too long", func() *search.Response { return queryResponse(strings.Repeat("é", 51201)) }, nil, ReasonCheckViolation, "23514"},
		{"unknown tool", func() *search.Response {
			r := queryResponse("q")
			r.Meta.Tool = "grep"
			return r
		}, nil, ReasonCheckViolation, "23514"},
		{"bad detail", func() *search.Response {
			r := queryResponse("q")
			r.Meta.Detail = ptr("extreme")
			return r
		}, nil, ReasonCheckViolation, "23514"},
		{"scrubber panic", func() *search.Response { return queryResponse("secret alice@example.com") },
			func(string) string { panic("boom alice@example.com") }, ReasonScrubberException, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := dbtest.Open(t)
			home := t.TempDir()
			r := New(b.Pool, on, home, nil)
			if tc.scrub != nil {
				r.scrub = tc.scrub
			}
			r.Record(context.Background(), tc.resp(), Caller{})
			closeRecorder(t, r)
			if n := len(rows(t, b.Pool)); n != 0 {
				t.Fatalf("%d candidate rows stored, want 0", n)
			}
			f := failures(t, b.Pool)
			if len(f) != 1 || f[0].Reason != tc.reason || f[0].SQLState != tc.state || f[0].Spooled {
				t.Fatalf("failures = %+v, want one %s (%s)", f, tc.reason, tc.state)
			}
			if strings.Contains(f[0].Message, "alice@example.com") || strings.Contains(f[0].Message, "ééé") {
				t.Fatalf("failure message leaks the query: %q", f[0].Message)
			}
			if n, _ := NewSpool(home).Pending(); n != 0 {
				t.Fatalf("%d failures spooled although the database was up", n)
			}
		})
	}
}

// TestPermissionRejection runs capture as a role that row-level security
// refuses: the failure is rls_reject and still reaches the failures table.
func TestPermissionRejection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := testdb.New(t)
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	role := "pgbrain_capture_rls_" + hex.EncodeToString(suffix)
	for _, stmt := range []string{
		`CREATE ROLE ` + role + ` LOGIN NOSUPERUSER`,
		`GRANT USAGE ON SCHEMA brain TO ` + role,
		`GRANT INSERT ON brain.eval_candidates, brain.eval_capture_failures TO ` + role,
		`GRANT USAGE ON ALL SEQUENCES IN SCHEMA brain TO ` + role,
		`ALTER TABLE brain.eval_candidates ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY capture_refused ON brain.eval_candidates FOR INSERT TO ` + role + ` WITH CHECK (false)`,
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), u)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		c.Exec(context.Background(), `DROP OWNED BY `+role)
		c.Exec(context.Background(), `DROP ROLE IF EXISTS `+role)
	})
	pu, _ := url.Parse(u)
	q := pu.Query()
	q.Set("user", role)
	pu.RawQuery = q.Encode()
	pu.User = url.User(role)
	pool, err := pgxpool.New(ctx, pu.String())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	r := New(pool, on, t.TempDir(), nil)
	r.Record(ctx, queryResponse("q"), Caller{})
	closeRecorder(t, r)
	var reason, state string
	if err := admin.QueryRow(ctx, `SELECT reason, sqlstate FROM brain.eval_capture_failures`).Scan(&reason, &state); err != nil {
		t.Fatalf("reading the failure: %v", err)
	}
	if reason != ReasonRLSReject || state != "42501" {
		t.Fatalf("failure %s (%s), want rls_reject (42501)", reason, state)
	}
}

// TestDatabaseDownIsSpooledThenWritten: a capture against an unreachable
// server lands in the spool, and the next recorder that reaches the
// database writes it to the table exactly once.
func TestDatabaseDownIsSpooledThenWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := t.TempDir()
	down, err := pgxpool.New(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=2&sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	r := New(down, on, home, nil)
	r.Record(ctx, queryResponse("q1"), Caller{})
	r.Record(ctx, &search.Response{Query: "q2", Meta: search.Meta{Tool: "search"}}, Caller{})
	closeRecorder(t, r)
	spool := NewSpool(home)
	if n, err := spool.Pending(); err != nil || n != 2 {
		t.Fatalf("spool holds %d (%v), want 2", n, err)
	}
	// A crash between commit and truncate replays a line: it must not count twice.
	data, _ := os.ReadFile(spool.Path())
	first := strings.SplitAfter(string(data), "\n")[0]
	if err := os.WriteFile(spool.Path(), []byte(string(data)+first+"not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	b := dbtest.Open(t)
	r2 := New(b.Pool, on, home, nil) // flushes in the background
	r2.Record(ctx, queryResponse("q3"), Caller{})
	closeRecorder(t, r2)
	if n, _ := spool.Pending(); n != 0 {
		t.Fatalf("spool still holds %d lines", n)
	}
	f := failures(t, b.Pool)
	var down2, other int
	for _, x := range f {
		switch {
		case x.Reason == ReasonDBDown && x.Spooled:
			down2++
		case x.Reason == ReasonOther && x.Spooled && strings.Contains(x.Message, "unreadable line"):
			other++
		default:
			t.Errorf("unexpected failure %+v", x)
		}
	}
	if down2 != 2 || other != 1 {
		t.Fatalf("failures %+v: want 2 spooled db_down and 1 unreadable line", f)
	}
	if n := len(rows(t, b.Pool)); n != 1 {
		t.Fatalf("%d candidates, want the one recorded while up", n)
	}
}

// TestRecordDoesNotWaitForTheDatabase holds a lock that blocks every insert:
// Record must still return, and Close must drain once the lock goes.
func TestRecordDoesNotWaitForTheDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	tx, err := b.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE brain.eval_candidates IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	r := New(b.Pool, on, t.TempDir(), nil)
	returned := make(chan struct{})
	go func() {
		r.Record(ctx, queryResponse("blocked"), Caller{})
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(30 * time.Second):
		t.Fatal("Record waited for the blocked insert")
	}
	if r.pending.Load() != 1 {
		t.Fatalf("pending = %d, want the blocked capture", r.pending.Load())
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	closeRecorder(t, r)
	if n := len(rows(t, b.Pool)); n != 1 {
		t.Fatalf("%d rows after drain, want 1", n)
	}
}

// TestCloseTimeoutSpoolsPending: captures still blocked when the drain
// timeout ends are spooled, not lost.
func TestCloseTimeoutSpoolsPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	tx, err := b.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE brain.eval_candidates IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	var stderr strings.Builder
	r := New(b.Pool, on, home, &syncWriter{b: &stderr})
	r.Record(ctx, queryResponse("blocked"), Caller{})
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := r.Close(cctx); err == nil {
		t.Fatal("Close reported success with a capture still blocked")
	}
	if n, _ := NewSpool(home).Pending(); n != 1 {
		t.Fatalf("spool holds %d, want the abandoned capture", n)
	}
	if !strings.Contains(stderr.String(), "did not finish") {
		t.Fatalf("stderr = %q", stderr.String())
	}
}

func TestNilRecorderIsSafe(t *testing.T) {
	var r *Recorder
	r.Record(context.Background(), queryResponse("q"), Caller{})
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
