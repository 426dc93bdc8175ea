package ingest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
)

// PendingResult is what ChunkPending did.
type PendingResult struct {
	Pages    int       `json:"pages"`          // pages rewritten
	Chunks   int       `json:"chunks_written"` // their chunks
	Failures []Failure `json:"failures"`       // pages left pending, with the reason
}

// ChunkPending does for pages written outside pgbrain (psql) what put would
// have done: each page listed in brain.page_chunks_pending is stored again
// from its stored body, as `pgbrain put` stores that markdown (title, type
// and timeline from the body; chunks, vectors, PII classification), one
// page per transaction. A page whose body does not parse stays pending and
// is named in Failures; the others proceed.
func ChunkPending(ctx context.Context, b *brain.Brain, opts Options) (PendingResult, error) {
	res := PendingResult{Failures: []Failure{}}
	var after int64
	for {
		type pendingPage struct {
			id           int64
			source, slug string
			body         string
		}
		rows, err := b.Pool.Query(ctx, `
			SELECT p.id, p.source_id, p.slug, p.body
			FROM brain.page_chunks_pending d JOIN brain.pages p ON p.id = d.page_id
			WHERE d.page_id > $1 ORDER BY d.page_id LIMIT 100`, after)
		if err != nil {
			return res, fmt.Errorf("listing pages pending chunking: %w", err)
		}
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingPage, error) {
			var p pendingPage
			return p, r.Scan(&p.id, &p.source, &p.slug, &p.body)
		})
		if err != nil {
			return res, fmt.Errorf("listing pages pending chunking: %w", err)
		}
		if len(batch) == 0 {
			if res.Pages > 0 {
				return res, settle(ctx, b)
			}
			return res, nil
		}
		for _, p := range batch {
			after = p.id
			// A content hash no file has: put then rewrites the page even
			// though its body is what is stored.
			if _, err := b.Pool.Exec(ctx, `UPDATE brain.pages SET content_hash = repeat('0', 64) WHERE id = $1`, p.id); err != nil {
				return res, fmt.Errorf("rechunking %s: %w", p.slug, err)
			}
			o := opts
			o.Source = p.source
			sum, err := putPage(ctx, b, p.slug, []byte(p.body), o)
			if err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				res.Failures = append(res.Failures, Failure{Path: p.source + ":" + p.slug, Reason: err.Error()})
				continue
			}
			// A body with no text has no chunks to clear the mark.
			if _, err := b.Pool.Exec(ctx, `DELETE FROM brain.page_chunks_pending WHERE page_id = $1`, p.id); err != nil {
				return res, fmt.Errorf("rechunking %s: %w", p.slug, err)
			}
			res.Pages++
			res.Chunks += sum.Chunks
		}
	}
}
