-- 024_vector_index_shape: a lighter HNSW graph for brain.chunks.embedding.
--
-- Guarantees:
-- * chunks_embedding_hnsw is defined WITH (m = 12, ef_construction = 40)
--   instead of pgvector's defaults (16, 64), as brain.vector_index_resume()
--   and `pgbrain import` build it from now on. It builds in less than half
--   the time (a bulk import with the local embedder spent more than half of
--   its time there), and brain.vector_arm searches it with ef_search at
--   least 80, which finds about as many of the true nearest neighbours as
--   the old graph at 40, measured with the local embedder
--   (docs/performance.md, "The vector index's shape").
-- * An index that holds no vector yet is rebuilt here. Where the brain's
--   chunks have no vectors at all (a --no-embed import, a remote embedder
--   not run yet) that reads brain.chunks once more while writes wait.
-- * An index that holds vectors only has its options changed: pgvector
--   reads m from the index itself, so its graph keeps m 16 (new vectors go
--   in with ef_construction 40) until it is rebuilt, by a bulk import that
--   at least doubles the brain or by
--   REINDEX INDEX CONCURRENTLY brain.chunks_embedding_hnsw.
--   No vector is read or written.
-- * A brain whose index is suspended (a bulk import running, or one that
--   crashed) has no index to change: the rebuild that ends the suspension
--   builds the new shape.

ALTER INDEX IF EXISTS brain.chunks_embedding_hnsw SET (m = 12, ef_construction = 40);

DO $do$
BEGIN
	IF to_regclass('brain.chunks_embedding_hnsw') IS NOT NULL
	   AND NOT EXISTS (SELECT 1 FROM brain.chunks WHERE embedding IS NOT NULL) THEN
		REINDEX INDEX brain.chunks_embedding_hnsw;
	END IF;
END
$do$;

UPDATE brain.config SET value = '24' WHERE key = 'schema_version';
