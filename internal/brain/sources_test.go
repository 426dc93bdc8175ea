package brain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
)

// RemoveSource counts and deletes under a lock on the source's row: a
// writer still adding a page to the source makes it wait, and then refuse
// (the page is not deleted behind the caller's back) or, with pages,
// delete exactly what it reports.
func TestRemoveSourceWaitsForWritersAndCountsWhatItDeletes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	if _, err := b.RemoveSource(ctx, "nosuch", false, nil); err == nil || !strings.Contains(err.Error(), `source "nosuch" does not exist`) {
		t.Errorf("removing a source that does not exist: %v, want it named as missing", err)
	}
	for _, withPages := range []bool{false, true} {
		id := "work"
		if withPages {
			id = "work2"
		}
		if err := b.AddSource(ctx, id, id); err != nil {
			t.Fatal(err)
		}
		writer, err := b.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// On a failure below, the rollback lets a blocked remover finish.
		defer writer.Rollback(ctx)
		if _, err := writer.Exec(ctx, `INSERT INTO brain.pages (source_id, slug, title, body, content_hash)
			VALUES ($1, 'late', 'Late', 'written while the source is removed', repeat('a', 64))`, id); err != nil {
			t.Fatal(err)
		}
		type result struct {
			n      int64
			err    error
			waited bool // the waiting callback ran
		}
		done := make(chan result, 1)
		go func() {
			waited := false
			n, err := b.RemoveSource(ctx, id, withPages, func() { waited = true })
			done <- result{n, err, waited}
		}()
		// The remover must wait for the writer's lock on the source row.
		deadline := time.Now().Add(10 * time.Second)
		for {
			var waiting bool
			if err := b.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
			if waiting {
				break
			}
			select {
			case r := <-done:
				t.Fatalf("with pages %v: RemoveSource returned (%d, %v) while a writer was adding a page; want it to wait", withPages, r.n, r.err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("with pages %v: RemoveSource never waited on the writer's lock", withPages)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := writer.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if !r.waited {
			t.Errorf("with pages %v: RemoveSource waited for the writer without calling its waiting callback (the CLI says nothing)", withPages)
		}
		var left int
		if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.pages WHERE source_id = $1`, id).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if !withPages {
			if r.err == nil || !strings.Contains(r.err.Error(), "still has 1 page:") || left != 1 {
				t.Errorf("without --with-pages: (%d, %v), %d pages left; want a refusal naming the page, and the page kept", r.n, r.err, left)
			}
		} else if r.err != nil || r.n != 1 || left != 0 {
			t.Errorf("with --with-pages: (%d, %v), %d pages left; want 1 deleted and reported", r.n, r.err, left)
		}
	}
}

// An import and a source removal take the source's row first, so they
// queue instead of deadlocking. The import here holds a page of the source
// (a first batch changed it) when the removal starts, then adds a page (a
// second batch in the same transaction): the order in which one
// brain.import_apply call locks a changed page's chunks and then inserts a
// new page. Without the import's lock on the source row, the removal
// takes that row, waits for the page, and the import waits for the row.
func TestRemoveSourceQueuesBehindAnImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	if err := b.AddSource(ctx, "work", "work"); err != nil {
		t.Fatal(err)
	}
	apply := func(tx pgx.Tx, slug, body string) error {
		if _, err := tx.Exec(ctx, `SELECT brain.import_begin()`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO pg_temp.import_pages (slug, title, type, body, timeline, frontmatter, content_hash)
			VALUES ($1, $1, 'note', $2, '', '{}', md5($2) || md5($2))`, slug, body); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO pg_temp.import_chunks (slug, chunk_index, chunk_source, text)
			VALUES ($1, 0, 'compiled_truth', $2)`, slug, body); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT * FROM brain.import_apply('work')`)
		return err
	}
	if err := pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error { return apply(tx, "old", "first version") }); err != nil {
		t.Fatal(err)
	}
	writer, err := b.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Rollback(ctx)
	if err := apply(writer, "old", "second version"); err != nil {
		t.Fatalf("changing a page of the source: %v", err)
	}
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := b.RemoveSource(ctx, "work", true, nil)
		done <- result{n, err}
	}()
	waitForLock(t, b)
	if err := apply(writer, "new", "added by the same import"); err != nil {
		t.Errorf("adding a page while the source is being removed: %v", err)
	}
	if err := writer.Commit(ctx); err != nil {
		t.Errorf("committing the import: %v", err)
	}
	if r := <-done; r.err != nil || r.n != 2 {
		t.Errorf("RemoveSource after the import: (%d, %v), want both of its pages deleted", r.n, r.err)
	}

	// The other order: an import that waited for a removal names the
	// source that is gone.
	if err := b.AddSource(ctx, "gone", "gone"); err != nil {
		t.Fatal(err)
	}
	remover, err := b.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer remover.Rollback(ctx)
	if _, err := remover.Exec(ctx, `SELECT FROM brain.sources WHERE id = 'gone' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := remover.Exec(ctx, `DELETE FROM brain.sources WHERE id = 'gone'`); err != nil {
		t.Fatal(err)
	}
	imported := make(chan error, 1)
	go func() {
		imported <- pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT brain.import_begin()`); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO pg_temp.import_pages (slug, title, type, body, timeline, frontmatter, content_hash)
				VALUES ('late', 'Late', 'note', 'late', '', '{}', repeat('b', 64))`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `SELECT * FROM brain.import_apply('gone')`)
			return err
		})
	}()
	waitForLock(t, b)
	if err := remover.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-imported; err == nil || !strings.Contains(err.Error(), `source "gone" does not exist`) {
		t.Errorf("an import into a source removed while it waited: %v, want the source named as missing", err)
	}
}

// waitForLock returns once some session of b's database waits for a lock.
func waitForLock(t *testing.T, b *brain.Brain) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting bool
		if err := b.Pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no session ever waited for a lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Nothing holds the source: RemoveSource neither waits nor says it waits
// (the CLI would print "waiting for a write" for nothing).
func TestRemoveSourceUncontendedDoesNotSayItWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	for _, tt := range []struct {
		id, want string // want: the error, or "" for a removal
	}{
		{"idle", ""},
		{"nosuch", `source "nosuch" does not exist`},
	} {
		if tt.want == "" {
			if err := b.AddSource(ctx, tt.id, tt.id); err != nil {
				t.Fatal(err)
			}
		}
		waited := false
		_, err := b.RemoveSource(ctx, tt.id, true, func() { waited = true })
		if (tt.want == "" && err != nil) || (tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want))) {
			t.Errorf("removing %s: %v, want %q", tt.id, err, tt.want)
		}
		if waited {
			t.Errorf("removing %s, which nothing holds: the waiting callback ran", tt.id)
		}
	}
}

// A source the table would refuse is refused before the INSERT, naming
// what is wrong (the server's log would otherwise quote the whole row),
// and nothing is added.
func TestAddSourceChecksBeforeTheServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	for _, tc := range []struct{ id, name, want string }{
		{"Bad Id", "", `source id "Bad Id" is not valid`},
		{"ok", strings.Repeat("n", 201), "201 characters, over the limit of 200"},
		{"ok", "bad \xff", "is not valid UTF-8"},
	} {
		if err := b.AddSource(ctx, tc.id, tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddSource(%q, %.20q): %v, want it to say %q", tc.id, tc.name, err, tc.want)
		}
	}
	if ok, err := b.SourceExists(ctx, "ok"); err != nil || ok {
		t.Errorf("source ok exists after refused adds: %v %v", ok, err)
	}
	if err := b.AddSource(ctx, "ok", strings.Repeat("n", 200)); err != nil {
		t.Errorf("a 200-character name: %v", err)
	}
}
