package brain_test

import (
	"context"
	"strings"
	"testing"
	"time"

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
	if _, err := b.RemoveSource(ctx, "nosuch", false); err == nil || !strings.Contains(err.Error(), `source "nosuch" does not exist`) {
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
			n   int64
			err error
		}
		done := make(chan result, 1)
		go func() {
			n, err := b.RemoveSource(ctx, id, withPages)
			done <- result{n, err}
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
		var left int
		if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.pages WHERE source_id = $1`, id).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if !withPages {
			if r.err == nil || !strings.Contains(r.err.Error(), "still has 1 pages") || left != 1 {
				t.Errorf("without --with-pages: (%d, %v), %d pages left; want a refusal naming the page, and the page kept", r.n, r.err, left)
			}
		} else if r.err != nil || r.n != 1 || left != 0 {
			t.Errorf("with --with-pages: (%d, %v), %d pages left; want 1 deleted and reported", r.n, r.err, left)
		}
	}
}
