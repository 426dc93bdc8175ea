-- brain.vector_search(qvec, lim, source_ids, compiled_only): the vector arm,
-- the chunks nearest to qvec by cosine distance.
--
-- Guarantees: the ORDER BY distance ... LIMIT runs in its own CTE on
-- brain.chunks alone, the shape the planner serves from the HNSW index;
-- hnsw.ef_search is raised (for the rest of the transaction) to the number of
-- rows asked for, since the default 40 silently caps results, and filters use
-- pgvector's iterative scan so a filter cannot starve the list. A NULL qvec
-- returns no rows. Order is distance ASC, chunk id ASC. lim is clamped to
-- 1..1000 (the largest ef_search pgvector accepts).
-- While the brain has no valid HNSW index (suspended for a bulk import, being
-- rebuilt, or lost to a crash) it returns no rows and raises a NOTICE, rather
-- than scanning every vector of the brain: hybrid search then answers from
-- the keyword arm alone. A brain of a few hundred chunks may ask for exact
-- scans instead (brain.vector_scan = 'exact', as LongMemEval's scratch brain
-- does). The check reads the catalog, not brain.vector_index_status(), so
-- a query does not depend on the index state table.
-- SECURITY DEFINER, like brain.keyword_scan: ids and distances only, found
-- past row security so that a blocked chunk cannot starve the HNSW list;
-- brain.search reads text through the caller's policies.
CREATE OR REPLACE FUNCTION brain.vector_search(
	qvec vector,
	lim int DEFAULT 10,
	source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false)
RETURNS TABLE (chunk_id bigint, page_id bigint, distance float8, vector_rank int)
LANGUAGE plpgsql VOLATILE ROWS 30 SECURITY DEFINER SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	only_compiled boolean := coalesce(compiled_only, false);
BEGIN
	IF qvec IS NULL THEN
		RETURN;
	END IF;
	IF NOT coalesce((SELECT i.indisvalid AND i.indisready FROM pg_catalog.pg_index i
			WHERE i.indexrelid = to_regclass('brain.chunks_embedding_hnsw')), false)
	   AND coalesce(current_setting('brain.vector_scan', true), '') <> 'exact' THEN
		RAISE NOTICE 'the vector index is suspended or being rebuilt: searching by keyword only (see pgbrain doctor)';
		RETURN;
	END IF;
	lim := least(greatest(coalesce(lim, 10), 1), 1000);
	PERFORM set_config('hnsw.ef_search', greatest(lim, 40)::text, true);
	IF only_compiled OR source_ids IS NOT NULL THEN
		PERFORM set_config('hnsw.iterative_scan', 'strict_order', true);
	END IF;
	RETURN QUERY
	WITH nn AS MATERIALIZED (
		SELECT c.id, c.page_id, c.embedding <=> qvec AS d
		FROM brain.chunks c
		WHERE (NOT only_compiled OR c.chunk_source = 'compiled_truth')
		  AND (source_ids IS NULL OR EXISTS (
			SELECT 1 FROM brain.pages p WHERE p.id = c.page_id AND p.source_id = ANY (source_ids)))
		ORDER BY c.embedding <=> qvec
		LIMIT lim
	)
	SELECT nn.id, nn.page_id, nn.d, (row_number() OVER (ORDER BY nn.d, nn.id))::int AS r
	FROM nn
	WHERE nn.d IS NOT NULL
	ORDER BY r;
END
$fn$;
