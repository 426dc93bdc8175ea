package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/testdb"
)

// An import or a put leaves nothing in the GIN indexes' pending lists,
// which every search would read whole until autovacuum merged them; a
// plain INSERT does leave entries there, so the check can see them.
func TestImportSettlesTextIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	var docs []ingest.Doc
	for i := range 200 {
		docs = append(docs, ingest.Doc{Slug: fmt.Sprintf("notes/page-%d", i), Data: []byte(fmt.Sprintf(
			"# Page %d\n\n%s\n", i, strings.Repeat(fmt.Sprintf("Word%d and lexeme%d stand beside common words. ", i, i*7), 20)))})
	}
	sum, err := ingest.ImportDocs(ctx, b, docs, ingest.Options{NoEmbed: true})
	if err != nil || sum.Added != 200 {
		t.Fatalf("import: %+v, %v", sum, err)
	}
	var pending int64
	if err := b.Pool.QueryRow(ctx, `SELECT brain.settle_text_indexes()`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending != 0 {
		t.Errorf("after the import, settling emptied %d pending pages, want 0 (the import settles them)", pending)
	}
	// A page put on its own is settled too.
	if _, err := ingest.PutPage(ctx, b, "notes/put", []byte("# Put\n\n"+strings.Repeat("A page written on its own, with words. ", 200)), ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if err := b.Pool.QueryRow(ctx, `SELECT brain.settle_text_indexes()`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending != 0 {
		t.Errorf("after a put, settling emptied %d pending pages, want 0 (put settles them)", pending)
	}
	if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.pages (slug, title, body, content_hash)
		VALUES ('x/direct', 'direct insert', 'body', repeat('a', 64));
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT id, 0, 'compiled_truth', 'A chunk written straight into the table, outside an import.' FROM brain.pages WHERE slug = 'x/direct'`); err != nil {
		t.Fatal(err)
	}
	if err := b.Pool.QueryRow(ctx, `SELECT brain.settle_text_indexes()`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending == 0 {
		t.Error("after a plain INSERT, settling emptied no pending page: the indexes keep no pending list, so this test checks nothing")
	}
}

// Settling is for roles that write pages: a reader or an agent is refused,
// a writer is not.
func TestSettleTextIndexesIsForWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	for _, c := range []struct {
		role string
		ok   bool
	}{{"pgbrain_reader", false}, {"pgbrain_agent", false}, {"pgbrain_auditor", false}, {"pgbrain_writer", true}} {
		tx, err := b.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+c.role); err != nil {
			t.Fatalf("SET ROLE %s: %v", c.role, err)
		}
		_, err = tx.Exec(ctx, `SELECT brain.settle_text_indexes()`)
		_ = tx.Rollback(ctx)
		var pgErr *pgconn.PgError
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v, want it to settle", c.role, err)
		case !c.ok && (!errors.As(err, &pgErr) || pgErr.Code != "42501"):
			t.Errorf("%s: err = %v, want insufficient_privilege (42501)", c.role, err)
		}
	}
}
