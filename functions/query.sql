-- brain.query(q, lim): hybrid search for psql users, no Go process needed.
--
-- Guarantees: on a 'local' brain the query is embedded in SQL with
-- brain.embed_local and both arms run; on a brain with a remote embedder
-- (no vector can be made in SQL) it runs keyword-only. Detail is chosen by
-- brain.detect_detail; everything else is brain.hybrid_search's defaults.
CREATE OR REPLACE FUNCTION brain.query(q text, lim int DEFAULT 10)
RETURNS TABLE (slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index int,
	chunk_source text, title text, type text, score float8, keyword_rank int, vector_rank int,
	snippet text)
LANGUAGE sql VOLATILE ROWS 10
BEGIN ATOMIC
	SELECT * FROM brain.hybrid_search(
		q,
		CASE WHEN brain.embedder() = 'local' THEN brain.embed_local(q) END,
		lim);
END;
