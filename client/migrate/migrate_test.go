package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
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

// insertPage stores a page by hand, as a psql user would, and returns its id.
func insertPage(t *testing.T, conn *pgx.Conn, slug, title string) int64 {
	t.Helper()
	var id int64
	if err := conn.QueryRow(context.Background(), `INSERT INTO brain.pages (slug, title, body, content_hash)
		VALUES ($1, $2, 'x', repeat('a', 64)) RETURNING id`, slug, title).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestMigrateIsIdempotentAndRecordsSettings(t *testing.T) {
	t.Parallel()
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
	// brain.config's schema_version, which DBAs read, is tern's version.
	var cfgVersion string
	if err := conn.QueryRow(ctx, `SELECT value FROM brain.config WHERE key = 'schema_version'`).Scan(&cfgVersion); err != nil {
		t.Fatal(err)
	}
	if cfgVersion != fmt.Sprint(latest) {
		t.Errorf("brain.config schema_version = %q, want %d (the version migrated to)", cfgVersion, latest)
	}
	var dims int
	if err := conn.QueryRow(ctx, `SELECT vector_dims(brain.embed_local('hello world'))`).Scan(&dims); err != nil {
		t.Fatal(err)
	}
	if dims != 64 {
		t.Fatalf("embed_local dims = %d, want 64", dims)
	}
}

// A brain at schema version 5 (as released), holding chunks, upgrades in place: doc_len
// keeps its values but is now kept by a trigger, and only a vector that the
// embedder would now compute differently is rewritten.
func TestUpgradeFromVersion5(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := restoreReleased(t, 5)
	pageID := insertPage(t, conn, "p", "Upgrade notes")
	if _, err := conn.Exec(ctx, `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT $1, i, 'compiled_truth', repeat('lanterns glow over quiet harbours ', i + 1) FROM generate_series(0, 2) i`, pageID); err != nil {
		t.Fatal(err)
	}
	// Chunk 1 holds a vector today's embedder would not give it.
	if _, err := conn.Exec(ctx, `UPDATE brain.chunks SET embedding = brain.embed_local('something else') WHERE page_id = $1 AND chunk_index = 1`, pageID); err != nil {
		t.Fatal(err)
	}
	var before string
	if err := conn.QueryRow(ctx, `SELECT string_agg(chunk_index || ':' || doc_len || ':' || xmin, ' ' ORDER BY chunk_index) FROM brain.chunks WHERE page_id = $1`, pageID).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	var after string
	var agree int
	var generated, oldTrigger, newTrigger bool
	var searchFuncs int
	if err := conn.QueryRow(ctx, `SELECT
		(SELECT string_agg(chunk_index || ':' || doc_len || ':' || xmin, ' ' ORDER BY chunk_index) FROM brain.chunks WHERE page_id = $1),
		(SELECT count(*) FROM brain.chunks WHERE page_id = $1 AND embedding = brain.embed_tsvector(tsv) AND doc_len = brain.tsv_length(tsv)),
		(SELECT attgenerated <> '' FROM pg_attribute WHERE attrelid = 'brain.chunks'::regclass AND attname = 'doc_len'),
		EXISTS (SELECT FROM pg_trigger WHERE tgrelid = 'brain.chunks'::regclass AND tgname = 'chunks_20_embed_local'),
		EXISTS (SELECT FROM pg_trigger WHERE tgrelid = 'brain.chunks'::regclass AND tgname = 'chunks_20_features'),
		(SELECT count(*) FROM pg_proc WHERE pronamespace = 'brain'::regnamespace AND proname = 'hybrid_search')`, pageID).
		Scan(&after, &agree, &generated, &oldTrigger, &newTrigger, &searchFuncs); err != nil {
		t.Fatal(err)
	}
	b, a := strings.Fields(before), strings.Fields(after)
	if len(a) != 3 || a[0] != b[0] || a[2] != b[2] || a[1] == b[1] || !strings.HasPrefix(a[1], strings.Join(strings.Split(b[1], ":")[:2], ":")+":") {
		t.Errorf("chunk index:doc_len:xmin before %q, after %q; want only chunk 1 rewritten and every doc_len kept", before, after)
	}
	if agree != 3 || generated || oldTrigger || !newTrigger || searchFuncs != 1 {
		t.Errorf("after the upgrade: %d of 3 chunks agree with their tsvector, doc_len generated %v, old trigger %v, new trigger %v, %d hybrid_search functions",
			agree, generated, oldTrigger, newTrigger, searchFuncs)
	}
}

func TestMigrateRejectsBadOptions(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestEmbedLocalKeepsItsFeatures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t)
	// The version 5 definitions, in pg_temp: embed_v1 and tsv_length_v1.
	for _, f := range []string{"testdata/embed_v1.sql", "testdata/tsv_length_v1.sql"} {
		sql, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, string(sql)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	// The catalog's function descriptions are thousands of real English
	// sentences; a title-weighted name makes the A weights count too.
	var n, differ int
	err := conn.QueryRow(ctx, `
		WITH docs AS (
			SELECT setweight(to_tsvector('english', p.proname), 'A')
			       || to_tsvector('english', d.description || ' ' || d.description || ' ' || p.proname) AS doc
			FROM pg_proc p JOIN pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_proc'::regclass
		)
		SELECT count(*), count(*) FILTER (WHERE brain.embed_tsvector(doc) IS DISTINCT FROM pg_temp.embed_v1(doc)
		                                     OR (brain.tsv_features(doc)).embedding IS DISTINCT FROM pg_temp.embed_v1(doc)
		                                     OR (brain.tsv_features(doc)).doc_len <> pg_temp.tsv_length_v1(doc)
		                                     OR brain.tsv_length(doc) <> pg_temp.tsv_length_v1(doc))
		FROM docs`).Scan(&n, &differ)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 || differ != 0 {
		t.Fatalf("%d of %d vectors or lengths differ from version 5's (want 0 of at least 1000)", differ, n)
	}
}

func TestEmbedLocalRefreshRewritesOnlyStaleVectors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t)
	pageID := insertPage(t, conn, "p", "Page")
	if _, err := conn.Exec(ctx, `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT $1, i, 'compiled_truth', 'chunk number ' || i || ' about gardens and rivers' FROM generate_series(0, 4) i`, pageID); err != nil {
		t.Fatal(err)
	}
	// Chunk 2 holds a vector the embedder would not give it today, as a
	// different rounding would leave; chunk 4 is stale (NULL) and stays so.
	if _, err := conn.Exec(ctx, `UPDATE brain.chunks SET embedding = brain.embed_local('something else') WHERE chunk_index = 2;
		SET brain.embed = 'off'; UPDATE brain.chunks SET embedding = NULL WHERE chunk_index = 4; RESET brain.embed`); err != nil {
		t.Fatal(err)
	}
	before := map[int]string{}
	rows, err := conn.Query(ctx, `SELECT chunk_index, xmin::text FROM brain.chunks`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var i int
		var x string
		if err := rows.Scan(&i, &x); err != nil {
			t.Fatal(err)
		}
		before[i] = x
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var rewritten int64
	if err := conn.QueryRow(ctx, `SELECT brain.embed_local_refresh()`).Scan(&rewritten); err != nil {
		t.Fatal(err)
	}
	if rewritten != 1 {
		t.Fatalf("embed_local_refresh rewrote %d rows, want 1", rewritten)
	}
	var agree, stale, touched int
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE embedding = brain.embed_tsvector(tsv)),
		count(*) FILTER (WHERE embedding IS NULL),
		count(*) FILTER (WHERE xmin::text <> ($1::jsonb ->> chunk_index::text))
		FROM brain.chunks`, before).Scan(&agree, &stale, &touched); err != nil {
		t.Fatal(err)
	}
	if agree != 4 || stale != 1 || touched != 1 {
		t.Fatalf("after refresh: %d vectors agree, %d stale, %d rows rewritten; want 4, 1, 1", agree, stale, touched)
	}
}

func TestChecksRejectBadRows(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	ctx := context.Background()
	conn := connect(t)
	pageID := insertPage(t, conn, "go/strings", "Package strings")
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
	// doc_len and the local embedding follow the tsvector through every
	// kind of write; a forged doc_len does not stick.
	for _, step := range []string{
		`UPDATE brain.chunks SET doc_len = 999`,
		`UPDATE brain.chunks SET text = 'rivers and mountains and rivers' WHERE chunk_index = 0`,
		`UPDATE brain.chunks SET chunk_source = 'timeline' WHERE chunk_index = 2`,
	} {
		if _, err := conn.Exec(ctx, step); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		var bad int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.chunks
			WHERE doc_len <> brain.tsv_length(tsv) OR embedding IS DISTINCT FROM brain.embed_tsvector(tsv)`).Scan(&bad); err != nil {
			t.Fatal(err)
		}
		if bad != 0 {
			t.Fatalf("after %s: %d chunks disagree with their tsvector", step, bad)
		}
	}
	var riverLen int
	if err := conn.QueryRow(ctx, `SELECT doc_len FROM brain.chunks WHERE chunk_index = 0`).Scan(&riverLen); err != nil {
		t.Fatal(err)
	}
	if riverLen != 5 { // 'packag' 'byte' (title), river twice, mountain ('and' is a stop word)
		t.Fatalf("doc_len of the edited chunk = %d, want 5", riverLen)
	}
	// With embedding deferred, a text change leaves the vector stale (NULL)
	// instead of describing the old text.
	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL brain.embed = 'off'`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE brain.chunks SET text = 'a different text' WHERE chunk_index = 1`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var stale bool
	if err := conn.QueryRow(ctx, `SELECT embedding IS NULL FROM brain.chunks WHERE chunk_index = 1`).Scan(&stale); err != nil {
		t.Fatal(err)
	}
	if !stale {
		t.Fatal("a deferred text change kept the old embedding")
	}
}

