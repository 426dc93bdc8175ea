-- brain.hybrid_search(q, qvec, lim, detail, source_ids, per_page,
--                     keyword_weight, vector_weight, rrf_k, type_share,
--                     snippets):
-- the ranked, deduplicated results every search front end shows.
--
-- Guarantees:
-- * Fusion: weighted Reciprocal Rank Fusion over the keyword arm
--   (brain.keyword_search) and the vector arm (brain.vector_search):
--   score = keyword_weight / (rrf_k + keyword_rank) + vector_weight / (rrf_k + vector_rank),
--   a missing rank contributing 0. NULL weights and k take
--   brain.search_setting defaults, which trust a weak 'local' embedder less.
--   When only one arm runs (qvec NULL, or the other arm's weight 0), score is
--   that arm's own score: BM25, or cosine similarity (1 - distance).
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
--   max(30, 3 * lim * per_page) chunks, so dedup still fills lim pages.
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
DECLARE
	d text := lower(coalesce(nullif(btrim(detail), ''), brain.detect_detail(q), 'medium'));
	wk float8 := coalesce(keyword_weight, brain.search_setting('keyword_weight'));
	wv float8 := coalesce(vector_weight, brain.search_setting('vector_weight'));
	k float8 := coalesce(rrf_k, brain.search_setting('rrf_k'));
	share float8 := coalesce(type_share, brain.search_setting('type_share'));
	pp int := least(greatest(coalesce(per_page, 1), 1), 10);
	n int;
	type_cap int;
	tsq tsquery := websearch_to_tsquery('english'::regconfig, coalesce(q, ''));
BEGIN
	IF d NOT IN ('low', 'medium', 'high') THEN
		RAISE EXCEPTION 'detail must be low, medium or high, not %', quote_literal(detail)
			USING ERRCODE = '22023';
	END IF;
	IF wk < 0 OR wv < 0 OR k <= 0 OR share <= 0 THEN
		RAISE EXCEPTION 'weights must be >= 0, rrf_k and type_share > 0 (got %, %, %, %)', wk, wv, k, share
			USING ERRCODE = '22023';
	END IF;
	lim := least(greatest(coalesce(lim, 10), 1), 100);
	n := greatest(30, 3 * lim * pp);
	type_cap := ceil(least(share, 1.0) * lim)::int;
	IF qvec IS NULL THEN
		wv := 0;
	END IF;

	RETURN QUERY
	WITH kw AS MATERIALIZED (
		SELECT * FROM brain.keyword_search(CASE WHEN wk > 0 THEN q END, n, source_ids, d = 'low')
	), vec AS MATERIALIZED (
		SELECT * FROM brain.vector_search(CASE WHEN wv > 0 THEN qvec END, n, source_ids, d = 'low')
	), fused AS (
		SELECT coalesce(kw.chunk_id, vec.chunk_id) AS cid,
		       kw.keyword_rank AS kr, vec.vector_rank AS vr,
		       CASE
		         WHEN wv = 0 THEN kw.score
		         WHEN wk = 0 THEN 1 - vec.distance
		         ELSE coalesce(wk / (k + kw.keyword_rank), 0) + coalesce(wv / (k + vec.vector_rank), 0)
		       END AS s
		FROM kw FULL JOIN vec ON vec.chunk_id = kw.chunk_id
	), scored AS (
		SELECT f.cid, f.kr, f.vr, c.page_id AS pid, c.chunk_index AS cidx, c.chunk_source AS csrc,
		       c.text AS ctext, c.embedding AS emb, p.slug AS pslug, p.source_id AS psrc,
		       p.title AS ptitle, p.type AS ptype,
		       f.s * CASE WHEN d = 'high' THEN 1.0 ELSE coalesce((
				SELECT sb.factor FROM brain.source_boosts sb
				WHERE starts_with(p.slug, sb.prefix)
				ORDER BY length(sb.prefix) DESC LIMIT 1), 1.0) END AS fs
		FROM fused f
		JOIN brain.chunks c ON c.id = f.cid
		JOIN brain.pages p ON p.id = c.page_id
	), in_page AS (
		SELECT sc.*, row_number() OVER (PARTITION BY sc.pid ORDER BY sc.fs DESC, sc.cid) AS pr
		FROM scored sc
	), distinct_chunks AS (
		SELECT ip.* FROM in_page ip
		WHERE ip.pr = 1 OR (pp > 1 AND NOT EXISTS (
			SELECT 1 FROM in_page o
			WHERE o.pid = ip.pid AND o.pr < ip.pr
			  AND (lower(regexp_replace(o.ctext, '\s+', ' ', 'g')) = lower(regexp_replace(ip.ctext, '\s+', ' ', 'g'))
			       OR (o.emb <=> ip.emb) < 0.05)))
	), kept AS (
		SELECT dc.*, row_number() OVER (PARTITION BY dc.pid ORDER BY dc.fs DESC, dc.cid) AS pr2
		FROM distinct_chunks dc
	), typed AS (
		SELECT kp.*, row_number() OVER (PARTITION BY kp.ptype ORDER BY kp.fs DESC, kp.cid) AS tr
		FROM kept kp WHERE kp.pr2 <= pp
	), top AS (
		SELECT t.* FROM typed t
		ORDER BY (t.tr > type_cap), t.fs DESC, t.cid
		LIMIT lim
	)
	SELECT t.pslug, t.psrc, t.pid, t.cid, t.cidx, t.csrc, t.ptitle, t.ptype, t.fs::float8,
	       t.kr, t.vr,
	       CASE WHEN coalesce(snippets, true) THEN
		       regexp_replace(
				ts_headline('english'::regconfig, left(t.ctext, 4000), tsq,
					'MaxWords=28, MinWords=12, MaxFragments=1, StartSel="", StopSel="", HighlightAll=false'),
				'\s+', ' ', 'g')
	       END
	FROM top t
	ORDER BY (t.tr > type_cap), t.fs DESC, t.cid;
END
$fn$;
