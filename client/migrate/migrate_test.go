package migrate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func connect(t *testing.T, opts ...testdb.Options) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testdb.New(t, opts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

func TestMigrateIsIdempotentAndRecordsSettings(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, testdb.Options{Dim: 64})
	latest, err := migrate.Latest()
	if err != nil {
		t.Fatal(err)
	}
	// A second run, even with other options, changes nothing.
	if err := migrate.Up(ctx, conn, migrate.Options{Dim: 128}); err != nil {
		t.Fatal(err)
	}
	v, err := migrate.Version(ctx, conn)
	if err != nil || v != latest {
		t.Fatalf("version = %d, %v; want %d", v, err, latest)
	}
	s, ok, err := migrate.ReadSettings(ctx, conn)
	if err != nil || !ok {
		t.Fatalf("settings: %v %v", ok, err)
	}
	if s.Dim != 64 || s.Embedder != "local" {
		t.Fatalf("settings = %+v, want dim 64 local", s)
	}
	var dims int
	if err := conn.QueryRow(ctx, `SELECT vector_dims(brain.embed_local('hello world'))`).Scan(&dims); err != nil {
		t.Fatal(err)
	}
	if dims != 64 {
		t.Fatalf("embed_local dims = %d, want 64", dims)
	}
}

func TestMigrateRejectsBadOptions(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts migrate.Options
		want string
	}{
		{"dim too big", migrate.Options{Dim: 5000}, "out of range"},
		{"unknown embedder", migrate.Options{Embedder: "magic"}, "unknown embedder"},
		{"model with quote", migrate.Options{EmbedModel: "x'; drop table"}, "not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := pgx.Connect(ctx, testdbEmpty(t))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			err = migrate.Up(ctx, conn, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestEmbedLocal(t *testing.T) {
	ctx := context.Background()
	conn := connect(t)
	var same, normalised bool
	var empty *string
	err := conn.QueryRow(ctx, `SELECT brain.embed_local('Hello hello world') = brain.embed_local('Hello hello world'),
		abs(vector_norm(brain.embed_local('Hello world')) - 1) < 1e-5,
		brain.embed_local('the of and')::text`).Scan(&same, &normalised, &empty)
	if err != nil {
		t.Fatal(err)
	}
	if !same || !normalised || empty != nil {
		t.Fatalf("deterministic=%v normalised=%v stopwords-only=%v (want true true nil)", same, normalised, empty)
	}
	var near, far float64
	err = conn.QueryRow(ctx, `SELECT brain.embed_local('parse url query string') <=> brain.embed_local('parsing a URL query'),
		brain.embed_local('parse url query string') <=> brain.embed_local('gzip compression writer')`).Scan(&near, &far)
	if err != nil {
		t.Fatal(err)
	}
	if near >= far {
		t.Fatalf("cosine distance of related texts %.3f should be below unrelated %.3f", near, far)
	}
}

func TestChecksRejectBadRows(t *testing.T) {
	ctx := context.Background()
	conn := connect(t)
	insertPage := `INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ($1, $2, 'x', repeat('a', 64)) RETURNING id`
	var id int64
	if err := conn.QueryRow(ctx, insertPage, "people/alice", "Alice").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sql  string
		args []any
	}{
		{"upper-case slug", insertPage, []any{"People/Alice", "A"}},
		{"slug with .md", insertPage, []any{"a b", "A"}},
		{"empty title", insertPage, []any{"ok", ""}},
		{"bad content hash", `INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ('b', 'B', 'x', 'nothex')`, nil},
		{"empty chunk", `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text) VALUES ($1, 0, 'compiled_truth', E' \n ')`, []any{id}},
		{"wrong chunk source", `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text) VALUES ($1, 0, 'notes', 'hi')`, []any{id}},
		{"oversized chunk", `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text) VALUES ($1, 0, 'timeline', repeat('x', 70000))`, []any{id}},
		{"bad source id", `INSERT INTO brain.sources (id, name) VALUES ('Bad Id', 'x')`, nil},
		{"boost factor zero", `INSERT INTO brain.source_boosts (prefix, factor) VALUES ('go/', 0)`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := conn.Exec(ctx, tc.sql, tc.args...)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "23514" {
				t.Fatalf("err = %v, want a CHECK violation (23514)", err)
			}
		})
	}
}

func TestTsvAndEmbeddingMaintainedInSQL(t *testing.T) {
	ctx := context.Background()
	conn := connect(t)
	var pageID int64
	if err := conn.QueryRow(ctx, `INSERT INTO brain.pages (slug, title, body, content_hash)
		VALUES ('go/strings', 'Package strings', 'x', repeat('a', 64)) RETURNING id`).Scan(&pageID); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text, tsv)
		VALUES ($1, 0, 'compiled_truth', 'Builder appends efficiently', 'forged:1'), ($1, 1, 'timeline', '2012: added in go1', NULL)`, pageID); err != nil {
		t.Fatal(err)
	}
	var tsv0, tsv1 string
	var hasVec bool
	if err := conn.QueryRow(ctx, `SELECT (SELECT tsv::text FROM brain.chunks WHERE chunk_index = 0),
		(SELECT tsv::text FROM brain.chunks WHERE chunk_index = 1),
		(SELECT bool_and(embedding IS NOT NULL) FROM brain.chunks)`).Scan(&tsv0, &tsv1, &hasVec); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"'packag':1A", "'string':2A", "'builder':3B", "'append':4B"} {
		if !strings.Contains(tsv0, want) {
			t.Errorf("compiled chunk tsv %s lacks %s", tsv0, want)
		}
	}
	if strings.Contains(tsv0, "forged") {
		t.Errorf("a supplied tsv was kept: %s", tsv0)
	}
	if !strings.Contains(tsv1, "'ad':4C") && !strings.Contains(tsv1, "'ad':") {
		t.Errorf("timeline chunk tsv %s lacks its words", tsv1)
	}
	if !strings.Contains(tsv1, "C") {
		t.Errorf("timeline chunk tsv %s is not weighted C", tsv1)
	}
	if !hasVec {
		t.Error("local embedder trigger left a chunk without an embedding")
	}
	// A title change reaches every chunk's tsvector.
	if _, err := conn.Exec(ctx, `UPDATE brain.pages SET title = 'Package bytes' WHERE id = $1`, pageID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.chunks WHERE tsv @@ 'byte'::tsquery AND embedding IS NOT NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("%d chunks carry the new title, want 2", n)
	}
	// Deferred embedding leaves chunks stale until embed_stale fills them.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL brain.embed = 'off'`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text) VALUES ($1, 2, 'compiled_truth', 'later')`, pageID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var filled int64
	if err := conn.QueryRow(ctx, `SELECT brain.embed_stale(100)`).Scan(&filled); err != nil {
		t.Fatal(err)
	}
	if filled != 1 {
		t.Fatalf("embed_stale filled %d, want 1", filled)
	}
}

// testdbEmpty returns a fresh database with the brain schema removed, as a
// user's empty database would be.
func testdbEmpty(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	u := testdb.New(t)
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP SCHEMA brain CASCADE; DROP TABLE `+migrate.VersionTable); err != nil {
		t.Fatal(err)
	}
	return u
}
