// Package ingest imports markdown into a brain: it walks a directory, parses
// each file (internal/markdown), skips files whose content hash is unchanged,
// and writes the rest in batches through COPY and brain.import_apply. A bad
// file is reported with its reason and the rest of the import proceeds.
package ingest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/embed"
	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/internal/nice"
	"github.com/pgbrain/pgbrain/internal/shellquote"
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
	// Prune deletes pages of the source whose files are gone: pages an
	// import wrote, never pages written by PutPage. It is skipped when the
	// walk was incomplete, and refused when it would delete more than half
	// of the source's imported pages unless Force is set.
	Prune bool
	// Force lets Prune delete more than half of the source's imported pages.
	Force bool
	// Nested imports a folder that lies inside, or holds, a folder the
	// source was imported from (checkNesting), whose files then get second
	// pages under new slugs.
	Nested bool
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
	// BulkThreshold is how many files to write, new or changed (and at
	// least as many as are stored), make an import a bulk load. Default
	// DefaultBulkThreshold.
	BulkThreshold int
	// KeepPriority leaves the import's server processes at their usual CPU
	// priority. By default ImportDir lowers them to nice 10 (internal/nice)
	// when the server runs on this machine, so that other sessions'
	// queries get the CPU first while it runs.
	KeepPriority bool
	// LowerPriority, when set, replaces nice.Lower on each of ImportDir's
	// connections; its error is ignored like nice.Lower's refusals.
	LowerPriority func(ctx context.Context, c *pgx.Conn) error
	// Progress, when set, is told how many files have been handled.
	Progress func(done, total int)
	Chunking markdown.ChunkOptions

	// origin is what a new or changed page records in brain.pages.origin:
	// "file" (the default) for pages read from a directory, which --prune
	// may delete, "put" for PutPage, which it never does.
	origin string
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
	// Notes names files stored otherwise than written (a frontmatter type
	// with no letter, or cut to its limit), in file order.
	Notes []Failure `json:"notes,omitempty"`
	// Skipped names entries of the directory that were not walked or read
	// (see walkDir); Collisions names files stored under a suffixed slug.
	Skipped    []Skipped   `json:"skipped"`
	Collisions []Collision `json:"collisions"`
	// NotMarkdown counts the files below the directory left out for not
	// ending in .md (a folder of .markdown or .txt files imports nothing).
	NotMarkdown int `json:"not_markdown,omitempty"`
	// PruneSkipped says why a requested prune deleted nothing.
	PruneSkipped string `json:"prune_skipped,omitempty"`
	// PrunedSlugs are the pages the prune deleted, in slug order.
	PrunedSlugs []string `json:"pruned_slugs,omitempty"`
	// MarkedPut counts unchanged imported pages that PutPage made pages
	// written by name, which import --prune keeps.
	MarkedPut int `json:"marked_put,omitempty"`
	// OverwrotePut are the pages written by name (put, psql) whose content
	// this import replaced with their file's: they are file pages now.
	OverwrotePut []string      `json:"overwrote_put,omitempty"`
	Elapsed      time.Duration `json:"-"`
	// IndexRebuild is how long rebuilding the vector index after a bulk
	// load took, included in Elapsed; 0 when the import kept the index.
	IndexRebuild time.Duration `json:"-"`
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
	if o.origin == "" {
		o.origin = "file"
	}
}

