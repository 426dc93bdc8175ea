package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/classify"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/pii"
)

// pipelineCorpus writes n pages, a few of them carrying PII, and one broken
// file, spread so that small batches interleave good and bad files.
func pipelineCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"p/0005-broken.md": "---\ntitle: [unclosed\n---\n"}
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("# Page %d\n\nNotes on topic %d and its neighbours.\n", i, i)
		switch i % 7 {
		case 1:
			body += "\nCall 555-867-5309 or mail jane.doe@gmail.com about it.\n"
		case 4:
			body += "\nThe card on file is 4111 1111 1111 1111.\n"
		}
		files[fmt.Sprintf("p/%04d.md", i)] = body
	}
	writeFiles(t, dir, files)
	return dir
}

// Queries for idsInOrder: each row says whether an id is larger than the
// one before it in slug (and chunk) order.
const (
	pageIDOrder  = `SELECT id > lag(id) OVER (ORDER BY slug) IS NOT FALSE FROM brain.pages`
	chunkIDOrder = `SELECT c.id > lag(c.id) OVER (ORDER BY p.slug, c.chunk_index) IS NOT FALSE
		FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id`
)

// idsInOrder reports whether every row of query is true.
func idsInOrder(t *testing.T, b *brain.Brain, query string) bool {
	t.Helper()
	var ok bool
	if err := b.Pool.QueryRow(context.Background(), `SELECT bool_and(ok) FROM (`+query+`) AS x (ok)`).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestPipelineKeepsFileOrderAndProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ batch, writers int }{{1, 1}, {3, 2}, {2, 4}, {50, 3}} {
		batch := tc.batch
		t.Run(fmt.Sprintf("batch=%d,writers=%d", tc.batch, tc.writers), func(t *testing.T) {
			ctx := context.Background()
			b := dbtest.Open(t)
			dir := pipelineCorpus(t, 20)
			var calls [][2]int
			sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{BatchPages: batch, Writers: tc.writers, Progress: func(done, total int) {
				calls = append(calls, [2]int{done, total})
			}})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Files != 21 || sum.Added != 20 || sum.Failed != 1 || sum.Failures[0].Path != "p/0005-broken.md" {
				t.Fatalf("summary = %+v", sum)
			}
			// Ids are reserved in file order whichever writer lands a batch
			// first, so a re-import elsewhere breaks ranking ties the same way.
			if !idsInOrder(t, b, pageIDOrder) {
				t.Error("page ids do not follow file order")
			}
			if !idsInOrder(t, b, chunkIDOrder) {
				t.Error("chunk ids do not follow file and chunk order")
			}
			if len(calls) == 0 || calls[len(calls)-1] != [2]int{21, 21} {
				t.Fatalf("progress calls = %v, want to end at 21/21", calls)
			}
			for i := 1; i < len(calls); i++ {
				if calls[i][0] <= calls[i-1][0] {
					t.Fatalf("progress went backwards: %v", calls)
				}
			}
		})
	}
}

