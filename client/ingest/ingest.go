// Package ingest imports markdown into a brain: it walks a directory, parses
// each file (client/markdown), skips files whose content hash is unchanged,
// and writes the rest in batches through COPY and brain.import_apply. A bad
// file is reported with its reason and the rest of the import proceeds.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgvector/pgvector-go"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/classify"
	"github.com/pgbrain/pgbrain/client/embed"
	"github.com/pgbrain/pgbrain/client/markdown"
	"github.com/pgbrain/pgbrain/client/pii"
)

// Options control an import.
type Options struct {
	Source string // brain.sources id; default "default"
	// NoEmbed leaves new chunks without embeddings (stale) for a later
	// `pgbrain embed --stale`.
	NoEmbed bool
	// Embedder computes vectors in the client (a remote provider). Nil means
	// the brain's local embedder, which runs inside the database.
	Embedder embed.Embedder
	// Prune deletes pages of the source whose files are gone. It is
	// skipped when the walk was incomplete, and refused when it would
	// delete more than half of the source's pages unless Force is set.
	Prune bool
	// Force lets Prune delete more than half of the source's pages.
	Force bool
	// NoClassify skips PII classification, so pages get no brain.page_pii
	// tags. Only for a brain that is never served, such as LongMemEval's
	// scratch database: the refusal policy reads those tags.
	NoClassify bool
	// BatchPages is how many changed pages go into one transaction.
	BatchPages int
	// FixedBatches makes every batch BatchPages pages from the start,
	// without the smaller batches at the start and end of a large import
	// (batchPages); the bench sets it to show the difference.
	FixedBatches bool
	// Writers is how many connections apply batches at once; default
	// DefaultWriters.
	Writers int
	// BulkThreshold is how many new files (and at least as many as are
	// stored) make an import a bulk load. Default DefaultBulkThreshold.
	BulkThreshold int
	// Progress, when set, is told how many files have been handled.
	Progress func(done, total int)
	Chunking markdown.ChunkOptions
}

// Failure names a file that was not imported and why.
type Failure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Summary is what an import did.
type Summary struct {
	Files     int       `json:"files"`
	Added     int       `json:"added"`
	Updated   int       `json:"updated"`
	Unchanged int       `json:"unchanged"`
	Failed    int       `json:"failed"`
	Pruned    int       `json:"pruned"`
	Chunks    int       `json:"chunks_written"`
	Failures  []Failure `json:"failures"`
	// Skipped names entries of the directory that were not walked or read
	// (see walkDir); Collisions names files stored under a suffixed slug.
	Skipped    []Skipped   `json:"skipped"`
	Collisions []Collision `json:"collisions"`
	// PruneSkipped says why a requested prune deleted nothing.
	PruneSkipped string        `json:"prune_skipped,omitempty"`
	Elapsed      time.Duration `json:"-"`
}

type parsed struct {
	path   string
	page   *markdown.Page
	chunks []markdown.Chunk
	pii    []string // PII categories of the page (pii.Classify)
	// pageID and chunkIDs, when set, are the ids reserved for the page if
	// it is new and for its chunks.
	pageID   int64
	chunkIDs []int64
}

// DefaultBatchPages is how many pages a batch holds at most. Every batch
// upserts the BM25 statistics of each distinct lexeme it holds once, so
// fewer, larger batches cost the server less: on the bench's 20,000 pages,
// 2,000 a batch used 8% less server CPU than 500 (docs/performance.md).
const DefaultBatchPages = 2000

// batchBytes also ends a batch, so that a folder of large files does not
// hold thousands of them in memory at once (a few batches are in flight).
const batchBytes = 32 << 20

func (o *Options) defaults() {
	if o.Source == "" {
		o.Source = "default"
	}
	if o.BatchPages <= 0 {
		o.BatchPages = DefaultBatchPages
	}
	if o.Writers <= 0 {
		o.Writers = DefaultWriters()
	}
	if o.BulkThreshold <= 0 {
		o.BulkThreshold = DefaultBulkThreshold
	}
}