// ImportDir imports every .md file below dir.
func ImportDir(ctx context.Context, b *brain.Brain, dir string, opts Options) (sum Summary, err error) {
	opts.defaults()
	start := time.Now()
	// The source, and a folder nested in one it was imported from, are
	// checked before the walk (importing ~ or / by mistake reads nothing
	// first); what is not a directory is left to walkDir's message.
	root, err := importRoot(dir)
	if err != nil {
		return sum, err
	}
	var avoid []string // the source's other folders, not entered through a symlink
	if isDir(dir) {
		if err := checkSource(ctx, b, opts.Source); err != nil {
			return sum, err
		}
		if !opts.Nested {
			if avoid, err = checkNesting(ctx, b, opts.Source, dir, root); err != nil {
				return sum, err
			}
		}
	}
	walked, err := walkDir(dir, avoid...)
	if err != nil {
		return sum, err
	}
	if !opts.KeepPriority {
		// Every connection of the import, the writers and the one that
		// rebuilds the vector index, comes from this pool. Closed last,
		// after the deferred index resume below.
		low, err := nice.Brain(ctx, b, opts.LowerPriority)
		if err != nil {
			return sum, err
		}
		defer low.Pool.Close()
		b = low
	}
	sum.Files, sum.Skipped, sum.NotMarkdown = len(walked.files), walked.skipped, walked.notMarkdown
	// Recorded before any write, so an import that fails half way still
	// guards its folder; a folder without a markdown file is no folder of
	// the source's pages.
	if len(walked.files) > 0 {
		if err := recordRoot(ctx, b, opts.Source, root); err != nil {
			return sum, err
		}
	}
	known, err := knownHashes(ctx, b, opts.Source)
	if err != nil {
		return sum, err
	}
	files, collisions := assignSlugs(walked.files, known)
	sum.Collisions = collisions
	// A load that writes at least as many pages as the brain holds (new
	// ones, or changed: re-importing an edited folder rewrites every
	// vector) builds the vector index once at the end instead of inserting
	// every vector into it (index.go).
	writes := len(files) - len(known)
	if !opts.NoEmbed && len(files) >= opts.BulkThreshold {
		writes = countChanged(ctx, files, known)
	}
	susp, err := prepareIndex(ctx, b, writes, opts)
	if err != nil {
		return sum, err
	}
	if susp != nil {
		defer func() {
			t0 := time.Now()
			rebuilt, rerr := susp.resume(context.WithoutCancel(ctx), b)
			if rerr != nil && err == nil {
				err = rerr
			}
			// The rebuild is part of the import's time (and can be most of
			// it); an import that left it to another says nothing of it.
			if rebuilt {
				sum.IndexRebuild = time.Since(t0)
			}
			sum.Elapsed = time.Since(start)
		}()
	}
	seen, err := runPipeline(ctx, b, len(files), func(i int) fileResult {
		return parseFile(files[i], known, opts)
	}, func(i int) int64 { return files[i].size }, opts, &sum)
	// (writers finish batches in any order)
	slices.Sort(sum.OverwrotePut)
	if err != nil {
		return sum, err
	}
	if opts.Prune {
		if walked.incomplete {
			sum.PruneSkipped = "the walk was incomplete (see the skipped entries), so nothing was pruned"
		} else if sum.PrunedSlugs, sum.PruneSkipped, err = prune(ctx, b, opts.Source, seen, opts.Force, root, dir); err != nil {
			return sum, err
		} else {
			sum.Pruned = len(sum.PrunedSlugs)
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// countChanged reads and hashes every file whose slug has a stored page,
// on every core, and returns how many files the import will write: those
// with no stored page and those whose content differs. Each hash is kept
// in files, so the parse stage does not read an unchanged file again. A
// file that cannot be read counts as written (the parse stage reports it).
func countChanged(ctx context.Context, files []slugged, known map[string]string) int {
	var changed atomic.Int64
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				f := &files[i]
				h, stored := known[f.slug]
				if f.err != nil || !stored {
					changed.Add(1)
					continue
				}
				data, err := readFile(f.walkFile)
				if err != nil {
					changed.Add(1)
					continue
				}
				if f.hash = markdown.ContentHash(data); f.hash != h {
					changed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return int(changed.Load())
}

// DefaultWriters is one writer per core, at most four: computing tsvectors
// is most of a batch's cost and runs on the writer's server process, while
// more writers mostly queue on the shared term statistics.
func DefaultWriters() int { return max(1, min(runtime.GOMAXPROCS(0), 4)) }

// DefaultBulkThreshold is the smallest import that suspends the vector index.
const DefaultBulkThreshold = 1000

// bulkLoad decides whether an import writing newPages (new or changed)
// into a brain (every source) of brainPages is large enough that rebuilding the HNSW index
// beats inserting into it.
func bulkLoad(newPages, brainPages int, opts Options) bool {
	return !opts.NoEmbed && newPages >= opts.BulkThreshold && newPages >= brainPages
}

// PutPage stores one markdown document under slug, replacing what was there.
// It reports whether the page was added, updated or unchanged. A page
// written is merged into the text indexes at once (settle), so a brain
// written page by page while it is searched keeps no pending index
// entries that every search would read.
func PutPage(ctx context.Context, b *brain.Brain, slug string, data []byte, opts Options) (Summary, error) {
	sum, err := putPage(ctx, b, slug, data, opts)
	if err == nil && sum.Added+sum.Updated > 0 {
		err = settle(ctx, b)
	}
	return sum, err
}

// settle merges the GIN indexes' pending lists (brain.settle_text_indexes).
func settle(ctx context.Context, b *brain.Brain) error {
	if _, err := b.Pool.Exec(ctx, `SELECT brain.settle_text_indexes()`); err != nil {
		return fmt.Errorf("merging the new index entries (brain.settle_text_indexes): %w", err)
	}
	return nil
}

// putPage is PutPage without the settle, for callers that write many pages.
func putPage(ctx context.Context, b *brain.Brain, slug string, data []byte, opts Options) (Summary, error) {
	opts.defaults()
	opts.origin = "put"
	var sum Summary
	if !markdown.ValidSlug(slug) {
		err := invalidSlug(slug)
		if s, ok := markdown.SuggestSlug(slug); ok {
			err = fmt.Errorf("%w; a file of that name imports as %q: put it under that slug", err, s)
		}
		return sum, err
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

func (s *Summary) merge(o *Summary) {
	s.Added += o.Added
	s.Updated += o.Updated
	s.Unchanged += o.Unchanged
	s.Failed += o.Failed
	s.Chunks += o.Chunks
	s.Failures = append(s.Failures, o.Failures...)
	s.Notes = append(s.Notes, o.Notes...)
	s.OverwrotePut = append(s.OverwrotePut, o.OverwrotePut...)
}

func (s *Summary) fail(path, reason string) {
	s.Failed++
	s.Failures = append(s.Failures, Failure{Path: path, Reason: reason})
}

func checkSource(ctx context.Context, b *brain.Brain, source string) error {
	ok, err := b.SourceExists(ctx, source)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("source %q does not exist: create it with: pgbrain sources add %s", source, shellquote.Quote(source))
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

// namedFolders names up to three folders: "/a, /b and 2 more".
func namedFolders(folders []string) string {
	if len(folders) == 1 {
		return folders[0]
	}
	shown := folders[:min(len(folders), 3)]
	if len(folders) > 3 {
		return strings.Join(shown, ", ") + fmt.Sprintf(" and %d more", len(folders)-3)
	}
	return strings.Join(shown[:len(shown)-1], ", ") + " and " + shown[len(shown)-1]
}

// plural is "1 page" or "3 pages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// prune deletes the source's imported pages (origin 'file') whose slugs are
// not in keep, unless that is more than half of them and force is not set:
// then it deletes nothing and says why. Pages written by put are never
// pruned, and do not count towards the half. Nor, without force, does it
// prune a source also imported from folders other than root that are
// still there: their pages have no file in dir either. The folders are
// read under a lock on the source's row, which an import recording its
// folder (a foreign key to it) waits for, so a folder recorded meanwhile
// is counted; after a prune the source mirrors root alone.
func prune(ctx context.Context, b *brain.Brain, source string, keep []string, force bool, root, dir string) (deleted []string, refused string, err error) {
	err = pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM brain.sources WHERE id = $1 FOR UPDATE`, source); err != nil {
			return err
		}
		others, err := otherRoots(ctx, tx, source, root)
		if err != nil {
			return err
		}
		var gone, total int
		if err := tx.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE NOT (slug = ANY ($2))), count(*)
			FROM brain.pages WHERE source_id = $1 AND origin = 'file'`, source, keep).Scan(&gone, &total); err != nil {
			return err
		}
		if gone == 0 {
			return nil
		}
		also := ""
		if len(others) > 0 {
			also = fmt.Sprintf(", and the source was also imported from %s, whose pages are among them", namedFolders(others))
		}
		if 2*gone > total && !force {
			refused = fmt.Sprintf("pruning would delete %d of the %d imported pages of source %q, more than half%s, so nothing was pruned: check the directory, or pass --force to prune anyway", gone, total, source, also)
			return nil
		}
		if len(others) > 0 && !force {
			refused = fmt.Sprintf("pruning would delete %s of source %q%s, so nothing was pruned: to keep them, import each folder into a source of its own (pgbrain sources add NAME, then pgbrain import --source NAME DIR); if they are gone or moved here, pass --force to prune every page of the source that is not in %s", plural(gone, "page"), source, also, dir)
			return nil
		}
		rows, err := tx.Query(ctx, `DELETE FROM brain.pages WHERE source_id = $1 AND origin = 'file' AND NOT (slug = ANY ($2)) RETURNING slug`, source, keep)
		if err != nil {
			return err
		}
		if deleted, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		slices.Sort(deleted)
		return forgetOtherRoots(ctx, tx, source, root)
	})
	if err != nil {
		return nil, "", fmt.Errorf("pruning pages whose files are gone: %w", err)
	}
	return deleted, refused, nil
}
