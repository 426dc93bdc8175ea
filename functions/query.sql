-- brain.query(q, lim): hybrid search for psql users, no Go process needed.
--
-- Guarantees: the rows of brain.search(q, lim => lim) without meta and
-- without the empty-result row: on a 'local' brain the query is embedded in
-- SQL with brain.embed_local; on a brain with a remote embedder (no vector
-- can be made in SQL) it runs keyword-only. Detail is chosen by
-- brain.detect_detail; everything else is brain.search's defaults.
CREATE OR REPLACE FUNCTION brain.query(q text, lim int DEFAULT 10)
RETURNS TABLE (slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index int,
	chunk_source text, title text, type text, score float8, keyword_rank int, vector_rank int,
	snippet text)
LANGUAGE plpgsql VOLATILE ROWS 10 SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	RETURN QUERY
	SELECT s.slug, s.source_id, s.page_id, s.chunk_id, s.chunk_index, s.chunk_source, s.title, s.type,
	       s.score, s.keyword_rank, s.vector_rank, s.snippet
	FROM brain.search(q, lim => lim) s
	WHERE s.chunk_id IS NOT NULL;
END
$fn$;