// ImportDir imports every .md file below dir.
func ImportDir(ctx context.Context, b *brain.Brain, dir string, opts Options) (sum Summary, err error) {
	opts.defaults()
	start := time.Now()
	walked, err := walkDir(dir)
	if err != nil {
		return sum, err
	}
	sum.Files, sum.Skipped = len(walked.files), walked.skipped
	if err := checkSource(ctx, b, opts.Source); err != nil {
		return sum, err
	}
	known, err := knownHashes(ctx, b, opts.Source)
	if err != nil {
		return sum, err
	}
	files, collisions := assignSlugs(walked.files, known)
	sum.Collisions = collisions
	// A load that at least doubles the brain builds the vector index once
	// at the end instead of inserting every vector into it (index.go).
	susp, err := prepareIndex(ctx, b, len(files)-len(known), opts)
	if err != nil {
		return sum, err
	}
	if susp != nil {
		defer func() {
			if rerr := susp.resume(context.WithoutCancel(ctx), b); rerr != nil && err == nil {
				err = rerr
			}
		}()
	}
	seen, err := runPipeline(ctx, b, len(files), func(i int) fileResult {
		return parseFile(files[i], known, opts)
	}, func(i int) int64 { return files[i].size }, opts, &sum)
	if err != nil {
		return sum, err
	}
	if opts.Prune {
		if walked.incomplete {
			sum.PruneSkipped = "the walk was incomplete (see the skipped entries), so nothing was pruned"
		} else if sum.Pruned, sum.PruneSkipped, err = prune(ctx, b, opts.Source, seen, opts.Force); err != nil {
			return sum, err
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// fileResult is one file (or document) parsed and classified, on its way to
// a writer in a stretch of opts.BatchPages of them.
type fileResult struct {
	rel       string
	slug      string // set when the path gave a slug, even if parsing failed
	p         parsed
	err       error
	unchanged bool
}

// runPipeline overlaps the client's work with the database's, and the
// database's work across connections: parser goroutines read, parse, chunk
// and classify the next stretch of files while opts.Writers connections
// apply earlier stretches. Page and chunk ids are reserved here, in file
// order, before a batch is handed to a writer, so the ids (which break
// ranking ties) do not depend on which writer finished first. It returns
// the slugs of every file seen.
// size(i), when not nil, is item i's size in bytes, which bounds a batch's
// bytes as well as its pages.
func runPipeline(ctx context.Context, b *brain.Brain, n int, parse func(i int) fileResult, size func(i int) int64, opts Options, sum *Summary) ([]string, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	groups := make(chan []fileResult, 1)
	go func() {
		defer close(groups)
		for k, lo, hi := 0, 0, 0; lo < n && ctx.Err() == nil; k, lo = k+1, hi {
			hi = batchEnd(lo, n, batchPages(k, lo, n, opts.BatchPages, opts.Writers, opts.FixedBatches), size)
			select {
			case groups <- parseGroup(lo, hi, parse):
			case <-ctx.Done():
			}
		}
	}()

	type job struct {
		batch []parsed
		files int // files the batch's group covered, for progress
	}
	jobs := make(chan job)
	var (
		mu   sync.Mutex // guards sum and done
		done int
		wg   sync.WaitGroup
	)
	finished := func(items int, part *Summary) {
		mu.Lock()
		defer mu.Unlock()
		if part != nil {
			sum.merge(part)
		}
		done += items
		if opts.Progress != nil {
			opts.Progress(done, n)
		}
	}
	for w := 0; w < opts.Writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var part Summary
				if err := writeBatch(ctx, b, opts, j.batch, &part); err != nil {
					cancel(err)
					continue // drain, so the dispatcher never blocks
				}
				finished(j.files, &part)
			}
		}()
	}

	seen := make([]string, 0, n)
	for g := range groups {
		var batch []parsed
		var part Summary
		for _, f := range g {
			if f.slug != "" {
				seen = append(seen, f.slug)
			}
			switch {
			case f.err != nil:
				part.fail(f.rel, f.err.Error())
			case f.unchanged:
				part.Unchanged++
			default:
				batch = append(batch, f.p)
			}
		}
		if len(batch) == 0 {
			finished(len(g), &part)
			continue
		}
		// One writer applies batches in order anyway; several need ids
		// reserved in order to number pages as one would.
		if opts.Writers > 1 {
			if err := reserveIDs(ctx, b, batch); err != nil {
				cancel(err)
				break
			}
		}
		mu.Lock()
		sum.merge(&part)
		mu.Unlock()
		select {
		case jobs <- job{batch: batch, files: len(g)}:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	for range groups {
		// Let the parser finish its current stretch and exit.
	}
	sort.SliceStable(sum.Failures, func(i, j int) bool { return sum.Failures[i].Path < sum.Failures[j].Path })
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return seen, err
	}
	return seen, ctx.Err()
}

// reserveIDs takes page and chunk ids for a batch from the tables' own
// sequences, in the batch's order. A page that turns out to be an update
// keeps its stored id; its reserved one is simply never used.
func reserveIDs(ctx context.Context, b *brain.Brain, batch []parsed) error {
	nChunks := 0
	for _, p := range batch {
		nChunks += len(p.chunks)
	}
	var pageIDs, chunkIDs []int64
	if err := b.Pool.QueryRow(ctx, `
		SELECT array(SELECT nextval('brain.pages_id_seq') FROM generate_series(1, $1) ORDER BY 1),
		       array(SELECT nextval('brain.chunks_id_seq') FROM generate_series(1, $2) ORDER BY 1)`,
		len(batch), nChunks).Scan(&pageIDs, &chunkIDs); err != nil {
		return fmt.Errorf("reserving ids for %d pages: %w", len(batch), err)
	}
	k := 0
	for i := range batch {
		batch[i].pageID = pageIDs[i]
		batch[i].chunkIDs = chunkIDs[k : k+len(batch[i].chunks)]
		k += len(batch[i].chunks)
	}
	return nil
}

// rampPages is the first batch of a large import, and the smallest batch
// at its end (batchPages).
const rampPages = 250

// batchPages is how many items the k-th batch, starting at item lo of n,
// may hold when writers apply batches of at most maxPages. Batches of
// maxPages cost the server least, but no writer starts before its first
// batch is parsed, and whoever takes the last batch works alone once the
// others are done. So the first batches start at rampPages and double up to
// maxPages, and once the rest of the import is less than two full batches a
// writer, each batch takes a (2 x writers)th of the rest, down to 2 x
// rampPages, so the writers finish at about the same time. Unless fixed is
// set; and a maxPages of at most 2 x rampPages is used as it is.
func batchPages(k, lo, n, maxPages, writers int, fixed bool) int {
	if fixed || maxPages <= 2*rampPages {
		return maxPages
	}
	p := maxPages
	if k < 16 {
		p = min(p, rampPages<<k)
	}
	rest := n - lo
	return min(p, max(2*rampPages, (rest+2*writers-1)/(2*writers)))
}

// batchEnd is the end of the batch starting at item lo: at most maxPages
// items and, when size is known, at most batchBytes (but never empty).
func batchEnd(lo, n, maxPages int, size func(i int) int64) int {
	hi := min(lo+maxPages, n)
	if size == nil {
		return hi
	}
	bytes := size(lo)
	for i := lo + 1; i < hi; i++ {
		if bytes += size(i); bytes > batchBytes {
			return i
		}
	}
	return hi
}

// parseGroup runs parse on items lo..hi-1 on every core. Unchanged items
// are only hashed: they cost no chunking and no classification.
func parseGroup(lo, hi int, parse func(i int) fileResult) []fileResult {
	out := make([]fileResult, hi-lo)
	workers := min(runtime.GOMAXPROCS(0), hi-lo)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < hi-lo; i += workers {
				out[i] = parse(lo + i)
			}
		}(w)
	}
	wg.Wait()
	return out
}

