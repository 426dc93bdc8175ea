package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/embed/refresh"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const alice = "---\ntitle: Alice Example\ntype: person\ntags: [founder]\nrole: CEO\n---\n# Alice\n\nAlice founded Widget Co in 2019.\n\n## Timeline\n\n- 2019-04-01: founded Widget Co\n"

func rowVersions(t *testing.T, b *brain.Brain) string {
	t.Helper()
	var s string
	if err := b.Pool.QueryRow(context.Background(),
		`SELECT coalesce(string_agg(slug || ':' || xmin::text, ',' ORDER BY slug), '') FROM brain.pages`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	var c string
	if err := b.Pool.QueryRow(context.Background(),
		`SELECT coalesce(string_agg(id::text || ':' || xmin::text, ',' ORDER BY id), '') FROM brain.chunks`).Scan(&c); err != nil {
		t.Fatal(err)
	}
	return s + "|" + c
}

func TestImportDirReportsBadFilesAndKeepsGoing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"people/alice.md":      alice,
		"notes/Meeting One.md": "# Meeting\n\nWe agreed on the roadmap.\n",
		"broken/yaml.md":       "---\ntitle: [unclosed\n---\nbody\n",
		"broken/latin1.md":     "caf\xe9 au lait\n",
		"broken/nul.md":        "a\x00b\n",
		".hidden/skip.md":      "# hidden\n",
		"readme.txt":           "not markdown",
	})
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 5 || sum.Added != 2 || sum.Failed != 3 {
		t.Fatalf("summary = %+v, want 5 files, 2 added, 3 failed", sum)
	}
	reasons := map[string]string{}
	for _, f := range sum.Failures {
		reasons[f.Path] = f.Reason
	}
	for path, want := range map[string]string{
		"broken/yaml.md":   "frontmatter",
		"broken/latin1.md": "UTF-8",
		"broken/nul.md":    "NUL",
	} {
		if !strings.Contains(reasons[path], want) {
			t.Errorf("failure for %s = %q, want it to mention %q", path, reasons[path], want)
		}
	}
	p, err := b.GetPage(ctx, "default", "people/alice")
	if err != nil {
		t.Fatal(err)
	}
	if p.Body != alice {
		t.Errorf("body does not round-trip:\n%q\nwant\n%q", p.Body, alice)
	}
	if p.Title != "Alice Example" || p.Type != "person" || p.Frontmatter["role"] != "CEO" {
		t.Errorf("page = %+v", p)
	}
	if !strings.Contains(p.Timeline, "founded Widget Co") {
		t.Errorf("timeline = %q", p.Timeline)
	}
	var sources []string
	if err := b.Pool.QueryRow(ctx, `SELECT array_agg(DISTINCT chunk_source ORDER BY chunk_source) FROM brain.chunks c
		JOIN brain.pages p ON p.id = c.page_id WHERE p.slug = 'people/alice' AND c.embedding IS NOT NULL`).Scan(&sources); err != nil {
		t.Fatal(err)
	}
	if strings.Join(sources, ",") != "compiled_truth,timeline" {
		t.Errorf("alice's embedded chunk sources = %v", sources)
	}
	if _, err := b.GetPage(ctx, "default", "notes/meeting-one"); err != nil {
		t.Errorf("slug from 'Meeting One.md': %v", err)
	}
}

