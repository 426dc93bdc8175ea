-- brain.vector_search(qvec, lim, source_ids, compiled_only): the vector arm,
-- the chunks nearest to qvec by cosine distance.
--
-- Guarantees: the ORDER BY distance ... LIMIT runs in its own CTE on
-- brain.chunks alone, the shape the planner serves from the HNSW index;
-- hnsw.ef_search is raised (for the rest of the transaction) to the number of
-- rows asked for, since the default 40 silently caps results, and to at
-- least 80, which the index's lighter graph (brain.vector_index_resume)
-- needs to find about as many true nearest neighbours as pgvector's default
-- graph at 40; every scan
-- uses pgvector's iterative scan so neither a filter nor the dead row
-- versions a bulk rewrite (embed --all) leaves until VACUUM can starve the
-- list (it only scans further when the first pass found too few rows). A NULL qvec
-- returns no rows. Order is distance ASC, chunk id ASC. lim is clamped to
-- 1..1000 (the largest ef_search pgvector accepts).
-- While the brain has no valid HNSW index (suspended for a bulk import, being
-- rebuilt, or lost to a crash) it returns no rows and raises a NOTICE, rather
-- than scanning every vector of the brain: hybrid search then answers from
-- the keyword arm alone. A brain of a few hundred chunks may ask for exact
-- scans instead (brain.vector_scan = 'exact', as LongMemEval's scratch brain
-- does). The check reads the catalog, not brain.vector_index_status(), so
-- a query does not depend on the index state table.
-- The work is done by brain.vector_arm(qvec, lim, source_ids,
-- compiled_only, withheld_within), which returns the same rows and then one
-- last row with chunk_id NULL whose meta is {withheld}; vector_search is
-- those rows without it.
-- SECURITY DEFINER (vector_arm), like brain.keyword_scan: found past row
-- security so that a policy cannot cost the HNSW index; it filters its own
-- output by the caller's row security (brain.caller_scope()): a caller
-- restricted to agent-visible pages gets only rows of those pages, ranked
-- 1.. among them, and the hidden pages among the first withheld_within
-- (default lim) rows only as meta.withheld (brain.withheld_of).
DROP FUNCTION IF EXISTS brain.vector_search(vector, int, text[], boolean);
CREATE OR REPLACE FUNCTION brain.vector_arm(
	qvec vector,
	lim int DEFAULT 10,
	source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false,
	withheld_within int DEFAULT NULL)
RETURNS TABLE (chunk_id bigint, page_id bigint, distance float8, vector_rank int, meta jsonb)
LANGUAGE plpgsql VOLATILE ROWS 30 SECURITY DEFINER SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	only_compiled boolean := coalesce(compiled_only, false);
	scope text := brain.caller_scope();
	r_ids bigint[];
	r_pids bigint[];
	r_dists float8[];
	shown boolean[];
	hidden bigint[];
	wh jsonb := jsonb_build_object('pages', 0, 'unclassified', 0, 'categories', '[]'::jsonb);
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
	PERFORM set_config('hnsw.ef_search', greatest(lim, 80)::text, true);
	PERFORM set_config('hnsw.iterative_scan', 'strict_order', true);
	WITH nn AS MATERIALIZED (
		SELECT c.id, c.page_id, c.embedding <=> qvec AS d
		FROM brain.chunks c
		WHERE (NOT only_compiled OR c.chunk_source = 'compiled_truth')
		  AND (source_ids IS NULL OR EXISTS (
			SELECT 1 FROM brain.pages p WHERE p.id = c.page_id AND p.source_id = ANY (source_ids)))
		ORDER BY c.embedding <=> qvec
		LIMIT lim
	)
	SELECT coalesce(array_agg(nn.id ORDER BY nn.d, nn.id), '{}'), coalesce(array_agg(nn.page_id ORDER BY nn.d, nn.id), '{}'),
	       coalesce(array_agg(nn.d ORDER BY nn.d, nn.id), '{}')
	INTO r_ids, r_pids, r_dists
	FROM nn
	WHERE nn.d IS NOT NULL;
	IF scope = 'all' THEN
		RETURN QUERY SELECT u.id, u.pid, u.d, u.r::int, NULL::jsonb
			FROM unnest(r_ids, r_pids, r_dists) WITH ORDINALITY AS u (id, pid, d, r) ORDER BY u.r;
	ELSE
		shown := ARRAY(SELECT scope = 'agent' AND coalesce((SELECT t.agent_visible FROM brain.page_pii t WHERE t.page_id = u.pid), false)
		               FROM unnest(r_pids) WITH ORDINALITY AS u (pid, o) ORDER BY u.o);
		RETURN QUERY SELECT u.id, u.pid, u.d, (row_number() OVER (ORDER BY u.r))::int, NULL::jsonb
			FROM unnest(r_ids, r_pids, r_dists, shown) WITH ORDINALITY AS u (id, pid, d, ok, r)
			WHERE u.ok ORDER BY u.r;
		hidden := ARRAY(SELECT u.pid FROM unnest(r_pids, shown) WITH ORDINALITY AS u (pid, ok, r)
		                WHERE NOT u.ok AND u.r <= coalesce(withheld_within, lim));
		IF cardinality(hidden) > 0 THEN
			wh := brain.withheld_of(hidden);
		END IF;
	END IF;
	RETURN QUERY SELECT NULL::bigint, NULL::bigint, NULL::float8, NULL::int, jsonb_build_object('withheld', wh);
END
$fn$;

CREATE OR REPLACE FUNCTION brain.vector_search(
	qvec vector,
	lim int DEFAULT 10,
	source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false)
RETURNS TABLE (chunk_id bigint, page_id bigint, distance float8, vector_rank int)
LANGUAGE sql VOLATILE ROWS 30
BEGIN ATOMIC
	SELECT v.chunk_id, v.page_id, v.distance, v.vector_rank
	FROM brain.vector_arm(qvec, lim, source_ids, compiled_only) v
	WHERE v.chunk_id IS NOT NULL
	ORDER BY v.vector_rank;
END;
