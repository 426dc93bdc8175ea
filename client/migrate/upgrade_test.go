package migrate_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"
	"text/template"

	"github.com/jackc/pgx/v5"

	pgbrain "github.com/pgbrain/pgbrain"
	"github.com/pgbrain/pgbrain/client/migrate"
	"github.com/pgbrain/pgbrain/testdb"
)

// roundTrip restores dump into a scratch database and dumps that again: a
// restored dump can deparse an expression differently from the SQL that
// first created it (a CHECK's nested ANDs come back flattened), so both
// sides of a comparison take the same trip.
func roundTrip(t *testing.T, dump string) string {
	t.Helper()
	scratch := testdb.EmptyDatabase(t)
	if err := testdb.Restore(context.Background(), scratch, dump); err != nil {
		t.Fatal(err)
	}
	return rawDump(t, scratch)
}

// rawDump is pg_dump --schema-only of the database at url, as it comes.
func rawDump(t *testing.T, url string) string {
	t.Helper()
	out, err := testdb.PgDump(context.Background(), url, "--schema-only", "--no-owner")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// freshInstall is a new brain as it is made today: a clone of the test
// template, which is migrate.Migrate with the default options run once on an
// empty database (testdb.New), so the clone's schema and dump are a fresh
// install's without paying for the migration again in every test. A full
// install from nothing still runs in TestMigrateRejectsBadOptions and
// TestTernCLIInstallsTheSameSchema, and nearly from nothing in the upgrade
// from schema 001.
func freshInstall(t *testing.T) (url string) {
	t.Helper()
	return testdb.New(t)
}

// sameSchema fails t unless the schema at url is want's: its dump equals
// raw, the fresh install's dump as it comes (then no round trip is
// needed), or it equals trip after the same round trip.
func sameSchema(t *testing.T, url, raw, trip, what string) {
	t.Helper()
	got := rawDump(t, url)
	if got == raw {
		return
	}
	if got = roundTrip(t, got); got != trip {
		t.Fatalf("%s does not give the fresh-install schema; %s", what, firstDifference(trip, got))
	}
}

// firstDifference shows where two dumps part, with a few lines of context.
func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(la) && i < len(lb) && la[i] == lb[i] {
		i++
	}
	from := max(0, i-3)
	show := func(l []string) string {
		return strings.Join(l[from:min(len(l), i+8)], "\n")
	}
	return fmt.Sprintf("first difference at line %d:\n--- want (fresh install)\n%s\n--- got\n%s", i+1, show(la), show(lb))
}

// Every released schema version, restored from the dump taken when it was
// released (with rows in its tables), upgrades to exactly the schema of a
// fresh install, and its rows come through intact and searchable.
func TestUpgradeFromEveryReleasedSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	released, err := testdb.ReleasedSchemas()
	if err != nil {
		t.Fatal(err)
	}
	if len(released) == 0 {
		t.Fatal("testdb/schema holds no released schema")
	}
	raw := rawDump(t, freshInstall(t))
	trip := roundTrip(t, raw)
	for _, r := range released {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			url := testdb.EmptyDatabase(t)
			if err := testdb.Restore(ctx, url, r.SQL); err != nil {
				t.Fatal(err)
			}
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if v, err := migrate.Version(ctx, conn); err != nil || v != r.Version {
				t.Fatalf("restored %s reports version %d (%v), want %d", r.Name, v, err, r.Version)
			}
			if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
				t.Fatalf("upgrading from %d: %v", r.Version, err)
			}
			sameSchema(t, url, raw, trip, fmt.Sprintf("upgrading from version %d", r.Version))
			checkUpgradedRows(t, conn, r.Version)
		})
	}
}