func TestReimportOfUnchangedFilesChangesNoRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": alice, "b.md": "# B\n\nbee text\n", "c.md": "# C\n\nsea text\n"})
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	before := rowVersions(t, b)
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unchanged != 3 || sum.Added+sum.Updated != 0 || sum.Chunks != 0 {
		t.Fatalf("second import = %+v, want 3 unchanged and nothing written", sum)
	}
	if after := rowVersions(t, b); after != before {
		t.Fatalf("row versions changed on an unchanged re-import:\n%s\n%s", before, after)
	}

	// One edit, one deletion with --prune.
	writeFiles(t, dir, map[string]string{"b.md": "# B\n\nbee text, revised\n"})
	if err := os.Remove(filepath.Join(dir, "c.md")); err != nil {
		t.Fatal(err)
	}
	sum, err = ingest.ImportDir(ctx, b, dir, ingest.Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 1 || sum.Unchanged != 1 || sum.Pruned != 1 {
		t.Fatalf("third import = %+v, want 1 updated, 1 unchanged, 1 pruned", sum)
	}
	var texts string
	if err := b.Pool.QueryRow(ctx, `SELECT string_agg(c.text, '|') FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id WHERE p.slug = 'b'`).Scan(&texts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(texts, "revised") || strings.Count(texts, "bee text") != 1 {
		t.Fatalf("chunks of the edited page = %q, want only the new text", texts)
	}
	if _, err := b.GetPage(ctx, "default", "c"); err == nil {
		t.Fatal("pruned page c is still there")
	}
}

// A file emptied by a crash or a half-finished save keeps its page: the
// import names it as failed (so it does not prune) and the page keeps its
// text; a new empty file is still a page, and a whitespace-only one too.
func TestEmptiedFileDoesNotBlankItsPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"kept.md": "# Kept\n\nthe text\n", "spaces.md": "# S\n\nsome words\n"})
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"kept.md": "", "spaces.md": " \n\t\n", "new.md": ""})
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 1 || sum.Updated != 0 || sum.Failed != 2 || sum.Pruned != 0 {
		t.Fatalf("summary = %+v, want new.md added, kept.md and spaces.md failed, nothing pruned", sum)
	}
	for _, f := range sum.Failures {
		if !strings.Contains(f.Reason, "file is empty") || !strings.Contains(f.Reason, "pgbrain delete") {
			t.Errorf("failure for %s = %q, want it to say the file is empty and how to delete the page", f.Path, f.Reason)
		}
	}
	for slug, want := range map[string]string{"kept": "the text", "spaces": "some words"} {
		p, err := b.GetPage(ctx, "default", slug)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Body, want) {
			t.Errorf("page %s = %q, want its text kept", slug, p.Body)
		}
	}
	// Importing the empty file again is unchanged, not a failure.
	sum, err = ingest.ImportDir(ctx, b, dir, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unchanged != 1 || sum.Failed != 2 {
		t.Errorf("again = %+v, want new.md unchanged and the two still refused", sum)
	}
}

func TestPutValidatesAndRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	for _, tc := range []struct {
		slug, body, wantErr string
	}{
		{"Bad Slug", "x", "not valid"},
		{"ok/page", "bad\xff", "UTF-8"},
		{"ok/page", "---\n- a list\n---\n", "frontmatter"},
	} {
		if _, err := ingest.PutPage(ctx, b, tc.slug, []byte(tc.body), ingest.Options{}); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("put %q: err = %v, want %q", tc.slug, err, tc.wantErr)
		}
	}
	body := "exact\r\nbytes  \n\n\ttrailing\n\n\n"
	if _, err := ingest.PutPage(ctx, b, "ok/page", []byte(body), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	p, err := b.GetPage(ctx, "default", "ok/page")
	if err != nil || p.Body != body {
		t.Fatalf("get = %q, %v; want %q", p.Body, err, body)
	}
	if _, err := ingest.PutPage(ctx, b, "x", []byte("# x\n"), ingest.Options{Source: "nope"}); err == nil || !strings.Contains(err.Error(), "sources add") {
		t.Fatalf("unknown source: err = %v", err)
	}
}

func TestNoEmbedThenRefresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": alice, "b.md": "# B\n\nbee\n"})
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	stale := func() int {
		var n int
		if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.chunks WHERE embedding IS NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	n := stale()
	if n == 0 {
		t.Fatal("--no-embed still embedded chunks")
	}
	done, err := refresh.Run(ctx, b, refresh.Options{Batch: 1})
	if err != nil || int(done) != n || stale() != 0 {
		t.Fatalf("refresh embedded %d of %d (err %v), %d still stale", done, n, err, stale())
	}
	var same bool
	if err := b.Pool.QueryRow(ctx, `SELECT bool_and(embedding = brain.embed_tsvector(tsv)) FROM brain.chunks`).Scan(&same); err != nil || !same {
		t.Fatalf("refreshed embeddings differ from the trigger's: %v %v", same, err)
	}
}

