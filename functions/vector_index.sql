-- brain.vector_index_suspend() / brain.vector_index_resume(): the bulk-load
-- switch for the HNSW index on brain.chunks.embedding.
--
-- Inserting vectors one by one into HNSW costs several times more than
-- building the index once over the loaded rows, so a large import suspends
-- the index and resumes it at the end. resume() is also the single definition
-- of the index (migration 001 calls it). While it is suspended, searches run
-- keyword-only (brain.vector_search answers nothing rather than scanning
-- every vector). Both are idempotent. `pgbrain import` does not call these:
-- it records the suspension in brain.vector_index_state and rebuilds with
-- CREATE INDEX CONCURRENTLY (internal/ingest/index.go), which a function
-- cannot run; from psql, after suspend(), prefer
--   CREATE INDEX CONCURRENTLY IF NOT EXISTS chunks_embedding_hnsw
--     ON brain.chunks USING hnsw (embedding vector_cosine_ops)
--     WITH (m = 12, ef_construction = 40);
-- The graph is lighter than pgvector's default (m 16, ef_construction 64):
-- it builds in less than half the time, and brain.vector_arm searches it
-- with ef_search at least 80, which finds about as many of the exact
-- nearest neighbours as the default graph at ef_search 40, measured with
-- the local embedder (migration 024, docs/performance.md "The vector
-- index's shape").
CREATE OR REPLACE FUNCTION brain.vector_index_suspend() RETURNS void
LANGUAGE sql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
	DROP INDEX IF EXISTS brain.chunks_embedding_hnsw;
$fn$;

CREATE OR REPLACE FUNCTION brain.vector_index_resume() RETURNS void
LANGUAGE sql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
	CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding vector_cosine_ops)
		WITH (m = 12, ef_construction = 40);
$fn$;
