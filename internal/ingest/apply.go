package ingest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgvector/pgvector-go"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/classify"
)

// The apply stage: one batch written in one transaction (COPY into the
// staging tables and brain.import_apply), retried whole after a conflict and
// page by page after a data error.

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
// deadlock or serialization conflict. Writers replacing pages that share
// words upsert the same term statistics from two statements (the old
// chunks' and the new ones'), each in lexeme order but not in one order
// across both, so a re-import of many changed pages by several writers can
// lose several deadlocks in a row.
const maxConflictRetries = 10

func applyRetrying(ctx context.Context, b *brain.Brain, opts Options, batch []parsed, vectors [][][]float32, sum *Summary) error {
	for attempt := 0; ; attempt++ {
		err := applyBatch(ctx, b, opts, batch, vectors, sum)
		if err == nil || !isConflict(err) || attempt == maxConflictRetries {
			return err
		}
		// Doubling from 20 ms to at most a second, so a loaded machine (a
		// test under the race detector lost eleven in a row with linear
		// steps) lets the other writers finish first; jittered, so writers
		// that deadlocked together do not retry in step and meet again.
		step := time.Duration(min(1<<attempt, 50)) * 20 * time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(step + rand.N(step)):
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
		return nil, &EmbedError{Chunks: len(texts), Err: err}
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
	var added, updated, unchanged, markedPut int
	var overwrote []string
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
		if err := tx.QueryRow(ctx, `SELECT added, updated, unchanged, marked_put, overwrote_put FROM brain.import_apply($1, $2)`, opts.Source, opts.origin).
			Scan(&added, &updated, &unchanged, &markedPut, &overwrote); err != nil {
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
	sum.MarkedPut += markedPut
	sum.OverwrotePut = append(sum.OverwrotePut, overwrote...)
	sum.Chunks += len(chunkRows)
	return nil
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
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
