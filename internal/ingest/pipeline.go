package ingest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/pgbrain/pgbrain/internal/brain"
)

// The pipeline: batches of parsed items handed to writer connections, with
// page and chunk ids reserved in item order (see runPipeline).

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
				if f.p.note != "" {
					part.Notes = append(part.Notes, Failure{Path: f.rel, Reason: f.p.note})
				}
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
	if err := ctx.Err(); err != nil {
		return seen, err
	}
	// What the writers left in the GIN indexes' pending lists, every
	// search would read whole until autovacuum merged it.
	if sum.Added+sum.Updated > 0 {
		if err := settle(ctx, b); err != nil {
			return seen, err
		}
	}
	return seen, nil
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
