package export

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/testdb"
)

// makeRole runs CREATE ROLE name attrs and then each statement (grants and
// the like, naming the role as %[1]s), and drops the role and what it owns
// at cleanup. Without pg_read_all_stats the role cannot see when other
// roles' transactions started.
func makeRole(t *testing.T, u, name, attrs string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), u)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		c.Exec(context.Background(), `DROP OWNED BY `+name)
		c.Exec(context.Background(), `DROP ROLE IF EXISTS `+name)
	})
	for _, stmt := range append([]string{`CREATE ROLE %[1]s ` + attrs}, stmts...) {
		stmt = fmt.Sprintf(stmt, name)
		if _, err := admin.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// asRole creates a login role that may capture queries and connects as it.
func asRole(t *testing.T, u, name, appName string) *pgx.Conn {
	t.Helper()
	makeRole(t, u, name, `LOGIN NOSUPERUSER`,
		`GRANT USAGE ON SCHEMA brain TO %[1]s`,
		`GRANT INSERT ON brain.eval_candidates TO %[1]s`,
		`GRANT USAGE ON ALL SEQUENCES IN SCHEMA brain TO %[1]s`)
	pu, _ := url.Parse(u)
	q := pu.Query()
	q.Set("user", name)
	q.Set("application_name", appName)
	pu.RawQuery = q.Encode()
	pu.User = url.User(name)
	conn, err := pgx.Connect(context.Background(), pu.String())
	if err != nil {
		t.Fatal(err)
	}
	// Registered after makeRole's, so it runs first: the role is dropped
	// once its session has ended.
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// ownedBy makes a role without pg_read_all_stats own brain.eval_window_end
// in this test's database.
func ownedBy(t *testing.T, u, name string) {
	t.Helper()
	makeRole(t, u, name, `NOLOGIN NOSUPERUSER`,
		`GRANT USAGE ON SCHEMA brain TO %[1]s`,
		`ALTER FUNCTION brain.eval_window_end() OWNER TO %[1]s`)
}

// An export run as pgbrain_reader by SET ROLE from the login that
// installed the schema (what the CLI does) is not held up by that login's
// own open write, which pgbrain_reader alone may not see the start of: the
// window ends at the write's start, at once.
func TestWindowEndAsReaderSeesItsLoginsOwnWrites(t *testing.T) {
	t.Parallel()
	u := testdb.New(t)
	ctx := context.Background()
	writer, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close(ctx)
	tx, err := writer.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var started time.Time
	var xid int64
	if err := tx.QueryRow(ctx, `SELECT now(), txid_current()`).Scan(&started, &xid); err != nil {
		t.Fatal(err)
	}
	reader, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close(ctx)
	for _, stmt := range []string{`SET ROLE pgbrain_reader`, `SET brain.eval_window_timeout = '0'`} {
		if _, err := reader.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var hidden bool
	if err := reader.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		WHERE backend_xid IS NOT NULL AND xact_start IS NULL AND datname = current_database())`).Scan(&hidden); err != nil {
		t.Fatal(err)
	}
	if !hidden {
		t.Fatal("pgbrain_reader sees the start of its login's other transaction; the test proves nothing")
	}
	var end time.Time
	if err := reader.QueryRow(ctx, `SELECT brain.eval_window_end()`).Scan(&end); err != nil {
		t.Fatalf("window end as pgbrain_reader beside the login's open write: %v", err)
	}
	if end.After(started) {
		t.Errorf("window end %v is after the open write's start %v", end, started)
	}
}

// TestWindowEndWaitIsBounded: a transaction holding a transaction id whose
// start the exporting role cannot see makes brain.eval_window_end wait; it
// waits at most brain.eval_window_timeout and then fails naming the session,
// and it returns as soon as that transaction ends within the limit.
func TestWindowEndWaitIsBounded(t *testing.T) {
	t.Parallel()
	u := testdb.New(t)
	ctx := context.Background()
	suffix := make([]byte, 5)
	_, _ = rand.Read(suffix)
	tag := hex.EncodeToString(suffix)
	writer := asRole(t, u, "pgbrain_ww_writer_"+tag, "stuck-writer-"+tag)
	reader := asRole(t, u, "pgbrain_ww_reader_"+tag, "exporter")
	// The function reads pg_stat_activity with its owner's rights: owned by
	// a role without pg_read_all_stats, the writer's start is hidden from it.
	ownedBy(t, u, "pgbrain_ww_owner_"+tag)
	var writerPID int
	if err := writer.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&writerPID); err != nil {
		t.Fatal(err)
	}
	begin := func() pgx.Tx {
		tx, err := writer.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO brain.eval_candidates (tool_name, query, vector_enabled, latency_ms)
			VALUES ('query', 'held open', false, 1)`); err != nil {
			t.Fatal(err)
		}
		return tx
	}

	t.Run("fails after the timeout naming the session", func(t *testing.T) {
		tx := begin()
		defer tx.Rollback(ctx)
		for _, timeout := range []string{"0", "150ms"} {
			if _, err := reader.Exec(ctx, `SELECT set_config('brain.eval_window_timeout', $1, false)`, timeout); err != nil {
				t.Fatal(err)
			}
			var end time.Time
			err := reader.QueryRow(ctx, `SELECT brain.eval_window_end()`).Scan(&end)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
				t.Fatalf("timeout %s: got %v (end %v), want SQLSTATE 55P03", timeout, err, end)
			}
			for _, want := range []string{fmt.Sprintf("pid %d", writerPID), "stuck-writer-" + tag, "pgbrain_ww_writer_" + tag, "xact_start"} {
				if !strings.Contains(pgErr.Message, want) {
					t.Errorf("timeout %s: message %q does not name %q", timeout, pgErr.Message, want)
				}
			}
			if !strings.Contains(pgErr.Hint, "brain.eval_window_timeout") || !strings.Contains(pgErr.Hint, "pg_read_all_stats") {
				t.Errorf("hint %q does not say how to fix it", pgErr.Hint)
			}
		}
	})

	t.Run("returns once the transaction ends", func(t *testing.T) {
		tx := begin()
		defer tx.Rollback(ctx)
		if _, err := reader.Exec(ctx, `SELECT set_config('brain.eval_window_timeout', '5min', false)`); err != nil {
			t.Fatal(err)
		}
		var readerPID int
		if err := reader.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&readerPID); err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		go func() {
			var end time.Time
			got <- reader.QueryRow(ctx, `SELECT brain.eval_window_end()`).Scan(&end)
		}()
		// The event: the reader is seen waiting in its loop.
		watch, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer watch.Close(ctx)
		for waiting := false; !waiting; {
			select {
			case err := <-got:
				t.Fatalf("window end returned (%v) while the transaction was still open", err)
			default:
			}
			// Each statement outside a transaction reads pg_stat_activity afresh.
			if err := watch.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
				WHERE pid = $1 AND wait_event = 'PgSleep')`, readerPID).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatalf("window end after the transaction committed: %v", err)
		}
	})
}

// A timeout that is no interval is an error naming the setting, even when
// there is nothing to wait for.
func TestWindowEndNamesABadTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testdb.New(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, v := range []string{"soon", "5 parsecs"} {
		if _, err := conn.Exec(ctx, `SELECT set_config('brain.eval_window_timeout', $1, false)`, v); err != nil {
			t.Fatal(err)
		}
		_, err := conn.Exec(ctx, `SELECT brain.eval_window_end()`)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || !strings.Contains(pgErr.Message, "brain.eval_window_timeout") ||
			!strings.Contains(pgErr.Message, v) || !strings.Contains(pgErr.Hint, "30s") {
			t.Errorf("timeout %q: %v, want an error naming the setting, its value and an example", v, err)
		}
	}
	if _, err := conn.Exec(ctx, `SELECT set_config('brain.eval_window_timeout', '2s', false)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT brain.eval_window_end()`); err != nil {
		t.Fatalf("a valid timeout: %v", err)
	}
}
