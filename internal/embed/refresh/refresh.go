// Package refresh fills missing (stale) chunk embeddings, or recomputes all
// of them: `pgbrain embed --stale|--all`.
//
// Recomputing all of them never leaves the brain without vectors: new vectors
// are computed beside the old ones and swapped in a batch of whole pages at a
// time, each batch in one transaction that also records how far the run got
// in brain.embed_runs. A run stopped at any point (a failing embedder, a
// kill, a crash) has kept the old vector of every chunk it had not reached
// yet, and the next `pgbrain embed --all` or `pgbrain doctor --fix` resumes
// it where it stopped.
package refresh

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/embed"
	"github.com/pgbrain/pgbrain/internal/ingest"
)

// Options control a refresh.
type Options struct {
	All      bool           // recompute every embedding, not only missing ones
	Embedder embed.Embedder // nil: the brain's local embedder, run in SQL
	Batch    int            // chunks per round trip; default 256
	Progress func(done, total int)
}

// runLockKey is the advisory lock a running `embed --all` holds, so two of
// them never work on one run and doctor can tell a running run from an
// interrupted one.
const runLockKey int64 = 0x70676272_61696e02 // "pgbrain" + 2

// ErrRunBusy is returned when another process is running `embed --all`.
var ErrRunBusy = errors.New("another 'pgbrain embed --all' is running on this brain; wait for it to finish")

// Run fills embeddings and returns how many chunks it embedded.
func Run(ctx context.Context, b *brain.Brain, opts Options) (int64, error) {
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	if opts.All {
		n, _, err := all(ctx, b, opts, true)
		return n, err
	}
	var total int64
	if err := b.Pool.QueryRow(ctx, `SELECT brain.missing_embeddings()`).Scan(&total); err != nil {
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

// Resume finishes an `embed --all` run that was interrupted, if there is one,
// and returns how many chunks it embedded and whether there was a run.
func Resume(ctx context.Context, b *brain.Brain, opts Options) (int64, bool, error) {
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	return all(ctx, b, opts, false)
}

// Interrupted describes an `embed --all` run that was started and not
// finished.
type Interrupted struct {
	StartedAt  time.Time `json:"started_at"`
	LastPageID int64     `json:"last_page_id"` // the run covers pages up to this id
	DonePageID int64     `json:"done_page_id"` // pages up to this id are done
	ChunksDone int64     `json:"chunks_done"`
	// PagesDone and Pages count the pages the run has done and covers
	// (ids are not counts: deleted pages leave gaps).
	PagesDone int64 `json:"pages_done"`
	Pages     int64 `json:"pages"`
	Running   bool  `json:"running"` // a process is working on it now
}

// Open reports the open `embed --all` run, or nil when there is none.
func Open(ctx context.Context, b *brain.Brain) (*Interrupted, error) {
	var r Interrupted
	err := b.Pool.QueryRow(ctx, `SELECT started_at, last_page_id, done_page_id, chunks_done
		FROM brain.embed_runs WHERE finished_at IS NULL`).Scan(&r.StartedAt, &r.LastPageID, &r.DonePageID, &r.ChunksDone)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading brain.embed_runs: %w", err)
	}
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE id <= $1), count(*) FILTER (WHERE id <= $2) FROM brain.pages`,
		r.DonePageID, r.LastPageID).Scan(&r.PagesDone, &r.Pages); err != nil {
		return nil, fmt.Errorf("counting the pages of the embed --all run: %w", err)
	}
	// Whether the run's lock is held tells a running run from a dead one.
	if r.Running, err = brain.AdvisoryHeld(ctx, b.Pool, runLockKey); err != nil {
		return nil, fmt.Errorf("checking for a running embed --all: %w", err)
	}
	return &r, nil
}

// run is one row of brain.embed_runs.
type run struct {
	id, last, done, chunks int64
}

// all recomputes the vectors of every page that existed when the run
// started, resuming the open run if there is one. With start false it only
// resumes. Pages added after the start got vectors from the embedder their
// writer used, which is the brain's embedder, so they need nothing.
func all(ctx context.Context, b *brain.Brain, opts Options, start bool) (int64, bool, error) {
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("connecting to embed: %w", err)
	}
	defer conn.Release()
	release, got, err := brain.TryAdvisory(ctx, conn, runLockKey)
	if err != nil {
		return 0, false, fmt.Errorf("taking the embed --all lock: %w", err)
	}
	if !got {
		return 0, false, ErrRunBusy
	}
	defer release()

	var r run
	err = conn.QueryRow(ctx, `SELECT id, last_page_id, done_page_id, chunks_done FROM brain.embed_runs WHERE finished_at IS NULL`).
		Scan(&r.id, &r.last, &r.done, &r.chunks)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && !start:
		return 0, false, nil
	case errors.Is(err, pgx.ErrNoRows):
		err = conn.QueryRow(ctx, `INSERT INTO brain.embed_runs (embedder, model, last_page_id)
			SELECT $1, $2, coalesce(max(id), 0) FROM brain.pages RETURNING id, last_page_id`,
			b.Settings.Embedder, b.Settings.EmbedModel).Scan(&r.id, &r.last)
		if err != nil {
			return 0, false, fmt.Errorf("starting an embed --all run: %w", err)
		}
	case err != nil:
		return 0, false, fmt.Errorf("reading brain.embed_runs: %w", err)
	}

	var total, done int64
	stopped := func(err error) (int64, bool, error) {
		return done, true, fmt.Errorf("embed --all stopped after %d of %d chunks (the others keep their old vectors; run 'pgbrain embed --all' again to resume): %w",
			done, total, err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.chunks WHERE page_id > $1 AND page_id <= $2`, r.done, r.last).Scan(&total); err != nil {
		return stopped(fmt.Errorf("counting chunks to embed: %w", err))
	}
	for r.done < r.last {
		// The batch ends with the page holding the opts.Batch-th chunk, so
		// every page is swapped whole.
		var upto *int64
		if err := conn.QueryRow(ctx, `SELECT page_id FROM brain.chunks WHERE page_id > $1 AND page_id <= $2
			ORDER BY page_id LIMIT 1 OFFSET $3`, r.done, r.last, opts.Batch-1).Scan(&upto); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return stopped(fmt.Errorf("choosing the next pages to embed: %w", err))
		}
		hi := r.last
		if upto != nil {
			hi = *upto
		}
		var n int64
		if opts.Embedder == nil {
			n, err = localPages(ctx, conn, r, hi)
		} else {
			n, err = remotePages(ctx, conn, opts.Embedder, r, hi)
		}
		if err != nil {
			return stopped(fmt.Errorf("recomputing the embeddings of pages %d..%d: %w", r.done+1, hi, err))
		}
		r.done, r.chunks, done = hi, r.chunks+n, done+n
		if opts.Progress != nil {
			opts.Progress(int(done), int(total))
		}
	}
	if _, err := conn.Exec(ctx, `UPDATE brain.embed_runs SET finished_at = now() WHERE id = $1`, r.id); err != nil {
		return stopped(fmt.Errorf("finishing the run: %w", err))
	}
	return done, true, nil
}