func parseFile(f slugged, known map[string]string, opts Options) fileResult {
	r := fileResult{rel: f.rel, slug: f.slug}
	if f.err != nil {
		r.err = f.err
		return r
	}
	data, err := readFile(f.walkFile)
	if err != nil {
		r.err = err
		return r
	}
	return parseData(r, data, known, opts)
}

// parseData parses one item's markdown into r (whose rel and slug are set):
// unchanged pages are only hashed, changed ones are prepared for writing.
func parseData(r fileResult, data []byte, known map[string]string, opts Options) fileResult {
	page, err := markdown.Parse(r.slug, data)
	if err == nil {
		err = checkLimits(page)
	}
	if err != nil {
		r.err = err
		return r
	}
	if known[page.Slug] == page.ContentHash {
		r.unchanged = true
		return r
	}
	r.p = prepare(r.rel, page, opts)
	return r
}

// prepare finishes a parsed page for writing: normalised type, chunks and
// PII categories.
func prepare(path string, page *markdown.Page, opts Options) parsed {
	page.Type = normalizeType(page.Type)
	p := parsed{path: path, page: page, chunks: markdown.ChunkPage(page, opts.Chunking)}
	if !opts.NoClassify {
		p.pii = pii.Classify(classify.PageText(page.Title, page.Body))
	}
	return p
}

// DefaultWriters is one writer per core, at most four: computing tsvectors
// is most of a batch's cost and runs on the writer's server process, while
// more writers mostly queue on the shared term statistics.
func DefaultWriters() int { return max(1, min(runtime.GOMAXPROCS(0), 4)) }

