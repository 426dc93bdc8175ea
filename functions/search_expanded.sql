-- brain.search_expanded(q, variants, qvec, variant_vecs, lim, detail,
--                       source_ids, per_page, keyword_weight, vector_weight,
--                       rrf_k, type_share, snippets, embed, vector_fill_only,
--                       variant_weight):
-- brain.search over a query and its rephrasings (query expansion), fused.
--
-- Guarantees:
-- * The variants are cleaned first: trimmed of white space, empty ones and repeats of the
--   query or of an earlier variant (compared case-insensitively) dropped,
--   at most 10 kept in the given order. variant_vecs[i], when given, is the
--   query vector of variants[i] (a client-side embedder); otherwise each
--   variant is embedded as brain.search embeds a query.
-- * With no variant left, the rows are exactly brain.search(q, ...)'s, and
--   meta gains expansion_applied false and expansion_variants 0.
-- * Otherwise brain.search runs for the query and for each variant with the
--   same settings and the detail resolved for the query (so every list
--   searches the same chunks), and the lists are fused by weighted
--   Reciprocal Rank Fusion over pages: a page scores
--   sum(w / (rrf_k + its best rank in the list)), w being 1 for the query
--   and variant_weight (default 0.5, in (0, 1): the query always counts
--   most) for each variant. Each page keeps its per_page chunks that
--   contributed most; a chunk's row (ranks, snippet) is the one from the
--   list where it ranked best, its score the page's fused score.
-- * Order is fused score DESC, chunk id ASC; lim (clamped to 1..100) rows at
--   most; meta is the query's brain.search meta plus expansion_applied true,
--   expansion_variants (how many variants were searched) and
--   variant_weight. When nothing matches, one row of NULLs carries meta.
CREATE OR REPLACE FUNCTION brain.search_expanded(
	q text,
	variants text[],
	qvec vector DEFAULT NULL,
	variant_vecs vector[] DEFAULT NULL,
	lim int DEFAULT 10,
	detail text DEFAULT NULL,
	source_ids text[] DEFAULT NULL,
	per_page int DEFAULT 1,
	keyword_weight float8 DEFAULT NULL,
	vector_weight float8 DEFAULT NULL,
	rrf_k float8 DEFAULT NULL,
	type_share float8 DEFAULT NULL,
	snippets boolean DEFAULT true,
	embed boolean DEFAULT true,
	vector_fill_only boolean DEFAULT NULL,
	variant_weight float8 DEFAULT 0.5)
RETURNS TABLE (slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index int,
	chunk_source text, title text, type text, score float8, keyword_rank int, vector_rank int,
	snippet text, meta jsonb)
LANGUAGE plpgsql VOLATILE ROWS 30 SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	d text := lower(coalesce(nullif(btrim(detail), ''), brain.detect_detail(q), 'medium'));
	k float8 := coalesce(rrf_k, brain.search_setting('rrf_k'));
	vw float8 := coalesce(variant_weight, 0.5);
	pp int := least(greatest(coalesce(per_page, 1), 1), 10);
	vs text[];
	vv vector[];
