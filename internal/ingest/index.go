package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/nice"
)

// The HNSW index on brain.chunks.embedding is suspended (dropped) for a bulk
// import, because inserting vectors one by one into it costs several times
// more than building it once over the loaded rows. While it is absent,
// brain.vector_search answers nothing, so searches run keyword-only (and say
// so in their meta) instead of scanning every vector of the brain.
//
// Crash safety: the suspension is recorded in brain.vector_index_state in
// the transaction that drops the index, and every command that suspends
// holds the shared advisory lock indexLockKey on its own connection for as
// long as it runs. The server releases that lock when the command's
// connection goes away, however the command ended. Whoever takes the lock
// exclusively therefore knows that no suspending command is alive, and may
// rebuild: the last of several concurrent bulk imports, the next import,
// `pgbrain doctor --fix` (RestoreIndex).
//
// The rebuild is CREATE INDEX CONCURRENTLY, so writers are not blocked while
// it runs; a build killed half-way leaves an INVALID index, which the next
// rebuild drops first. A load into an empty brain rebuilds without
// CONCURRENTLY: there is nothing for other writers to wait for but their
// own pages, and it saves the concurrent build's second pass over the
// table. Readers are never blocked by either.

// indexLockKey is the advisory lock that suspending commands hold shared.
// It is one key per database (advisory locks are per database).
const indexLockKey int64 = 0x70676272_61696e01 // "pgbrain" + 1

const indexName = "chunks_embedding_hnsw"

// createIndexSQL is brain.vector_index_resume()'s definition, built
// concurrently (which cannot run inside a function or transaction).
const createIndexSQL = `CREATE INDEX CONCURRENTLY IF NOT EXISTS chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding vector_cosine_ops) WITH (m = 12, ef_construction = 40)`

// IndexStatus is brain.vector_index_status(): ready, suspended, rebuilding,
// missing, invalid or exact.
func IndexStatus(ctx context.Context, b *brain.Brain) (string, error) {
	var s string
	if err := b.Pool.QueryRow(ctx, `SELECT brain.vector_index_status()`).Scan(&s); err != nil {
		return "", fmt.Errorf("reading the vector index status: %w", err)
	}
	return s, nil
}

// suspension is a held suspension of the vector index.
type suspension struct {
	conn *pgxpool.Conn // holds the shared advisory lock
	// plain: the brain was empty before the load, so the rebuild need not
	// let other writers in, and CREATE INDEX without CONCURRENTLY saves
	// its second pass over the table.
	plain bool
}

// suspendIndex drops the vector index for a bulk load and records why,
// holding the shared lock until resume.
func suspendIndex(ctx context.Context, b *brain.Brain, reason string, plain bool) (*suspension, error) {
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to suspend the vector index: %w", err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock_shared($1)`, indexLockKey); err != nil {
		conn.Release()
		return nil, fmt.Errorf("taking the vector index lock: %w", err)
	}
	s := &suspension{conn: conn, plain: plain}
	// The record and the drop commit together: an index is never missing
	// without a record saying why.
	tx, err := conn.Begin(ctx)
	if err == nil {
		_, err = tx.Exec(ctx, `INSERT INTO brain.vector_index_state (index_name, state, reason) VALUES ($1, 'suspended', $2)
			ON CONFLICT (index_name) DO UPDATE SET state = 'suspended', reason = EXCLUDED.reason, since = now()`, indexName, reason)
		if err == nil {
			_, err = tx.Exec(ctx, `DROP INDEX IF EXISTS brain.chunks_embedding_hnsw`)
		}
		if err == nil {
			err = tx.Commit(ctx)
		} else {
			_ = tx.Rollback(ctx)
		}
	}
	if err != nil {
		s.release()
		return nil, fmt.Errorf("suspending the vector index for a bulk load: %w", err)
	}
	return s, nil
}