func checkUpgradedRows(t *testing.T, conn *pgx.Conn, from int32) {
	t.Helper()
	ctx := context.Background()
	var pages, stale, staleLen, staleWords int
	var top string
	if err := conn.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM brain.pages),
		(SELECT count(*) FROM brain.pages WHERE title_words IS DISTINCT FROM brain.title_words(title)),
		(SELECT count(*) FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
		  WHERE c.tsv IS DISTINCT FROM brain.chunk_tsv(p.title, c.text, c.chunk_source)
		     OR c.embedding IS DISTINCT FROM brain.embed_tsvector(c.tsv)),
		(SELECT count(*) FROM brain.chunks WHERE doc_len IS DISTINCT FROM brain.tsv_length(tsv)),
		(SELECT slug FROM brain.query('harbour lanterns', 5) LIMIT 1)`).Scan(&pages, &staleWords, &stale, &staleLen, &top); err != nil {
		t.Fatal(err)
	}
	if pages != 3 || staleWords != 0 || stale != 0 || staleLen != 0 || top != "people/alice-smith" {
		t.Errorf("after upgrading from %d: %d pages (want 3), %d with title words that are not today's, %d chunks whose tsvector or vector is not today's, %d with a stale doc_len, top hit %q (want people/alice-smith)",
			from, pages, staleWords, stale, staleLen, top)
	}
	var terms, rebuilt string
	if err := conn.QueryRow(ctx, `SELECT string_agg(lexeme || ':' || doc_freq, ' ' ORDER BY lexeme) FROM brain.term_stats`).Scan(&terms); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT brain.term_stats_rebuild()`); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT string_agg(lexeme || ':' || doc_freq, ' ' ORDER BY lexeme) FROM brain.term_stats`).Scan(&rebuilt); err != nil {
		t.Fatal(err)
	}
	if terms != rebuilt {
		t.Errorf("after upgrading from %d the BM25 statistics differ from a rebuild:\n%s\n%s", from, terms, rebuilt)
	}
	if from >= 4 {
		var problems int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.audit_verify(true)`).Scan(&problems); err != nil {
			t.Fatal(err)
		}
		if problems != 0 {
			t.Errorf("after upgrading from %d the audit chain has %d problems", from, problems)
		}
	}
}

// A released migration never changes: its bytes are those recorded when it
// was released, every migration is released with a dump of its schema, and
// released migrations include no other file (which could change under them).
func TestReleasedMigrationsAreFrozen(t *testing.T) {
	t.Parallel()
	sums, err := testdb.ReleasedChecksums()
	if err != nil {
		t.Fatal(err)
	}
	released, err := testdb.ReleasedSchemas()
	if err != nil {
		t.Fatal(err)
	}
	dumps := map[int32]bool{}
	for _, r := range released {
		dumps[r.Version] = true
	}
	files, err := fs.Glob(pgbrain.SQLFiles, "sql/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	include := regexp.MustCompile(`\{\{-?\s*template\b`)
	for i, f := range files {
		data, err := fs.ReadFile(pgbrain.SQLFiles, f)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		switch want, ok := sums[f]; {
		case !ok:
			t.Errorf("%s is not released: record it with `go run ./testdb/cmd/schemadump -release` (which also dumps its schema for the upgrade test)", f)
		case want != hex.EncodeToString(sum[:]):
			t.Errorf("%s was changed after its release: restore it (git log -p %s) and make the change in a new migration", f, f)
		}
		if !dumps[int32(i+1)] {
			t.Errorf("no dump of schema version %d in testdb/schema: run `go run ./testdb/cmd/schemadump -release`", i+1)
		}
		if include.Match(data) {
			t.Errorf("%s includes another file through a template; a migration must hold all of its SQL", f)
		}
	}
	if len(sums) != len(files) {
		t.Errorf("testdb/schema/released.sha256 lists %d migrations, sql/ holds %d", len(sums), len(files))
	}
}

// The files in triggers/ and the stored-data functions in functions/ (those
// functions/install.sql does not list) say what the migrations installed:
// applying them again to a fresh install changes nothing. A change to one of
// them without a migration that makes it fails here.
func TestVersionedFilesMatchTheMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	install, err := fs.ReadFile(pgbrain.SQLFiles, "functions/install.sql")
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"dim": "256", "embedder": "local", "embed_model": "hash-tsv-v1", "vector_schema": `"public"`}
	files, err := fs.Glob(pgbrain.SQLFiles, "triggers/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	fns, err := fs.Glob(pgbrain.SQLFiles, "functions/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fns {
		if name := path.Base(f); name != "install.sql" && !bytes.Contains(install, []byte(`"`+name+`"`)) {
			files = append(files, f)
		}
	}
	sqls := map[string]string{}
	definedBy := map[string]string{} // object name -> the file that creates it
	shared := false
	for _, f := range files {
		src, err := fs.ReadFile(pgbrain.SQLFiles, f)
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := template.New(f).Parse(string(src))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var sql bytes.Buffer
		if err := tmpl.Execute(&sql, data); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sqls[f] = sql.String()
		for _, m := range definesObject.FindAllStringSubmatch(sql.String(), -1) {
			name := strings.ToLower(m[1])
			if other, ok := definedBy[name]; ok && other != f {
				shared = true
			}
			definedBy[name] = f
		}
	}
	fresh := func() (*pgx.Conn, string) {
		url := freshInstall(t)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(ctx) })
		return conn, url
	}
	apply := func(conn *pgx.Conn, f string) {
		if _, err := conn.Exec(ctx, sqls[f]); err != nil {
			t.Fatalf("applying %s to a fresh install: %v", f, err)
		}
	}
	conn, url := fresh()
	want := rawDump(t, url)
	// When no two files create the same object, one file cannot undo what
	// another changed, so one dump after all of them shows a stale file as
	// surely as a dump after each; the file is named by going through them
	// one at a time on a new fresh install only when that dump differs.
	if !shared {
		for _, f := range files {
			apply(conn, f)
		}
		if rawDump(t, url) == want {
			return
		}
		conn, url = fresh()
	}
	for _, f := range files {
		apply(conn, f)
		if got := rawDump(t, url); got != want {
			t.Fatalf("%s is not what the migrations install: write a migration that installs it (and changes what it stores); %s", f, firstDifference(want, got))
		}
	}
	t.Fatal("the versioned files together change a fresh install, but none alone does")
}

