// Package refresh fills missing (stale) chunk embeddings, or recomputes all
// of them: `pgbrain embed --stale|--all`.
package refresh

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/pgbrain/pgbrain/client/brain"
	"github.com/pgbrain/pgbrain/client/embed"
	"github.com/pgbrain/pgbrain/client/ingest"
)

// Options control a refresh.
type Options struct {
	All      bool           // recompute every embedding, not only missing ones
	Embedder embed.Embedder // nil: the brain's local embedder, run in SQL
	Batch    int            // chunks per round trip; default 256
	Progress func(done, total int)
}

// Run fills embeddings and returns how many chunks it embedded.
func Run(ctx context.Context, b *brain.Brain, opts Options) (int64, error) {
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	if opts.All {
		if _, err := b.Pool.Exec(ctx, `SELECT brain.reset_embeddings()`); err != nil {
			return 0, fmt.Errorf("marking embeddings stale: %w", err)
		}
	}
	var total int64
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.chunks WHERE embedding IS NULL`).Scan(&total); err != nil {
		return 0, fmt.Errorf("counting stale chunks: %w", err)
	}
	var done int64
	for done < total {
		var n int64
		var err error
		if opts.Embedder == nil {
			err = b.Pool.QueryRow(ctx, `SELECT brain.embed_stale($1)`, opts.Batch).Scan(&n)
		} else {
			n, err = remoteBatch(ctx, b, opts)
		}
		if err != nil {
			return done, fmt.Errorf("embedding chunks (%d of %d done): %w", done, total, err)
		}
		if n == 0 {
			break
		}
		done += n
		if opts.Progress != nil {
			opts.Progress(int(done), int(total))
		}
	}
	return done, nil
}

func remoteBatch(ctx context.Context, b *brain.Brain, opts Options) (int64, error) {
	rows, err := b.Pool.Query(ctx, `
		SELECT c.id, p.title, c.text FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
		WHERE c.embedding IS NULL ORDER BY c.id LIMIT $1`, opts.Batch)
	if err != nil {
		return 0, err
	}
	var ids []int64
	var texts []string
	for rows.Next() {
		var id int64
		var title, text string
		if err := rows.Scan(&id, &title, &text); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
		texts = append(texts, ingest.ChunkEmbedText(title, text))
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return 0, err
	}
	vecs, err := opts.Embedder.Embed(ctx, texts)
	if err != nil {
		return 0, err
	}
	batch := &pgx.Batch{}
	for i, id := range ids {
		batch.Queue(`UPDATE brain.chunks SET embedding = $2 WHERE id = $1`, id, pgvector.NewVector(vecs[i]))
	}
	if err := b.Pool.SendBatch(ctx, batch).Close(); err != nil {
		return 0, err
	}
	return int64(len(ids)), nil
}