// localPages swaps in the local embedder's vectors for pages (r.done, hi]
// and records the progress, in one transaction. Rows whose vector is
// already right are not rewritten.
func localPages(ctx context.Context, conn *pgxpool.Conn, r run, hi int64) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			UPDATE brain.chunks c SET embedding = f.v
			FROM (SELECT id, brain.embed_tsvector(tsv) AS v FROM brain.chunks WHERE page_id > $1 AND page_id <= $2) f
			WHERE c.id = f.id AND c.embedding IS DISTINCT FROM f.v`, r.done, hi); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `
			UPDATE brain.embed_runs SET done_page_id = $2,
				chunks_done = chunks_done + (SELECT count(*) FROM brain.chunks WHERE page_id > $3 AND page_id <= $2)
			WHERE id = $1 RETURNING chunks_done - $4`, r.id, hi, r.done, r.chunks).Scan(&n)
	})
	return n, err
}

// remotePages embeds the chunks of pages (r.done, hi] with emb, then swaps
// the vectors in and records the progress in one transaction. A chunk
// rewritten meanwhile (its xmin changed) is left alone: its writer gave it
// a vector for its new text.
func remotePages(ctx context.Context, conn *pgxpool.Conn, emb embed.Embedder, r run, hi int64) (int64, error) {
	rows, err := conn.Query(ctx, `
		SELECT c.id, c.xmin::text, p.title, c.text FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
		WHERE c.page_id > $1 AND c.page_id <= $2 ORDER BY c.id`, r.done, hi)
	if err != nil {
		return 0, fmt.Errorf("reading chunks: %w", err)
	}
	var ids []int64
	var xmins, texts []string
	for rows.Next() {
		var id int64
		var xmin, title, text string
		if err := rows.Scan(&id, &xmin, &title, &text); err != nil {
			rows.Close()
			return 0, fmt.Errorf("reading chunks: %w", err)
		}
		ids, xmins = append(ids, id), append(xmins, xmin)
		texts = append(texts, ingest.ChunkEmbedText(title, text))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("reading chunks: %w", err)
	}
	var vecs [][]float32
	if len(texts) > 0 {
		if vecs, err = emb.Embed(ctx, texts); err != nil {
			return 0, err
		}
		if len(vecs) != len(texts) {
			return 0, fmt.Errorf("the embedder returned %d vectors for %d texts", len(vecs), len(texts))
		}
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for i, id := range ids {
			batch.Queue(`UPDATE brain.chunks SET embedding = $2 WHERE id = $1 AND xmin::text = $3`, id, pgvector.NewVector(vecs[i]), xmins[i])
		}
		batch.Queue(`UPDATE brain.embed_runs SET done_page_id = $2, chunks_done = chunks_done + $3 WHERE id = $1`, r.id, hi, len(ids))
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		return 0, fmt.Errorf("storing vectors: %w", err)
	}
	return int64(len(ids)), nil
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