// definesObject finds the functions, procedures, views and triggers a SQL
// file creates.
var definesObject = regexp.MustCompile(`(?im)^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?(?:FUNCTION|PROCEDURE|VIEW|TRIGGER)\s+([a-z0-9_."]+)`)

// The repeatable tier is applied when its copy changes and only then.
func TestRepeatableTierFollowsItsChecksum(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := freshInstall(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	want, err := migrate.RecordedChecksum(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := migrate.SameFunctions(want); err != nil || !same {
		t.Fatalf("recorded checksum %q (%v) is not of this build's functions/", want, err)
	}
	// A database whose copy is older (here: a function body replaced and
	// the checksum changed) gets today's functions back.
	if _, err := conn.Exec(ctx, staleDetectDetail+`;
		UPDATE brain.config SET value = 'old' WHERE key = 'functions_checksum'`); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	var detail *string
	if err := conn.QueryRow(ctx, `SELECT brain.detect_detail('who is alice')`).Scan(&detail); err != nil {
		t.Fatal(err)
	}
	if detail != nil && *detail == "high" {
		t.Fatal("migrate kept a stale repeatable function")
	}
	if have, _ := migrate.RecordedChecksum(ctx, conn); have != want {
		t.Fatalf("checksum after re-apply %q, want %q", have, want)
	}
	// The same files rendered with other settings (pgvector moved to
	// another schema, say) are applied again too.
	files, _, _ := strings.Cut(want, ":")
	if _, err := conn.Exec(ctx, staleDetectDetail); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE brain.config SET value = $1 WHERE key = 'functions_checksum'`, files+":rendered-elsewhere"); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT brain.detect_detail('who is alice')`).Scan(&detail); err != nil {
		t.Fatal(err)
	}
	if detail != nil && *detail == "high" {
		t.Fatal("migrate kept functions rendered with other settings")
	}
	// With the checksum current, migrate leaves the functions alone.
	if _, err := conn.Exec(ctx, staleDetectDetail); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT brain.detect_detail('who is alice')`).Scan(&detail); err != nil {
		t.Fatal(err)
	}
	if detail == nil || *detail != "high" {
		t.Fatal("migrate re-applied the functions although their checksum was current")
	}
}

// staleDetectDetail replaces a repeatable function with one that answers
// "high" to everything, standing for an older copy of functions/.
const staleDetectDetail = `CREATE OR REPLACE FUNCTION brain.detect_detail(q text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT ''high'''`

// Every function of the brain schema resolves names through a search_path
// of its own, or (SQL-standard bodies) once, when it was created; never
// through the caller's.
func TestEveryFunctionPinsSearchPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := freshInstall(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT p.oid::regprocedure::text FROM pg_proc p
		WHERE p.pronamespace = 'brain'::regnamespace AND p.prosqlbody IS NULL
		  AND NOT EXISTS (SELECT FROM unnest(p.proconfig) c WHERE c LIKE 'search\_path=%')`)
	if err != nil {
		t.Fatal(err)
	}
	unpinned, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(unpinned) > 0 {
		t.Fatalf("functions that resolve names through the caller's search_path: %v", unpinned)
	}
	// A caller's own objects cannot stand in for the brain's.
	if _, err := conn.Exec(ctx, `CREATE SCHEMA evil;
		CREATE TABLE evil.config (key text, value text);
		INSERT INTO evil.config VALUES ('embedder', 'openai');
		SET search_path = evil, public`); err != nil {
		t.Fatal(err)
	}
	var embedder string
	if err := conn.QueryRow(ctx, `SELECT brain.embedder()`).Scan(&embedder); err != nil {
		t.Fatal(err)
	}
	if embedder != "local" {
		t.Fatalf("brain.embedder() read the caller's table: %q", embedder)
	}
}

// Migration 022 makes the next import rewrite the pages whose type
// migration 021 changed (a first folder with a non-ASCII letter), and only
// those: their content hash no longer matches any file.
func TestUpgradeTo22RetypesNonASCIIFolders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := restoreReleased(t, 21)
	hash := strings.Repeat("ab", 32)
	if _, err := conn.Exec(ctx, `
		INSERT INTO brain.pages (slug, title, type, body, timeline, content_hash, origin) VALUES
			('café/menu', 'Menu', 'caf', 'coffee', '', $1, 'file'),
			('東京/会議', 'Meeting', 'page', 'tokyo', '', $1, 'file'),
			('work/plan', 'Plan', 'work', 'plan', '', $1, 'file'),
			('café-top', 'Top', 'page', 'top', '', $1, 'file'),
			('café/put', 'Put', 'caf', 'put', '', $1, 'put')`, hash); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT slug FROM brain.pages
		WHERE slug IN ('café/menu', '東京/会議', 'work/plan', 'café-top', 'café/put') AND content_hash <> $1 ORDER BY slug`, hash)
	if err != nil {
		t.Fatal(err)
	}
	reset, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(reset, " ") != "café/menu 東京/会議" {
		t.Errorf("pages the next import rewrites: %v; want café/menu and 東京/会議 only", reset)
	}
}

// Migrations that change how text is read index again the chunks they
// affect: 023 those holding a Greek final sigma, in their text or their
// page's title, so "σοφός" stored before it is found as "ΣΟΦΟΣ" after it;
// 026 those holding a slash, so "TCP/IP" stored before it is found by
// "tcp". A vector from a remote embedder is kept (the text did not
// change), a 'local' one follows the new tsvector.
func TestUpgradeIndexesAgainWhatANewReadingChanges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		from  int32  // the released version restored
		pages string // VALUES of (slug, title, type, body, timeline, content_hash), slugs under "x/"
		finds []string
	}{
		{"023 final sigma", 22, `('x/sofos', 'Σημείωση', 'el', 'Ο σοφός γέρος', '', repeat('cd', 32)),
			('x/title', 'Ο λόγος', 'el', 'κείμενο', '', repeat('cd', 32))`, []string{"ΣΟΦΟΣ", "ΛΟΓΟΣ"}},
		{"026 slashed words", 25, `('x/net', 'Network notes', 'note', 'Set up TCP/IP for the client/server link in /etc/hosts.d/lan', '', repeat('cd', 32)),
			('x/title', 'GNU/Linux tips', 'note', 'kernel flags', '', repeat('cd', 32))`, []string{"tcp", "server", "lan", "linux"}},
	} {
		for _, embedder := range []string{"local", "openai"} {
			t.Run(c.name+"/"+embedder, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				conn := restoreReleased(t, c.from)
				if _, err := conn.Exec(ctx, `
					WITH p AS (INSERT INTO brain.pages (slug, title, type, body, timeline, content_hash) VALUES `+c.pages+` RETURNING id, body)
					INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text) SELECT id, 0, 'compiled_truth', body FROM p`); err != nil {
					t.Fatal(err)
				}
				if embedder != "local" {
					// As a remote embedder leaves them: vectors computed outside.
					if _, err := conn.Exec(ctx, `UPDATE brain.config SET value = $1 WHERE key = 'embedder'`, embedder); err != nil {
						t.Fatal(err)
					}
					if _, err := conn.Exec(ctx, `UPDATE brain.chunks SET embedding = array_fill(0.5::real, ARRAY[vector_dims(embedding)])::vector
						WHERE embedding IS NOT NULL`); err != nil {
						t.Fatal(err)
					}
				}
				found := func(q string) int {
					var n int
					if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.chunks WHERE tsv @@ brain.words_tsquery($1)`, q).Scan(&n); err != nil {
						t.Fatal(err)
					}
					return n
				}
				for _, q := range c.finds {
					if n := found(q); n != 0 {
						t.Fatalf("before the migration %q already finds %d chunks: the test shows nothing", q, n)
					}
				}
				if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
					t.Fatal(err)
				}
				for _, q := range c.finds {
					if n := found(q); n != 1 {
						t.Errorf("after the migration %q finds %d chunks, want 1", q, n)
					}
				}
				// Their tsvector and doc_len are today's, and so is a local
				// vector; a remote one is the one stored before.
				var stale, nullVec, kept, total int
				if err := conn.QueryRow(ctx, `SELECT
					count(*) FILTER (WHERE c.tsv IS DISTINCT FROM brain.chunk_tsv(p.title, c.text, c.chunk_source)
					   OR c.doc_len IS DISTINCT FROM brain.tsv_length(c.tsv)
					   OR ($1 = 'local' AND c.embedding IS DISTINCT FROM brain.embed_tsvector(c.tsv))),
					count(*) FILTER (WHERE c.embedding IS NULL),
					count(*) FILTER (WHERE c.embedding = array_fill(0.5::real, ARRAY[vector_dims(c.embedding)])::vector),
					count(*)
					FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id`, embedder).Scan(&stale, &nullVec, &kept, &total); err != nil {
					t.Fatal(err)
				}
				if stale != 0 || nullVec != 0 || (embedder != "local" && kept != total) {
					t.Errorf("after the migration: %d chunks not as today's functions make them, %d without a vector, %d of %d remote vectors kept (want 0, 0 and, for %s, all)", stale, nullVec, kept, total, embedder)
				}
				if embedder == "local" {
					if _, err := conn.Exec(ctx, `DELETE FROM brain.pages WHERE slug LIKE 'x/%'`); err != nil {
						t.Fatal(err)
					}
					checkUpgradedRows(t, conn, c.from)
				}
			})
		}
	}
}

// A brain at version 23 with stored vectors, migrated through 024 (the
// lighter graph's options): its vectors, its index and its searches stay;
// the index is declared with m 12 and ef_construction 40; it takes new
// vectors and loses deleted ones; the vector arm finds a chunk by its own
// vector.
func TestUpgradeTo24KeepsVectorsAndIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := restoreReleased(t, 23)
	if _, err := conn.Exec(ctx, `
		WITH p AS (INSERT INTO brain.pages (slug, title, type, body, timeline, content_hash)
			SELECT 'v/' || i, 'Vector page ' || i, 'v', 'text about topic number ' || i || ' and word' || (i % 17), '', repeat('ab', 32)
			FROM generate_series(1, 300) i RETURNING id, body)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text) SELECT id, 0, 'compiled_truth', body FROM p`); err != nil {
		t.Fatal(err)
	}
	var before int
	const mine = `SELECT count(*) FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id WHERE p.slug LIKE 'v/%' AND c.embedding IS NOT NULL`
	if err := conn.QueryRow(ctx, mine).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if before != 300 {
		t.Fatalf("a local brain at 023 embedded %d of 300 chunks; the test needs them all", before)
	}
	if err := migrate.Up(ctx, conn, migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	var vecs int
	var def string
	if err := conn.QueryRow(ctx, `SELECT (`+mine+`), pg_get_indexdef('brain.chunks_embedding_hnsw'::regclass)`).Scan(&vecs, &def); err != nil {
		t.Fatal(err)
	}
	if vecs != before || !strings.Contains(def, "m='12'") || !strings.Contains(def, "ef_construction='40'") {
		t.Fatalf("after 024: %d of %d vectors, index %s; want every vector and m 12, ef_construction 40", vecs, before, def)
	}
	// Churn: delete some, add some, vacuum; the index serves throughout.
	if _, err := conn.Exec(ctx, `DELETE FROM brain.pages WHERE slug IN ('v/1', 'v/2', 'v/3')`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `VACUUM brain.chunks`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `
		WITH p AS (INSERT INTO brain.pages (slug, title, type, body, timeline, content_hash)
			VALUES ('v/new', 'A new page', 'v', 'a page written after the upgrade', '', repeat('ef', 32)) RETURNING id, body)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text) SELECT id, 0, 'compiled_truth', body FROM p`); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"v/new", "v/150"} {
		var got string
		if err := conn.QueryRow(ctx, `
			SELECT p.slug FROM brain.vector_search((SELECT c.embedding FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id WHERE p.slug = $1), 1) v
			JOIN brain.chunks c ON c.id = v.chunk_id JOIN brain.pages p ON p.id = c.page_id`, slug).Scan(&got); err != nil {
			t.Fatalf("vector search for %s's own vector: %v", slug, err)
		}
		if got != slug {
			t.Errorf("vector search for %s's own vector found %s first", slug, got)
		}
	}
}
