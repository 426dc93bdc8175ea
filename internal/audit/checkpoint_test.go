package audit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/testdb"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

func problemNames(ps []audit.Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Problem)
	}
	return out
}

func checkpointed(t *testing.T, n int) (*pgx.Conn, string) {
	t.Helper()
	conn := connect(t, testdb.New(t))
	record(t, audit.NewWriter(conn, nil), n)
	path := filepath.Join(t.TempDir(), audit.CheckpointFile)
	cp, err := audit.WriteCheckpoint(context.Background(), conn, path, testKey, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if cp.HeadID != int64(n) {
		t.Fatalf("checkpoint head %d, want %d", cp.HeadID, n)
	}
	return conn, path
}

// TestCheckpointCatchesTailTruncation is issue 14's finding: deleting the
// newest row leaves a chain that verifies; the checkpoint catches it.
func TestCheckpointCatchesTailTruncation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, path := checkpointed(t, 5)
	ps, held, err := audit.VerifyCheckpoints(ctx, conn, path, testKey)
	if err != nil || len(ps) != 0 || held != 1 {
		t.Fatalf("before tampering: %v %d %v, want one checkpoint holding", ps, held, err)
	}
	tamper(t, conn, `DELETE FROM brain.audit_log WHERE id = (SELECT max(id) FROM brain.audit_log)`)
	if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
		t.Fatalf("the chain alone now reports %v; the finding was that it sees nothing", p)
	}
	ps, held, err = audit.VerifyCheckpoints(ctx, conn, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if held != 0 || len(ps) != 1 || ps[0].Problem != "truncated" || ps[0].ID != 5 || !strings.Contains(ps[0].Detail, "ends at row 4") {
		t.Fatalf("after deleting row 5: %+v, want one truncated problem naming rows 5 and 4", ps)
	}
}

// TestCheckpointCatchesConsistentRewrite: rows deleted and inserted again,
// changed, through the chain trigger, give a chain that verifies; the
// checkpoint's anchored hash no longer matches.
func TestCheckpointCatchesConsistentRewrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, path := checkpointed(t, 6)
	tamper(t, conn, `DELETE FROM brain.audit_log WHERE id >= 3`)
	w := audit.NewWriter(conn, nil)
	for i := 3; i <= 6; i++ {
		e := entry(i)
		e.Status, e.RefusalReason, e.PIICategories, e.CostClass = audit.StatusSuccess, "", nil, "search"
		if _, err := w.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
		t.Fatalf("the rewritten chain reports %v; a consistent rewrite should verify", p)
	}
	ps, _, err := audit.VerifyCheckpoints(ctx, conn, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Problem != "rewritten" || ps[0].ID != 6 {
		t.Fatalf("after the rewrite: %+v, want one rewritten problem at row 6", ps)
	}
}