// release gives up the shared lock and the connection.
func (s *suspension) release() {
	ctx := context.Background()
	if _, err := s.conn.Exec(ctx, `SELECT pg_advisory_unlock_shared($1)`, indexLockKey); err != nil {
		// A connection in an unknown state must not go back to the pool
		// holding the lock.
		_ = s.conn.Conn().Close(ctx)
	}
	s.conn.Release()
}

// resume ends this suspension and rebuilds the index unless another bulk
// import still holds it suspended (that one rebuilds when it ends).
// It reports whether this call rebuilt the index: another import still
// holding it suspended rebuilds it when that import ends.
func (s *suspension) resume(ctx context.Context, b *brain.Brain) (bool, error) {
	s.release()
	rebuilt, err := restoreIndex(ctx, b, !s.plain)
	if err != nil && !errors.Is(err, ErrIndexBusy) {
		return false, err
	}
	return rebuilt, nil
}

// EmbedError is a batch whose vectors the remote embedder did not give:
// the batch is not written (its pages keep what they held), and a caller
// can offer to import without vectors instead.
type EmbedError struct {
	Chunks int
	Err    error
}

func (e *EmbedError) Error() string {
	n := "chunks"
	if e.Chunks == 1 {
		n = "chunk"
	}
	return fmt.Sprintf("embedding %d %s: %v", e.Chunks, n, e.Err)
}

func (e *EmbedError) Unwrap() error { return e.Err }

// ErrIndexBusy is returned by RestoreIndex when a running command holds the
// vector index suspended; that command rebuilds it when it ends.
var ErrIndexBusy = errors.New("a running import holds the vector index suspended; it rebuilds the index when it ends")

// RestoreIndex rebuilds the vector index when it is not ready and no running
// command holds it suspended: after a crash, or when the last bulk import
// ends. It drops an INVALID index left by a killed build first, and clears
// the record in brain.vector_index_state. It reports whether it rebuilt; an
// index that is ready only has a stale record cleared. ErrIndexBusy means a
// running import owns the index.
func RestoreIndex(ctx context.Context, b *brain.Brain) (bool, error) {
	return restoreIndex(ctx, b, true)
}