BEGIN
	IF NOT (vw > 0 AND vw < 1) THEN
		RAISE EXCEPTION 'variant_weight must be between 0 and 1 (exclusive), not %', vw
			USING ERRCODE = '22023';
	END IF;
	lim := least(greatest(coalesce(lim, 10), 1), 100);
	-- Clean the variants, keeping each one's vector beside it; DISTINCT ON
	-- keeps the first spelling of each.
	SELECT coalesce(array_agg(c.v ORDER BY c.i), '{}'), coalesce(array_agg(c.vec ORDER BY c.i), '{}')
	INTO vs, vv
	FROM (
		SELECT DISTINCT ON (lower(t.v)) t.v, t.vec, t.i
		FROM unnest(variants, variant_vecs) WITH ORDINALITY AS x (v, vec, i)
		CROSS JOIN LATERAL (SELECT regexp_replace(x.v, '^\s+|\s+$', '', 'g') AS v, x.vec, x.i) t
		WHERE t.v <> '' AND lower(t.v) <> lower(regexp_replace(q, '^\s+|\s+$', '', 'g'))
		ORDER BY lower(t.v), t.i
	) c;
	vs := vs[1:10];
	vv := vv[1:10];

	IF cardinality(vs) = 0 THEN
		RETURN QUERY
		SELECT s.slug, s.source_id, s.page_id, s.chunk_id, s.chunk_index, s.chunk_source, s.title, s.type,
		       s.score, s.keyword_rank, s.vector_rank, s.snippet,
		       s.meta || jsonb_build_object('expansion_applied', false, 'expansion_variants', 0)
		FROM brain.search(q, qvec, lim, d, source_ids, pp, keyword_weight, vector_weight, rrf_k,
			type_share, snippets, embed, vector_fill_only) s;
		RETURN;
	END IF;

	RETURN QUERY
	WITH lists AS MATERIALIZED (
		SELECT 0::bigint AS li, 1.0::float8 AS w, s.*
		FROM brain.search(q, qvec, lim, d, source_ids, pp, keyword_weight, vector_weight, rrf_k,
			type_share, snippets, embed, vector_fill_only) WITH ORDINALITY AS s
		UNION ALL
		SELECT v.i, vw, s.*
		FROM unnest(vs, vv) WITH ORDINALITY AS v (vq, vvec, i)
		CROSS JOIN LATERAL brain.search(v.vq, v.vvec, lim, d, source_ids, pp, keyword_weight, vector_weight,
			rrf_k, type_share, snippets, embed, vector_fill_only) WITH ORDINALITY AS s
	), fused_meta AS (
		SELECT l.meta || jsonb_build_object('expansion_applied', true,
			'expansion_variants', cardinality(vs), 'variant_weight', vw) AS fm
		FROM lists l WHERE l.li = 0 LIMIT 1
	), hits AS (
		SELECT l.*, row_number() OVER (PARTITION BY l.li ORDER BY l.ordinality) AS rk
		FROM lists l WHERE l.chunk_id IS NOT NULL
	), page_rank AS (
		-- A page's best rank in each list.
		SELECT h.li, h.page_id, min(h.rk) AS rk, max(h.w) AS w FROM hits h GROUP BY h.li, h.page_id
	), pages AS (
		SELECT pr.page_id, sum(pr.w / (k + pr.rk)) AS ps FROM page_rank pr GROUP BY pr.page_id
	), chunk_best AS (
		-- Each chunk's row from the list where it contributed most.
		SELECT DISTINCT ON (h.chunk_id) h.*, h.w / (k + h.rk) AS contrib
		FROM hits h
		ORDER BY h.chunk_id, h.w / (k + h.rk) DESC, h.li
	), in_page AS (
		SELECT cb.*, row_number() OVER (PARTITION BY cb.page_id ORDER BY cb.contrib DESC, cb.chunk_id) AS pr
		FROM chunk_best cb
	), top AS (
		SELECT ip.*, p.ps FROM in_page ip JOIN pages p ON p.page_id = ip.page_id
		WHERE ip.pr <= pp
		ORDER BY p.ps DESC, ip.chunk_id
		LIMIT lim
	)
	SELECT r.slug, r.source_id, r.page_id, r.chunk_id, r.chunk_index, r.chunk_source, r.title, r.type,
	       r.score, r.keyword_rank, r.vector_rank, r.snippet, r.meta
	FROM (
		SELECT t.slug, t.source_id, t.page_id, t.chunk_id, t.chunk_index, t.chunk_source, t.title, t.type,
		       t.ps::float8 AS score, t.keyword_rank, t.vector_rank, t.snippet, fm.fm AS meta, t.chunk_id AS ord_c
		FROM top t CROSS JOIN fused_meta fm
		UNION ALL
		-- When nothing matches, one row of NULLs carries meta.
		SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, fm.fm, NULL
		FROM fused_meta fm WHERE NOT EXISTS (SELECT 1 FROM top)
	) r
	ORDER BY r.score DESC NULLS LAST, r.ord_c;
END
$fn$;