// fakeEmbeddings speaks the OpenAI /v1/embeddings wire format and returns
// vectors of the given dimension whose first component encodes the input length.
func fakeEmbeddings(t *testing.T, dim int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, s := range req.Input {
			v := make([]float32, dim)
			v[0] = float32(len(s))
			v[1] = 1
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRemoteEmbedderVectorsAreStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t, testdb.Options{Dim: 4, Embedder: "openai"})
	srv := fakeEmbeddings(t, 4)
	emb, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "fake", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.PutPage(ctx, b, "p", []byte("# P\n\nhello\n"), ingest.Options{Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	var first float32
	var text string
	if err := b.Pool.QueryRow(ctx, `SELECT (embedding::real[])[1], text FROM brain.chunks`).Scan(&first, &text); err != nil {
		t.Fatal(err)
	}
	if want := float32(len(ingest.ChunkEmbedText("P", text))); first != want {
		t.Fatalf("stored vector[0] = %v, want %v (the server's answer for this chunk)", first, want)
	}

	wrong := fakeEmbeddings(t, 3)
	emb3, err := openai.New(openai.Config{BaseURL: wrong.URL, Model: "fake", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ingest.PutPage(ctx, b, "q", []byte("# Q\n"), ingest.Options{Embedder: emb3})
	if err == nil || !strings.Contains(err.Error(), "3-dimensional") {
		t.Fatalf("dimension mismatch: err = %v", err)
	}
	if _, err := b.GetPage(ctx, "default", "q"); err == nil {
		t.Fatal("a page whose embedding failed was stored")
	}
	// The failure is an EmbedError, so the CLI can offer --no-embed.
	var ee *ingest.EmbedError
	if !errors.As(err, &ee) || ee.Chunks != 1 || !strings.Contains(err.Error(), "embedding 1 chunk:") {
		t.Errorf("err = %v (%T), want an EmbedError for 1 chunk", err, err)
	}
}

func TestBulkLoadRebuildsTheVectorIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		files[filepath.Join("bulk", string(rune('a'+i%26))+strings.Repeat("x", i/26)+".md")] = "# Page\n\nwords about topic " + strings.Repeat("z", i+1) + "\n"
	}
	writeFiles(t, dir, files)
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{BulkThreshold: 10})
	if err != nil || sum.Added != 30 {
		t.Fatalf("bulk import: %+v %v", sum, err)
	}
	var indexed, missing int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = 'brain' AND indexname = 'chunks_embedding_hnsw'`).Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.chunks WHERE embedding IS NULL`).Scan(&missing); err != nil {
		t.Fatal(err)
	}
	if indexed != 1 || missing != 0 {
		t.Fatalf("after a bulk load: hnsw index present=%d, chunks without embedding=%d", indexed, missing)
	}
	// The rebuilt index serves nearest-neighbour queries.
	tx, err := b.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, `EXPLAIN SELECT id FROM brain.chunks ORDER BY embedding <=> brain.embed_local('topic') LIMIT 5`)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for rows.Next() {
		var line string
		rows.Scan(&line)
		all = append(all, line)
	}
	rows.Close()
	if !strings.Contains(strings.Join(all, "\n"), "chunks_embedding_hnsw") {
		t.Fatalf("plan does not use the rebuilt index:\n%s", strings.Join(all, "\n"))
	}
	tx.Rollback(ctx)

	// Both rebuilds build the index migrate defines: the plain one above
	// (brain.vector_index_resume(), into an empty brain) and the concurrent
	// one of a bulk load into a brain that has pages (internal/ingest's own
	// statement), which doubles the brain here.
	fresh := dbtest.Open(t)
	wantDef := vectorIndexDef(t, ctx, fresh)
	if !strings.Contains(wantDef, "m='12'") || !strings.Contains(wantDef, "ef_construction='40'") {
		t.Fatalf("migrate defines the vector index as %q, want m 12 and ef_construction 40", wantDef)
	}
	// The options are only what the next build reads; the graph a fresh
	// brain starts with is the one migration 024 built.
	if m, ef := hnswGraph(t, ctx, fresh); m != 12 || ef != 40 {
		t.Errorf("a fresh brain's vector index graph has m %d, ef_construction %d; want 12, 40", m, ef)
	}
	if got := vectorIndexDef(t, ctx, b); got != wantDef {
		t.Errorf("after a bulk load into an empty brain the vector index is %q, want %q", got, wantDef)
	}
	if m, ef := hnswGraph(t, ctx, b); m != 12 || ef != 40 {
		t.Errorf("after a bulk load into an empty brain the graph has m %d, ef_construction %d; want 12, 40", m, ef)
	}
	// The lighter graph is searched with ef_search at least 80.
	tx2, err := b.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var efSearch string
	if err := tx2.QueryRow(ctx, `SELECT count(*) FROM brain.vector_arm(brain.embed_local('topic'), 10)`).Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	if err := tx2.QueryRow(ctx, `SELECT current_setting('hnsw.ef_search')`).Scan(&efSearch); err != nil {
		t.Fatal(err)
	}
	tx2.Rollback(ctx)
	if efSearch != "80" {
		t.Errorf("brain.vector_arm(..., 10) searches with hnsw.ef_search %s, want 80", efSearch)
	}
	more := t.TempDir()
	files = map[string]string{}
	for i := 0; i < 40; i++ {
		files[filepath.Join("more", "m"+strings.Repeat("y", i+1)+".md")] = "# More\n\nother words " + strings.Repeat("q", i+1) + "\n"
	}
	writeFiles(t, more, files)
	if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.sources (id, name) VALUES ('more', 'More')`); err != nil {
		t.Fatal(err)
	}
	sum, err = ingest.ImportDir(ctx, b, more, ingest.Options{BulkThreshold: 10, Source: "more"})
	if err != nil || sum.Added != 40 {
		t.Fatalf("second bulk import: %+v %v", sum, err)
	}
	if got := vectorIndexDef(t, ctx, b); got != wantDef {
		t.Errorf("after a concurrent rebuild the vector index is %q, want %q", got, wantDef)
	}
	if m, ef := hnswGraph(t, ctx, b); m != 12 || ef != 40 {
		t.Errorf("after a concurrent rebuild the graph has m %d, ef_construction %d; want 12, 40", m, ef)
	}
}

// hnswGraph reads m and ef_construction from the vector index's first page
// (pgvector's metapage: after the 24-byte page header, the magic number,
// version and dimensions, then m and ef_construction as uint16), which is
// what inserts and scans use, whatever the index's options say now.
func hnswGraph(t *testing.T, ctx context.Context, b *brain.Brain) (m, ef int) {
	t.Helper()
	if _, err := b.Pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pageinspect`); err != nil {
		t.Fatalf("pageinspect (PostgreSQL's contrib) reads the index page: %v", err)
	}
	err := b.Pool.QueryRow(ctx, `SELECT get_byte(p, 36) + 256 * get_byte(p, 37), get_byte(p, 38) + 256 * get_byte(p, 39)
		FROM get_raw_page('brain.chunks_embedding_hnsw', 0) p`).Scan(&m, &ef)
	if err != nil {
		t.Fatal(err)
	}
	return m, ef
}