// The import classifies pages in the client, before they reach the
// database; the result must equal classifying the stored pages.
func TestImportTagsEqualStoredPageClassification(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := pipelineCorpus(t, 14)
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{BatchPages: 4}); err != nil {
		t.Fatal(err)
	}
	var tagged, total int
	if err := b.Pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE cardinality(t.categories) > 0), count(t.page_id)
		FROM brain.pages p LEFT JOIN brain.page_pii t ON t.page_id = p.id`).Scan(&tagged, &total); err != nil {
		t.Fatal(err)
	}
	if total != 14 || tagged != 4 {
		t.Fatalf("%d of %d pages classified, %d tagged; want all 14 classified and 4 tagged", total, 14, tagged)
	}
	// Re-classifying from the stored text changes nothing.
	seen, changed, err := classify.All(ctx, b.Pool, pii.Classify, false)
	if err != nil {
		t.Fatal(err)
	}
	if seen != 14 || changed != 0 {
		t.Errorf("re-classifying stored pages: seen %d, changed %d; want 14 and 0", seen, changed)
	}
	// And the Go text is byte for byte the text the SQL side classifies.
	rows, err := b.Pool.Query(ctx, `SELECT title, body, title || E'\n' || body FROM brain.pages`)
	if err != nil {
		t.Fatal(err)
	}
	var title, body, stored string
	if _, err := pgx.ForEachRow(rows, []any{&title, &body, &stored}, func() error {
		if got := classify.PageText(title, body); got != stored {
			return fmt.Errorf("PageText(%q, ...) differs from the stored text", title)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// NoClassify imports the same pages without PII tags.
func TestImportNoClassifyLeavesPagesUntagged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := pipelineCorpus(t, 14)
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{BatchPages: 4, NoClassify: true})
	if err != nil {
		t.Fatal(err)
	}
	var pages, tags int
	if err := b.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM brain.pages), (SELECT count(*) FROM brain.page_pii)`).Scan(&pages, &tags); err != nil {
		t.Fatal(err)
	}
	if sum.Added != 14 || pages != 14 || tags != 0 {
		t.Fatalf("added %d, stored %d pages and %d PII tags; want 14, 14 and 0", sum.Added, pages, tags)
	}
}

func TestImportStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t)
	dir := pipelineCorpus(t, 40)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := ingest.ImportDir(ctx, b, dir, ingest.Options{BatchPages: 2, Progress: func(done, total int) {
		if done >= 10 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var n int
	if err := b.Pool.QueryRow(context.Background(), `SELECT count(*) FROM brain.pages`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 || n >= 40 {
		t.Errorf("%d pages stored after cancelling midway; want some, not all", n)
	}
}

// Concurrent writers replacing changed pages upsert and decrement the same
// term statistics; whatever they interleave, the statistics must end equal
// to a rebuild from the stored chunks.
func TestConcurrentWritersKeepTermStatisticsExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := pipelineCorpus(t, 60)
	opts := ingest.Options{BatchPages: 2, Writers: 4}
	if _, err := ingest.ImportDir(ctx, b, dir, opts); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for i := 0; i < 60; i++ {
		files[fmt.Sprintf("p/%04d.md", i)] = fmt.Sprintf("# Page %d revised\n\nShared words alpha beta gamma delta, then topic %d again.\n", i, i%5)
	}
	writeFiles(t, dir, files)
	sum, err := ingest.ImportDir(ctx, b, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 60 {
		t.Fatalf("summary = %+v, want 60 updated", sum)
	}
	var diff int
	if err := b.Pool.QueryRow(ctx, `
		WITH want AS (
			SELECT u.lexeme, count(*) AS n FROM brain.chunks c, unnest(c.tsv) u GROUP BY u.lexeme)
		SELECT count(*) FROM want w FULL JOIN brain.term_stats t ON t.lexeme = w.lexeme
		WHERE t.doc_freq IS DISTINCT FROM w.n`).Scan(&diff); err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Errorf("%d lexemes have document frequencies that differ from the stored chunks", diff)
	}
	var nDocs, chunks int64
	if err := b.Pool.QueryRow(ctx, `SELECT (SELECT n_docs FROM brain.corpus_stats), (SELECT count(*) FROM brain.chunks)`).Scan(&nDocs, &chunks); err != nil {
		t.Fatal(err)
	}
	if nDocs != chunks {
		t.Errorf("corpus_stats.n_docs = %d, want %d chunks", nDocs, chunks)
	}
}

// importDocs is ImportDocs, or the same documents prepared first and then
// imported.
var importDocs = []struct {
	name string
	run  func(context.Context, *brain.Brain, []ingest.Doc, ingest.Options) (ingest.Summary, error)
}{
	{"ImportDocs", ingest.ImportDocs},
	{"PrepareDocs then ImportPrepared", func(ctx context.Context, b *brain.Brain, docs []ingest.Doc, o ingest.Options) (ingest.Summary, error) {
		return ingest.ImportPrepared(ctx, b, ingest.PrepareDocs(docs, o))
	}},
}

// ImportDocs and ImportPrepared go through the same pipeline as ImportDir:
// several writers, ids in document order, bad documents named, unchanged
// ones skipped.
func TestImportDocsInParallel(t *testing.T) {
	t.Parallel()
	for _, imp := range importDocs {
		t.Run(imp.name, func(t *testing.T) {
			ctx := context.Background()
			b := dbtest.Open(t)
			var docs []ingest.Doc
			for i := 0; i < 17; i++ {
				docs = append(docs, ingest.Doc{Slug: fmt.Sprintf("docs/%02d", i), Data: []byte(fmt.Sprintf("# Doc %d\n\nBody of document %d.\n", i, i))})
			}
			docs = append(docs,
				ingest.Doc{Slug: "Bad Slug", Data: []byte("# x\n")},
				ingest.Doc{Slug: "docs/latin1", Data: []byte("caf\xe9\n")})
			opts := ingest.Options{Writers: 3, BatchPages: 4}
			sum, err := imp.run(ctx, b, docs, opts)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Files != 19 || sum.Added != 17 || sum.Failed != 2 {
				t.Fatalf("summary = %+v, want 19 documents, 17 added, 2 failed", sum)
			}
			if sum.Failures[0].Path != "Bad Slug" || sum.Failures[1].Path != "docs/latin1" {
				t.Errorf("failures = %+v", sum.Failures)
			}
			if !idsInOrder(t, b, pageIDOrder) {
				t.Error("page ids do not follow document order")
			}
			docs[3].Data = []byte("# Doc 3\n\nA changed body.\n")
			again, err := imp.run(ctx, b, docs[:17], opts)
			if err != nil {
				t.Fatal(err)
			}
			if again.Unchanged != 16 || again.Updated != 1 || again.Added != 0 {
				t.Errorf("re-import = %+v, want 16 unchanged and 1 updated", again)
			}
		})
	}
}

// Documents prepared first are stored exactly as ImportDocs stores them:
// pages, chunks, tsvectors and local embeddings.
func TestImportPreparedStoresWhatImportDocsStores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var docs []ingest.Doc
	for i := 0; i < 9; i++ {
		body := fmt.Sprintf("---\ntitle: Note %d\ntags: [a, b]\n---\n# Note %d\n\n", i, i)
		for j := 0; j < 40*(i+1); j++ {
			body += fmt.Sprintf("Sentence %d about the river walk and dog number %d. ", j, i)
		}
		body += "\n\n## Timeline\n\n- 2024-01-0" + fmt.Sprint(i+1) + ": walked\n"
		docs = append(docs, ingest.Doc{Slug: fmt.Sprintf("notes/%d", i), Data: []byte(body)})
	}
	const dump = `SELECT md5(string_agg(concat_ws('|', p.slug, p.title, p.type, p.body, p.timeline, p.frontmatter::text, p.content_hash,
		c.chunk_index, c.chunk_source, c.text, c.tsv::text, c.doc_len, c.embedding::text), E'\n' ORDER BY p.slug, c.chunk_index)),
		count(*)
		FROM brain.pages p JOIN brain.chunks c ON c.page_id = p.id`
	var sums [2]string
	var rows [2]int
	for i, imp := range importDocs {
		b := dbtest.Open(t)
		if _, err := imp.run(ctx, b, docs, ingest.Options{Writers: 2, BatchPages: 3}); err != nil {
			t.Fatal(err)
		}
		if err := b.Pool.QueryRow(ctx, dump).Scan(&sums[i], &rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if sums[0] != sums[1] || rows[0] < 20 {
		t.Errorf("%d chunks from ImportDocs (%s), %d from ImportPrepared (%s)", rows[0], sums[0], rows[1], sums[1])
	}
}
