-- brain.keyword_candidates(q, cap, source_ids, compiled_only): the chunk ids
-- the keyword arm scores.
--
-- Guarantees: ids of chunks matching q through the GIN index on chunks.tsv,
-- honouring the source and compiled-truth filters; never more than cap. When
-- more than cap chunks match, the cap best by length-normalised ts_rank
-- (title A 1.0, compiled B 0.4, timeline C 0.2) are kept, ties by id, so the
-- cut is deterministic and BM25 latency stays bounded. NULL when none match.
-- Bounded cost: one GIN scan; the ranking reads at most max(5 x cap,
-- 2,000) matches, the first in the table's physical order; more match only
-- a query made of words common in the brain (brain.keyword_scan avoids
-- asking that when the query has other words). A cap of 10,000 or more
-- ranks every match. (Ranking 10,000 matches took 120 ms of a 170 ms query
-- at 1,000,000 pages; a second scan to count them first, 30 ms more.)
CREATE OR REPLACE FUNCTION brain.keyword_candidates(
	q tsquery, cap int, source_ids text[] DEFAULT NULL, compiled_only boolean DEFAULT false)
RETURNS bigint[]
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp
	-- the first matches in physical order, from block 0 every time: a
	-- synchronized scan starts where another one is, and the cut would
	-- change from call to call
	SET synchronize_seqscans = off
	-- planned for each query (brain.keyword_scan, the caller, forces
	-- generic plans): a seqscan's first matches or the index, by the
	-- words' frequencies
	SET plan_cache_mode = auto AS $fn$
DECLARE
	ids bigint[];
	-- A cap this large or larger ranks every match.
	scan_limit constant int := 10000;
BEGIN
	-- The tsvector is read (detoasted) only by ts_rank, which runs only
	-- when more than cap chunks match.
	SELECT array_agg(s.id) INTO ids FROM (
		SELECT m.id FROM (
			SELECT c.id, c.tsv, count(*) OVER () AS n FROM (
				SELECT c.id, c.tsv FROM brain.chunks c
				WHERE c.tsv @@ q
				  AND (NOT compiled_only OR c.chunk_source = 'compiled_truth')
				  AND (source_ids IS NULL OR c.page_id IN (
					SELECT p.id FROM brain.pages p WHERE p.source_id = ANY (source_ids)))
				LIMIT CASE WHEN cap < scan_limit THEN greatest(cap * 5, 2000) END) c) m
		ORDER BY CASE WHEN m.n > cap THEN ts_rank('{0.1, 0.2, 0.4, 1.0}'::float4[], m.tsv, q, 1) END DESC NULLS LAST, m.id
		LIMIT cap) s;
	RETURN ids;
END
$fn$;
