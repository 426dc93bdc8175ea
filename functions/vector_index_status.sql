-- brain.vector_index_status(): the state of the HNSW index on
-- brain.chunks.embedding, one of
--   'ready'      the index exists and is valid: vector search uses it;
--   'suspended'  dropped for a bulk import that is recorded as running;
--   'rebuilding' a rebuild is recorded as running (the index is absent or
--                not yet valid);
--   'missing'    no index and nothing recorded (`pgbrain doctor --fix`
--                rebuilds it);
--   'invalid'    an index that a killed CREATE INDEX CONCURRENTLY left
--                behind, not usable by queries (`pgbrain doctor --fix`
--                drops and rebuilds it);
--   'exact'      no valid index, and the session asks for exact scans
--                (brain.vector_scan = 'exact', which only a brain of a few
--                hundred chunks should set, such as LongMemEval's scratch
--                brain): vector search scans every vector.
-- The state rows are written by the importing client (internal/ingest/index.go);
-- whether the command that wrote one still runs is known to the client,
-- through an advisory lock, not here: a row whose command crashed still
-- reads 'suspended' or 'rebuilding' until `pgbrain doctor --fix` or the next
-- import rebuilds the index.
-- brain.vector_index_ready(): whether vector search runs now: the index is
-- valid, or exact scans were asked for.
CREATE OR REPLACE FUNCTION brain.vector_index_status() RETURNS text
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	RETURN (SELECT CASE
		WHEN coalesce(i.valid, false) THEN 'ready'
		WHEN coalesce(current_setting('brain.vector_scan', true), '') = 'exact' THEN 'exact'
		WHEN i.valid IS NOT NULL AND s.state IS DISTINCT FROM 'rebuilding' THEN 'invalid'
		WHEN s.state IS NOT NULL THEN s.state
		ELSE 'missing'
	END
	FROM (SELECT (SELECT x.indisvalid AND x.indisready FROM pg_catalog.pg_index x
			WHERE x.indexrelid = to_regclass('brain.chunks_embedding_hnsw')) AS valid) i,
	     (SELECT (SELECT state FROM brain.vector_index_state
			WHERE index_name = 'chunks_embedding_hnsw') AS state) s);
END
$fn$;

CREATE OR REPLACE FUNCTION brain.vector_index_ready() RETURNS boolean
LANGUAGE sql STABLE
BEGIN ATOMIC
	SELECT brain.vector_index_status() IN ('ready', 'exact');
END;