// restoreReleased returns a connection to a database restored from the
// released dump of schema version v.
func restoreReleased(t *testing.T, v int32) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	released, err := testdb.ReleasedSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range released {
		if r.Version != v {
			continue
		}
		url := testdb.EmptyDatabase(t)
		if err := testdb.Restore(ctx, url, r.SQL); err != nil {
			t.Fatal(err)
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(ctx) })
		return conn
	}
	t.Fatalf("no released dump of schema version %d", v)
	return nil
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

// TestChunkRowsStoredPlain: a chunk row up to toast_tuple_target (8,160
// bytes) keeps its text and tsvector uncompressed and inline, so search
// reads them without decompressing; only a longer chunk is compressed.
func TestChunkRowsStoredPlain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.Options{Dim: 256})
	pageID := insertPage(t, conn, "notes/long", "Long notes")
	// About 1,500 characters of distinct prose words: with its tsvector
	// and a 256-dimension embedding the row is over 3 KB, which the
	// default target of 2 KB compressed.
	var words []string
	for i := range 160 {
		words = append(words, fmt.Sprintf("word%dx", i))
	}
	medium := strings.Join(words, " ")
	if _, err := conn.Exec(ctx, `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		VALUES ($1, 0, 'compiled_truth', $2), ($1, 1, 'compiled_truth', repeat($2 || ' ', 20))`, pageID, medium); err != nil {
		t.Fatal(err)
	}
	// Longer text through the import's staging tables, as `pgbrain import`
	// and `put` write it: over 2 KB in a staging row, where the default
	// target compressed it and the compressed value was copied on.
	medium = strings.Repeat(strings.Join(words[:40], " ")+" ", 8)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, sql := range []string{
		`SELECT brain.import_begin()`,
		`INSERT INTO pg_temp.import_pages (slug, title, type, body, timeline, frontmatter, content_hash)
			VALUES ('notes/imported', 'Imported notes', 'note', $1, '', '{}', md5($1) || md5($1))`,
		`INSERT INTO pg_temp.import_chunks (slug, chunk_index, chunk_source, text)
			VALUES ('notes/imported', 0, 'compiled_truth', $1), ('notes/imported', 1, 'compiled_truth', repeat($1 || ' ', 20))`,
		`SELECT count(*) FROM brain.import_apply('default')`,
	} {
		var args []any
		if strings.Contains(sql, "$1") {
			args = append(args, medium)
		}
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT chunk_index, pg_column_size(c.*), pg_column_compression(text), pg_column_compression(tsv)
		FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
		WHERE p.slug IN ('notes/long', 'notes/imported') ORDER BY p.slug, chunk_index`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		var idx, size int
		var textComp, tsvComp *string
		if err := rows.Scan(&idx, &size, &textComp, &tsvComp); err != nil {
			t.Fatal(err)
		}
		switch idx {
		case 0:
			if size < 2500 || size > 8160 {
				t.Fatalf("fixture: the medium row is %d bytes, want 2,500-8,160", size)
			}
			if textComp != nil || tsvComp != nil {
				t.Errorf("a %d-byte chunk row was compressed (text %v, tsvector %v), want it stored plain", size, deref(textComp), deref(tsvComp))
			}
		case 1:
			if textComp == nil {
				t.Errorf("a chunk of %d bytes (over the target) kept its text uncompressed", size)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("%d chunks read back, want 4 (two inserted, two imported)", n)
	}
}

func deref(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}
