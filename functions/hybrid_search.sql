-- brain.hybrid_search(q, qvec, lim, detail, source_ids, per_page,
--                     keyword_weight, vector_weight, rrf_k, type_share,
--                     snippets):
-- the ranked, deduplicated results, without meta: brain.search with
-- embed => false (qvec is used as given; NULL runs keyword only).
--
-- Guarantees (implemented by brain.search):
-- * Keyword arm: brain.keyword_scan (BM25 over every query term, see
--   functions/keyword_search.sql). Vector arm: see brain.search for when it
--   runs (search.vector_fill_only).
-- * Fusion: weighted Reciprocal Rank Fusion over the keyword arm
--   (brain.keyword_search) and the vector arm (brain.vector_search):
--   score = keyword_weight / (rrf_k + keyword_rank) + vector_weight / (rrf_k + vector_rank),
--   a missing rank contributing 0. NULL weights and k take
--   brain.search_setting defaults, which trust a weak 'local' embedder less.
--   When only one arm runs (qvec NULL, or the other arm's weight 0), score is
--   that arm's own score: BM25, or cosine similarity (1 - distance). When
--   the vector arm only fills (search.vector_fill_only, the 'local'
--   embedder's default, and the keyword arm found fewer than lim pages),
--   a keyword match scores keyword_weight / (rrf_k + keyword_rank) alone,
--   so the keyword order stands and the vector arm's own pages follow.
-- * The score is multiplied by the factor of the longest brain.source_boosts
--   prefix of the page's slug, except at detail 'high'.
-- * detail: NULL or '' asks brain.detect_detail, and NULL from it means
--   'medium'; 'low' searches compiled_truth chunks only; anything else is an
--   error (SQLSTATE 22023).
-- * Dedup: at most per_page chunks per page (default 1, the best; clamped to
--   1..10); a chunk that repeats a better chunk of its page (same normalised
--   text, or cosine distance < 0.05) is dropped; a page type holding more
--   than ceil(type_share * lim) results has its extra results moved after the
--   others (they still fill empty places).
-- * Order is score DESC, chunk id ASC: the same input and data give the same
--   order. lim is clamped to 1..100. Each arm is asked for
--   max(30, 3 * lim * per_page) chunks, so dedup still fills lim pages (brain.search asks the keyword arm again for more when a few long pages took them all).
-- * snippet is a short highlight of the chunk around the query's words, or
--   NULL when snippets is false (for callers that only rank, such as
--   LongMemEval runs: it is a quarter of a small brain's search time).
CREATE OR REPLACE FUNCTION brain.hybrid_search(
	q text,
	qvec vector DEFAULT NULL,
	lim int DEFAULT 10,
	detail text DEFAULT NULL,
	source_ids text[] DEFAULT NULL,
	per_page int DEFAULT 1,
	keyword_weight float8 DEFAULT NULL,
	vector_weight float8 DEFAULT NULL,
	rrf_k float8 DEFAULT NULL,
	type_share float8 DEFAULT NULL,
	snippets boolean DEFAULT true)
RETURNS TABLE (slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index int,
	chunk_source text, title text, type text, score float8, keyword_rank int, vector_rank int,
	snippet text)
LANGUAGE plpgsql VOLATILE ROWS 30 SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	-- plpgsql, not sql: the frozen migrations create this function before
	-- brain.search exists, and a sql body would be checked at creation.
	RETURN QUERY
	SELECT s.slug, s.source_id, s.page_id, s.chunk_id, s.chunk_index, s.chunk_source, s.title, s.type,
	       s.score, s.keyword_rank, s.vector_rank, s.snippet
	FROM brain.search(q, qvec, lim, detail, source_ids, per_page, keyword_weight, vector_weight,
	                  rrf_k, type_share, snippets, false) s
	WHERE s.chunk_id IS NOT NULL;
END
$fn$;