// TestCheckpointForgery: a checkpoint edited to match a rewritten chain, or
// checked under another key, does not hold; lines that are not
// checkpoints are reported.
func TestCheckpointForgery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, path := checkpointed(t, 3)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var hash string
	if err := conn.QueryRow(ctx, `SELECT encode(chain_hash, 'hex') FROM brain.audit_log WHERE id = 2`).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(strings.Replace(string(data), `"head_id":3`, `"head_id":2`, 1), hashOf(t, conn, 3), hash, 1)
	if err := os.WriteFile(path, []byte(edited+"not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ps, held, err := audit.VerifyCheckpoints(ctx, conn, path, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(problemNames(ps), ","); held != 0 || got != "checkpoint_unreadable,checkpoint_forged" {
		t.Fatalf("edited file: %+v (held %d), want unreadable and forged", ps, held)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ps, _, err = audit.VerifyCheckpoints(ctx, conn, path, []byte("another key, 32 bytes or longer.."))
	if err != nil || len(ps) != 1 || ps[0].Problem != "checkpoint_forged" {
		t.Fatalf("under another key: %+v %v, want forged", ps, err)
	}
}

func hashOf(t *testing.T, c *pgx.Conn, id int) string {
	t.Helper()
	var h string
	if err := c.QueryRow(context.Background(), `SELECT encode(chain_hash, 'hex') FROM brain.audit_log WHERE id = $1`, id).Scan(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestCheckpointRefusesBrokenChain: anchoring a chain that does not verify
// would bless the tampering.
func TestCheckpointRefusesBrokenChain(t *testing.T) {
	t.Parallel()
	conn, path := checkpointed(t, 3)
	record(t, audit.NewWriter(conn, nil), 2)
	tamper(t, conn, `UPDATE brain.audit_log SET caller = 'someone else' WHERE id = 4`)
	_, err := audit.WriteCheckpoint(context.Background(), conn, path, testKey, time.Now())
	if !errors.Is(err, audit.ErrChainInvalid) || !strings.Contains(err.Error(), "row 4") {
		t.Fatalf("WriteCheckpoint on a tampered chain: %v, want ErrChainInvalid naming row 4", err)
	}
	cps, _, err := audit.ReadCheckpoints(path)
	if err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints %v (%v), want only the first", cps, err)
	}
}

func TestLoadKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, audit.KeyFile)
	key, created, err := audit.LoadKey("", path, true)
	if err != nil || !created || len(key) < 32 {
		t.Fatalf("first use: %q %v %v", key, created, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("new key mode %v, want 0600", fi.Mode().Perm())
	}
	again, created, err := audit.LoadKey("", path, true)
	if err != nil || created || string(again) != string(key) {
		t.Fatalf("second use: %q %v %v, want the same key", again, created, err)
	}
	if _, _, err := audit.LoadKey("short", "", false); err == nil || !strings.Contains(err.Error(), audit.EnvKey) {
		t.Errorf("short env key: %v", err)
	}
	if k, _, err := audit.LoadKey(string(testKey), "", false); err != nil || string(k) != string(testKey) {
		t.Errorf("env key: %q %v", k, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := audit.LoadKey("", path, false); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("readable key: %v, want a refusal saying chmod 600", err)
	}
	link := filepath.Join(dir, "link.key")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := audit.LoadKey("", link, false); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("linked key: %v, want a refusal", err)
	}
	if _, _, err := audit.LoadKey("", filepath.Join(dir, "none"), false); err == nil || !strings.Contains(err.Error(), "audit checkpoint") {
		t.Errorf("missing key: %v, want the command that makes one", err)
	}
}

// TestSessionGaps: a stopped serve session whose calls left no rows is
// reported; sessions with their rows, without audit, or still running are not.
func TestSessionGaps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	w := audit.NewWriter(conn, nil)
	for i := 0; i < 2; i++ {
		if _, err := w.Record(ctx, audit.Entry{SessionID: "kept", Tool: "query", Status: "success", CostClass: "search"}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	ew, err := events.Open(path, events.Options{})
	if err != nil {
		t.Fatal(err)
	}
	session := func(id, start string, calls int, stop bool) {
		ew.Write(events.Event{ServerSessionID: id, Kind: events.KindServerEvent, EventSubtype: events.SubtypeServerStart, Message: start})
		for i := 0; i < calls; i++ {
			ew.Write(events.Event{ServerSessionID: id, Kind: events.KindToolCall, ToolName: "query", Status: events.StatusSuccess})
		}
		if stop {
			ew.Write(events.Event{ServerSessionID: id, Kind: events.KindServerEvent, EventSubtype: events.SubtypeServerStop})
		}
	}
	session("kept", "serving over MCP", 2, true)
	session("lost", "serving over MCP", 3, true)
	session("off", "serving over MCP "+audit.AuditOffMarker, 3, true)
	session("running", "serving over MCP", 3, false)
	session("idle", "serving over MCP", 0, true)
	ew.Close()
	sessions, err := audit.SessionsFromEvents(events.RotatedPath(path), path)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := audit.SessionGaps(ctx, conn, sessions, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Problem != "missing_session_rows" || !strings.Contains(ps[0].Detail, "session lost stopped after 3 tool calls") ||
		!strings.Contains(ps[0].Detail, "has 0 rows") {
		t.Fatalf("gaps %+v, want one for session lost", ps)
	}
}