// vectorIndexDef is the definition of the brain's HNSW index, "" when it
// has none.
func vectorIndexDef(t *testing.T, ctx context.Context, b *brain.Brain) string {
	t.Helper()
	var def string
	err := b.Pool.QueryRow(ctx, `SELECT coalesce(pg_get_indexdef(to_regclass('brain.chunks_embedding_hnsw')), '')`).Scan(&def)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// A frontmatter type that loses every character to normalisation, or is
// cut to its limit, is named; one normalised as documented is not.
func TestAdjustedTypesAreNoted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.md": "---\ntype: \"!!!\"\n---\nbody\n",
		"b.md": "---\ntype: " + strings.Repeat("x", 100) + "\n---\nbody\n",
		"c.md": "---\ntype: Meeting Notes\n---\nbody\n",
	})
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Notes) != 2 || sum.Notes[0].Path != "a.md" || !strings.Contains(sum.Notes[0].Reason, "stored as type page") ||
		sum.Notes[1].Path != "b.md" || !strings.Contains(sum.Notes[1].Reason, "longer than 64 characters") {
		t.Fatalf("notes = %+v, want a.md (no letter) and b.md (cut)", sum.Notes)
	}
	if p, err := b.GetPage(ctx, "default", "c"); err != nil || p.Type != "meeting-notes" {
		t.Errorf("c: %+v %v, want type meeting-notes", p, err)
	}
}

// Re-importing a folder whose every file changed rewrites every vector:
// like a load of new pages as large as the brain, it rebuilds the vector
// index once instead of inserting each vector into it; a re-import of a
// few changed files keeps the index, and unchanged files stay unchanged.
func TestChangedFolderRebuildsTheVectorIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	write := func(suffix string, n int) {
		files := map[string]string{}
		for i := 0; i < n; i++ {
			files[fmt.Sprintf("p%02d.md", i)] = fmt.Sprintf("# Page %d\n\nwords about topic %d%s\n", i, i, suffix)
		}
		writeFiles(t, dir, files)
	}
	write("", 30)
	opts := ingest.Options{BulkThreshold: 10}
	if sum, err := ingest.ImportDir(ctx, b, dir, opts); err != nil || sum.Added != 30 || sum.IndexRebuild == 0 {
		t.Fatalf("first import: %+v %v; want 30 added and the index rebuilt", sum, err)
	}
	write(", edited", 30)
	sum, err := ingest.ImportDir(ctx, b, dir, opts)
	if err != nil || sum.Updated != 30 || sum.IndexRebuild == 0 {
		t.Fatalf("every file changed: %+v %v; want 30 updated and the index rebuilt", sum, err)
	}
	write(", edited twice", 5)
	sum, err = ingest.ImportDir(ctx, b, dir, opts)
	if err != nil || sum.Updated != 5 || sum.Unchanged != 25 || sum.IndexRebuild != 0 {
		t.Fatalf("5 files changed: %+v %v; want 5 updated, 25 unchanged, the index kept", sum, err)
	}
	var missing int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.chunks WHERE embedding IS NULL`).Scan(&missing); err != nil || missing != 0 {
		t.Errorf("chunks without a vector: %d %v", missing, err)
	}
	if st, err := ingest.IndexStatus(ctx, b); err != nil || st != "ready" {
		t.Errorf("vector index %q %v, want ready", st, err)
	}
}