// DefaultBulkThreshold is the smallest import that suspends the vector index.
const DefaultBulkThreshold = 1000

// bulkLoad decides whether an import of newPages into a brain (every
// source) of brainPages is large enough that rebuilding the HNSW index
// beats inserting into it.
func bulkLoad(newPages, brainPages int, opts Options) bool {
	return !opts.NoEmbed && newPages >= opts.BulkThreshold && newPages >= brainPages
}

// PutPage stores one markdown document under slug, replacing what was there.
// It reports whether the page was added, updated or unchanged.
func PutPage(ctx context.Context, b *brain.Brain, slug string, data []byte, opts Options) (Summary, error) {
	opts.defaults()
	var sum Summary
	if !markdown.ValidSlug(slug) {
		return sum, invalidSlug(slug)
	}
	if err := checkSource(ctx, b, opts.Source); err != nil {
		return sum, err
	}
	page, err := markdown.Parse(slug, data)
	if err == nil {
		err = checkLimits(page)
	}
	if err != nil {
		return sum, fmt.Errorf("page %s: %w", slug, err)
	}
	p := prepare(slug, page, opts)
	if err := writeBatch(ctx, b, opts, []parsed{p}, &sum); err != nil {
		return sum, err
	}
	if sum.Failed > 0 {
		return sum, fmt.Errorf("page %s: %s", slug, sum.Failures[0].Reason)
	}
	return sum, nil
}

// Doc is one in-memory markdown document for ImportDocs.
type Doc struct {
	Slug string
	Data []byte
}

// ImportDocs stores in-memory documents the way ImportDir stores files,
// through the same pipeline: unchanged ones are skipped, the rest are written
// in batches of opts.BatchPages by opts.Writers connections, and a bad
// document is named in the summary while the others land.
func ImportDocs(ctx context.Context, b *brain.Brain, docs []Doc, opts Options) (Summary, error) {
	opts.defaults()
	return importItems(ctx, b, len(docs), opts, func(i int, known map[string]string) fileResult {
		return parseDoc(docs[i], known, opts)
	})
}

// Prepared is a set of in-memory documents parsed, chunked and classified
// for ImportPrepared. Preparing needs no database, so it can run while the
// database is busy with something else.
type Prepared struct {
	items []fileResult
	opts  Options
}

// PrepareDocs parses docs on every core for a later ImportPrepared with
// opts. Unlike ImportDocs it cannot skip unchanged documents before
// chunking them, since it does not read the brain: it suits documents that
// are mostly new.
func PrepareDocs(docs []Doc, opts Options) *Prepared {
	opts.defaults()
	return &Prepared{
		items: parseGroup(0, len(docs), func(i int) fileResult { return parseDoc(docs[i], nil, opts) }),
		opts:  opts,
	}
}

// Len is the number of documents prepared.
func (p *Prepared) Len() int { return len(p.items) }

// ImportPrepared stores prepared documents as ImportDocs would have stored
// them, with the options they were prepared with; documents whose content
// the brain already holds are left alone.
func ImportPrepared(ctx context.Context, b *brain.Brain, p *Prepared) (Summary, error) {
	return importItems(ctx, b, len(p.items), p.opts, func(i int, known map[string]string) fileResult {
		r := p.items[i]
		if r.err == nil && known[r.p.page.Slug] == r.p.page.ContentHash {
			r.unchanged, r.p = true, parsed{}
		}
		return r
	})
}