// restoreIndex is RestoreIndex, building without CONCURRENTLY when
// concurrently is false.
func restoreIndex(ctx context.Context, b *brain.Brain, concurrently bool) (bool, error) {
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("connecting to rebuild the vector index: %w", err)
	}
	defer conn.Release()
	release, got, err := brain.TryAdvisory(ctx, conn, indexLockKey)
	if err != nil {
		return false, fmt.Errorf("taking the vector index lock: %w", err)
	}
	if !got {
		return false, ErrIndexBusy
	}
	defer release()
	var status string
	if err := conn.QueryRow(ctx, `SELECT brain.vector_index_status()`).Scan(&status); err != nil {
		return false, fmt.Errorf("reading the vector index status: %w", err)
	}
	// "exact": a brain that scans its vectors on purpose (LongMemEval's
	// scratch brain) wants no index.
	if status == "ready" || status == "exact" {
		if _, err := conn.Exec(ctx, `DELETE FROM brain.vector_index_state WHERE index_name = $1`, indexName); err != nil {
			return false, fmt.Errorf("clearing the vector index record: %w", err)
		}
		return false, nil
	}
	if _, err := conn.Exec(ctx, `INSERT INTO brain.vector_index_state (index_name, state, reason) VALUES ($1, 'rebuilding', 'rebuilding the vector index')
		ON CONFLICT (index_name) DO UPDATE SET state = 'rebuilding', since = now()`, indexName); err != nil {
		return false, fmt.Errorf("recording the vector index rebuild: %w", err)
	}
	var invalid bool // stays false when there is no index at all
	if err := conn.QueryRow(ctx, `SELECT NOT x.indisvalid OR NOT x.indisready FROM pg_catalog.pg_index x
		WHERE x.indexrelid = to_regclass('brain.chunks_embedding_hnsw')`).Scan(&invalid); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, fmt.Errorf("checking the vector index: %w", err)
	}
	drop, create := `DROP INDEX CONCURRENTLY IF EXISTS brain.chunks_embedding_hnsw`, createIndexSQL
	if !concurrently {
		drop, create = `DROP INDEX IF EXISTS brain.chunks_embedding_hnsw`, `SELECT brain.vector_index_resume()`
	}
	if invalid {
		if _, err := conn.Exec(ctx, drop); err != nil {
			return false, fmt.Errorf("dropping the invalid vector index left by an interrupted build: %w", err)
		}
	}
	raised, err := raiseBuildMemory(ctx, conn.Conn())
	if err != nil {
		return false, err
	}
	if raised {
		defer conn.Exec(context.WithoutCancel(ctx), `RESET maintenance_work_mem`)
	}
	// A lowered import's build workers are lowered too (internal/nice).
	stop := nice.FollowWorkers(ctx, conn.Conn(), b.Pool, 200*time.Millisecond)
	_, err = conn.Exec(ctx, create)
	stop()
	if err != nil {
		return false, fmt.Errorf("rebuilding the vector index (run 'pgbrain doctor --fix' to retry): %w", err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM brain.vector_index_state WHERE index_name = $1`, indexName); err != nil {
		return false, fmt.Errorf("clearing the vector index record: %w", err)
	}
	return true, nil
}

// prepareIndex readies the vector index for an import of about newPages
// new pages: one that at least doubles the brain (all sources count, since
// the index serves them all) suspends it, and returns the suspension to
// resume; any other import first restores an index that a crashed command
// left suspended, so that searches get it back.
func prepareIndex(ctx context.Context, b *brain.Brain, newPages int, opts Options) (*suspension, error) {
	bulk, brainPages := false, 0
	if bulkLoad(newPages, 0, opts) {
		if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.pages`).Scan(&brainPages); err != nil {
			return nil, fmt.Errorf("counting the brain's pages: %w", err)
		}
		bulk = bulkLoad(newPages, brainPages, opts)
	}
	if bulk {
		return suspendIndex(ctx, b, fmt.Sprintf("bulk import into source %q", opts.Source), brainPages == 0)
	}
	if _, err := RestoreIndex(ctx, b); err != nil && !errors.Is(err, ErrIndexBusy) {
		return nil, err
	}
	return nil, nil
}

// IndexBusy reports whether a running command holds the vector index
// suspended or is rebuilding it.
func IndexBusy(ctx context.Context, b *brain.Brain) (bool, error) {
	held, err := brain.AdvisoryHeld(ctx, b.Pool, indexLockKey)
	if err != nil {
		return false, fmt.Errorf("checking the vector index lock: %w", err)
	}
	return held, nil
}

// buildMemoryCap bounds what raiseBuildMemory asks for: past it the build
// still completes, only more slowly.
const buildMemoryCap = 4 << 30

// raiseBuildMemory gives this session's index build the memory the HNSW
// graph needs (about dim*4 + 600 bytes a vector, plus a quarter), up to
// buildMemoryCap, when maintenance_work_mem is smaller. pgvector builds the
// graph in memory while it fits and otherwise inserts into the on-disk
// graph, several times slower: with the default 256MB that is past about
// 170,000 vectors, and a 200,000-page import spent most of its time there.
// It reports whether it changed the setting (the caller resets it).
func raiseBuildMemory(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var want, have int64
	err := conn.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM brain.chunks WHERE embedding IS NOT NULL)
		       * (greatest(a.atttypmod, 1) * 4 + 600) * 5 / 4,
		       pg_size_bytes(current_setting('maintenance_work_mem'))
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = 'brain.chunks'::regclass AND a.attname = 'embedding'`).Scan(&want, &have)
	if err != nil {
		return false, fmt.Errorf("sizing the vector index build: %w", err)
	}
	want = min(want, buildMemoryCap)
	if want <= have {
		return false, nil
	}
	if _, err := conn.Exec(ctx, `SELECT set_config('maintenance_work_mem', $1, false)`, fmt.Sprintf("%dkB", want/1024)); err != nil {
		return false, fmt.Errorf("raising maintenance_work_mem for the vector index build: %w", err)
	}
	return true, nil
}