// importItems writes n items through the pipeline; item(i, known) yields
// item i given the stored content hashes of the source.
func importItems(ctx context.Context, b *brain.Brain, n int, opts Options, item func(i int, known map[string]string) fileResult) (Summary, error) {
	start := time.Now()
	sum := Summary{Files: n}
	if err := checkSource(ctx, b, opts.Source); err != nil {
		return sum, err
	}
	known, err := knownHashes(ctx, b, opts.Source)
	if err != nil {
		return sum, err
	}
	if _, err := runPipeline(ctx, b, n, func(i int) fileResult { return item(i, known) }, nil, opts, &sum); err != nil {
		return sum, err
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

func parseDoc(d Doc, known map[string]string, opts Options) fileResult {
	r := fileResult{rel: d.Slug}
	if !markdown.ValidSlug(d.Slug) {
		r.err = invalidSlug(d.Slug)
		return r
	}
	r.slug = d.Slug
	return parseData(r, d.Data, known, opts)
}

// invalidSlug is the error for a slug given by the caller (not derived from
// a path) that brain.pages would refuse.
func invalidSlug(slug string) error {
	return fmt.Errorf("slug %q is not valid: use '/'-separated lower-case segments of letters, digits and symbols of any script, '.', '_', '+' and '-', each starting with a letter, digit or symbol, in NFC, at most %d bytes (as 'pgbrain import' derives them from file names)", slug, markdown.MaxSlugLen)
}

func (s *Summary) merge(o *Summary) {
	s.Added += o.Added
	s.Updated += o.Updated
	s.Unchanged += o.Unchanged
	s.Failed += o.Failed
	s.Chunks += o.Chunks
	s.Failures = append(s.Failures, o.Failures...)
}

func (s *Summary) fail(path, reason string) {
	s.Failed++
	s.Failures = append(s.Failures, Failure{Path: path, Reason: reason})
}

// normalizeType maps a free-form frontmatter type ("Meeting Notes") onto the
// shape brain.pages accepts ("meeting-notes").
func normalizeType(t string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(t)) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-'
		if !ok {
			if sb.Len() > 0 && !dash {
				sb.WriteByte('-')
				dash = true
			}
			continue
		}
		sb.WriteRune(r)
		dash = r == '-'
	}
	out := strings.Trim(sb.String(), "-_")
	if len(out) > 64 {
		out = strings.Trim(out[:64], "-_")
	}
	if out == "" {
		return "page"
	}
	return out
}

func checkSource(ctx context.Context, b *brain.Brain, source string) error {
	var ok bool
	if err := b.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM brain.sources WHERE id = $1)`, source).Scan(&ok); err != nil {
		return fmt.Errorf("looking up source %q: %w", source, err)
	}
	if !ok {
		return fmt.Errorf("source %q does not exist: create it with 'pgbrain sources add %s'", source, source)
	}
	return nil
}

func knownHashes(ctx context.Context, b *brain.Brain, source string) (map[string]string, error) {
	rows, err := b.Pool.Query(ctx, `SELECT slug, content_hash FROM brain.pages WHERE source_id = $1`, source)
	if err != nil {
		return nil, fmt.Errorf("reading existing pages: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var slug, hash string
		if err := rows.Scan(&slug, &hash); err != nil {
			return nil, err
		}
		out[slug] = hash
	}
	return out, rows.Err()
}

// writeBatch applies a batch in one transaction. When the database rejects
// the batch because of one page's data, each page is retried alone so the
// culprit is named and the others still land. A batch that lost a deadlock
// or serialization conflict with a concurrent writer is retried whole.
func writeBatch(ctx context.Context, b *brain.Brain, opts Options, batch []parsed, sum *Summary) error {
	vectors, err := embedBatch(ctx, opts, batch)
	if err != nil {
		return err
	}
	err = applyRetrying(ctx, b, opts, batch, vectors, sum)
	if err == nil || !isDataError(err) || len(batch) == 1 {
		if err != nil && isDataError(err) {
			sum.fail(batch[0].path, describeDBError(err))
			return nil
		}
		return err
	}
	for i := range batch {
		var v [][][]float32
		if vectors != nil {
			v = vectors[i : i+1]
		}
		if err := applyRetrying(ctx, b, opts, batch[i:i+1], v, sum); err != nil {
			if !isDataError(err) {
				return err
			}
			sum.fail(batch[i].path, describeDBError(err))
		}
	}
	return nil
}

// maxConflictRetries bounds how often a batch is retried after losing a
// deadlock or serialization conflict.
const maxConflictRetries = 5

func applyRetrying(ctx context.Context, b *brain.Brain, opts Options, batch []parsed, vectors [][][]float32, sum *Summary) error {
	for attempt := 0; ; attempt++ {
		err := applyBatch(ctx, b, opts, batch, vectors, sum)
		if err == nil || !isConflict(err) || attempt == maxConflictRetries {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 20 * time.Millisecond):
		}
	}
}

// embedBatch computes chunk vectors with a client-side embedder; the local
// embedder needs nothing here because the database computes its vectors.
func embedBatch(ctx context.Context, opts Options, batch []parsed) ([][][]float32, error) {
	if opts.Embedder == nil || opts.NoEmbed {
		return nil, nil
	}
	var texts []string
	for _, p := range batch {
		for _, c := range p.chunks {
			texts = append(texts, ChunkEmbedText(p.page.Title, c.Text))
		}
	}
	vecs, err := opts.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embedding %d chunks: %w", len(texts), err)
	}
	out := make([][][]float32, len(batch))
	k := 0
	for i, p := range batch {
		out[i] = vecs[k : k+len(p.chunks)]
		k += len(p.chunks)
	}
	return out, nil
}

// ChunkEmbedText is what a client-side embedder sees for a chunk: the page
// title gives context to chunks that do not repeat it.
func ChunkEmbedText(title, text string) string { return title + "\n\n" + text }

func applyBatch(ctx context.Context, b *brain.Brain, opts Options, batch []parsed, vectors [][][]float32, sum *Summary) error {
	pageRows := make([][]any, len(batch))
	var chunkRows [][]any
	slugs := make([]string, len(batch))
	cats := make([][]string, len(batch))
	for i, p := range batch {
		pg := p.page
		pageRows[i] = []any{nullID(p.pageID), pg.Slug, pg.Title, pg.Type, pg.Body, pg.Timeline, pg.Frontmatter, pg.ContentHash}
		for j, c := range p.chunks {
			var emb any
			if vectors != nil {
				emb = pgvector.NewVector(vectors[i][j])
			}
			var id any
			if p.chunkIDs != nil {
				id = p.chunkIDs[j]
			}
			chunkRows = append(chunkRows, []any{id, pg.Slug, c.Index, c.Source, c.Text, emb})
		}
		slugs[i], cats[i] = pg.Slug, p.pii
	}
	var added, updated, unchanged int
	err := pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
		if opts.NoEmbed {
			if _, err := tx.Exec(ctx, `SET LOCAL brain.embed = 'off'`); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `SELECT brain.import_begin()`); err != nil {
			return fmt.Errorf("starting import batch: %w", err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"import_pages"},
			[]string{"id", "slug", "title", "type", "body", "timeline", "frontmatter", "content_hash"},
			pgx.CopyFromRows(pageRows)); err != nil {
			return fmt.Errorf("copying pages: %w", err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"import_chunks"},
			[]string{"id", "slug", "chunk_index", "chunk_source", "text", "embedding"},
			pgx.CopyFromRows(chunkRows)); err != nil {
			return fmt.Errorf("copying chunks: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT added, updated, unchanged FROM brain.import_apply($1)`, opts.Source).
			Scan(&added, &updated, &unchanged); err != nil {
			return fmt.Errorf("applying import batch: %w", err)
		}
		if opts.NoClassify {
			return nil
		}
		return classify.RecordApplied(ctx, tx, slugs, cats)
	})
	if err != nil {
		return err
	}
	sum.Added += added
	sum.Updated += updated
	sum.Unchanged += unchanged
	sum.Chunks += len(chunkRows)
	return nil
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// prune deletes the source's pages whose slugs are not in keep, unless that
// is more than half of them and force is not set: then it deletes nothing
// and says why.
func prune(ctx context.Context, b *brain.Brain, source string, keep []string, force bool) (n int, refused string, err error) {
	err = pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
		var gone, total int
		if err := tx.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE NOT (slug = ANY ($2))), count(*)
			FROM brain.pages WHERE source_id = $1`, source, keep).Scan(&gone, &total); err != nil {
			return err
		}
		if gone == 0 {
			return nil
		}
		if 2*gone > total && !force {
			refused = fmt.Sprintf("pruning would delete %d of the %d pages of source %q, more than half, so nothing was pruned: check the directory, or pass --force to prune anyway", gone, total, source)
			return nil
		}
		tag, err := tx.Exec(ctx, `DELETE FROM brain.pages WHERE source_id = $1 AND NOT (slug = ANY ($2))`, source, keep)
		n = int(tag.RowsAffected())
		return err
	})
	if err != nil {
		return 0, "", fmt.Errorf("pruning pages whose files are gone: %w", err)
	}
	return n, refused, nil
}

// isDataError reports a rejection caused by the rows themselves (class 22
// data exception, class 23 integrity violation), as opposed to the database
// being unreachable.
func isDataError(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "23")
	}
	return false
}

// isConflict reports a transaction that lost to a concurrent one (deadlock
// detected, serialization failure) and may simply be run again.
func isConflict(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

func describeDBError(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if pgErr.ConstraintName != "" {
			return fmt.Sprintf("rejected by the database: %s (constraint %s)", pgErr.Message, pgErr.ConstraintName)
		}
		return "rejected by the database: " + pgErr.Message
	}
	return err.Error()
}
