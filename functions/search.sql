-- brain.search(q, qvec, lim, detail, source_ids, per_page, keyword_weight,
--              vector_weight, rrf_k, type_share, snippets, embed,
--              vector_fill_only):
-- the one search entry point; psql, the CLI, MCP, replay and gates all call
-- it, so they cannot disagree about results or about how a search ran.
--
-- Guarantees:
-- * Rows are the ranked, deduplicated results (the columns of
--   brain.hybrid_search) and a meta jsonb column, the same on every row;
--   when nothing matches there is exactly one row, all result columns NULL,
--   carrying meta.
-- * meta: detail_resolved (what detail was used: the caller's, else
--   brain.detect_detail's, else 'medium'); vector_enabled (the vector arm
--   has a weight > 0, a query vector and a usable index: false when
--   search.vector_weight is 0, no vector could be made, or the index is
--   suspended or missing); vector_ran (it actually ran); vector_skipped (why
--   it did not run: 'weight_zero', 'no_index' (see vector_index), 'no_terms'
--   (the query has no positive word), 'no_vector', 'keyword_filled', or
--   null); vector_index (brain.vector_index_status()); keyword_weight,
--   vector_weight, rrf_k (the values used); parser (brain.parse_query's
--   info); keyword_scan (the candidate cut: candidates, rounds,
--   terms_scanned, terms_total, exact, phrases_dropped, title_scored).
-- * The query vector: qvec when given; otherwise, when embed is true and the
--   brain's embedder is 'local', brain.embed_local(q) computed here; else
--   none (keyword only).
-- * Vector arm: runs when its weight > 0 and a vector exists, and, when
--   vector_fill_only (NULL: search.vector_fill_only) is true (the default
--   for the 'local' embedder,
--   whose arm adds no recall once the keyword arm is sound; see
--   docs/retrieval.md), only when the keyword arm found fewer than lim
--   pages, and then only adds pages after the keyword matches, whose
--   order it does not change. Semantic embedders (vector_fill_only 0)
--   always fuse.
-- * Fusion, boosts, detail, dedup, order and snippets: as documented on
--   brain.hybrid_search, which is this function without meta.
-- * Bounded: the keyword arm reads brain.query_bound(q) (meta parser.cut
--   says what was cut), and so do brain.detect_detail and the 'local' query
--   vector; snippets highlight at most the parser's terms in the first
--   4,000 characters of a chunk.
-- * Row security: the two arms (brain.keyword_scan, brain.vector_arm) run
--   as the functions' owner so that they use the GIN and HNSW indexes, and
--   return to a caller under the agent policy only ids and scores of pages
--   it may see (brain.caller_scope()); every slug, title, chunk text and
--   snippet is read here, as the caller, through the row-security policies
--   of brain.pages and brain.chunks. meta.withheld comes from the arms: the
--   pages the caller may not see that had a chunk among the first lim of an
--   arm, {pages, unclassified (no current classification), categories (the
--   blocked categories, brain.pii_blocked(), those pages hold)}; pages and
--   unclassified are the larger of the two arms' counts (the arms name no
--   hidden page, so one found by both is not told apart); zeros for a
--   caller without row security (the owner).
CREATE OR REPLACE FUNCTION brain.search(
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
	snippets boolean DEFAULT true,
	embed boolean DEFAULT true,
	vector_fill_only boolean DEFAULT NULL)
RETURNS TABLE (slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index int,
	chunk_source text, title text, type text, score float8, keyword_rank int, vector_rank int,
	snippet text, meta jsonb)
LANGUAGE plpgsql VOLATILE ROWS 30 SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	cfg jsonb := brain.search_settings();
	qb text := (brain.query_bound(q)).kept;
	d text := lower(coalesce(nullif(btrim(detail), ''), brain.detect_detail(qb), 'medium'));
	wk float8 := coalesce(keyword_weight, (cfg ->> 'keyword_weight')::float8);
	wv float8 := coalesce(vector_weight, (cfg ->> 'vector_weight')::float8);
	k float8 := coalesce(rrf_k, (cfg ->> 'rrf_k')::float8);
	share float8 := coalesce(type_share, (cfg ->> 'type_share')::float8);
	fill_only boolean := coalesce(vector_fill_only, (cfg ->> 'vector_fill_only')::float8 <> 0);
	pp int := least(greatest(coalesce(per_page, 1), 1), 10);
	n int;
	kn int; -- chunks asked of the keyword arm: n, more when dedup leaves too few pages
	type_cap int;
	v vector := qvec;
	parser jsonb;
	hq tsquery;
	ix text;
	kw_ids bigint[] := '{}';
	kw_scores float8[] := '{}';
	kw_ranks int[] := '{}';
	kw_pages int := 0;
	kw_meta jsonb;
	run_vec boolean;
	enabled boolean := false;
	skipped text;
	m jsonb;
	got int;
	kw_pids bigint[] := '{}';
	v_ids bigint[] := '{}';
	v_pids bigint[] := '{}';
	v_dists float8[] := '{}';
	v_ranks int[] := '{}';
	wh jsonb := jsonb_build_object('pages', 0, 'unclassified', 0, 'categories', '[]'::jsonb);
	vis bigint[];
	v_wh jsonb;
	neg tsquery;
	keep bigint[];
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
	kn := n;
	type_cap := ceil(least(share, 1.0) * lim)::int;
	-- When a few long pages own every chunk the arm returned, dedup leaves
	-- fewer than lim pages although more pages match: ask again for four
	-- times as many chunks (keyword_scan stops at 1,000), so the answer is
	-- as long as the brain allows.
	<<kw>>
	WHILE wk > 0 LOOP
		SELECT coalesce(array_agg(s.chunk_id ORDER BY s.keyword_rank) FILTER (WHERE s.chunk_id IS NOT NULL), '{}'),
		       coalesce(array_agg(s.score ORDER BY s.keyword_rank) FILTER (WHERE s.chunk_id IS NOT NULL), '{}'),
		       coalesce(array_agg(s.keyword_rank ORDER BY s.keyword_rank) FILTER (WHERE s.chunk_id IS NOT NULL), '{}'),
		       coalesce(array_agg(s.page_id ORDER BY s.keyword_rank) FILTER (WHERE s.chunk_id IS NOT NULL), '{}'),
		       count(DISTINCT s.page_id), max(s.meta::text)::jsonb
		INTO kw_ids, kw_scores, kw_ranks, kw_pids, kw_pages, kw_meta
		FROM brain.keyword_scan(q, kn, source_ids, d = 'low', withheld_within => lim) s;
		EXIT kw WHEN kw_pages >= lim OR cardinality(kw_ids) < kn OR kn >= 1000;
		kn := least(kn * 4, 1000);
	END LOOP;
	IF wk > 0 THEN
		parser := kw_meta -> 'parser';
		wh := coalesce(kw_meta -> 'withheld', wh);
		kw_meta := kw_meta - 'parser' - 'withheld';
	ELSE
		parser := (brain.parse_query(q)).info;
	END IF;
	-- Highlight any of the query's words. ts_headline reads the chunk as
	-- written, where a Greek word ends in ς (brain.text_tsvector reads σ):
	-- such a term is looked for in both spellings.
	SELECT string_agg(brain.lexeme_tsquery(x.t)::text, ' | ')::tsquery INTO hq
	FROM (SELECT t FROM jsonb_array_elements_text(parser -> 'terms') t
	      UNION ALL
	      SELECT regexp_replace(t, 'σ$', 'ς') FROM jsonb_array_elements_text(parser -> 'terms') t WHERE t ~ 'σ$') AS x (t);

	-- The vector arm is enabled when it has a weight and a query vector;
	-- it runs unless the keyword arm already filled the list on a brain
	-- whose vector arm only fills (then a 'local' query vector, which any
	-- query with keyword hits has, is not even computed).
	ix := brain.vector_index_status();
	IF wv = 0 THEN
		skipped := 'weight_zero';
	ELSIF ix NOT IN ('ready', 'exact') THEN
		-- Suspended for a bulk import, being rebuilt, or lost to a crash:
		-- keyword only, never a scan of every vector.
		skipped := 'no_index';
	ELSIF jsonb_array_length(parser -> 'terms') = 0 THEN
		-- Nothing positive to look for ("-word" alone, stop words): the
		-- vector of "-zebra" would find zebra pages.
		skipped := 'no_terms';
	ELSIF fill_only AND wk > 0 AND kw_pages >= lim
	      AND (v IS NOT NULL OR (coalesce(embed, true) AND brain.embedder() = 'local')) THEN
		enabled := true;
		skipped := 'keyword_filled';
	ELSE
		IF v IS NULL AND coalesce(embed, true) AND brain.embedder() = 'local' THEN
			v := brain.embed_local(qb);
		END IF;
		enabled := v IS NOT NULL;
		IF v IS NULL THEN
			skipped := 'no_vector';
		END IF;
	END IF;
	run_vec := skipped IS NULL;
	IF NOT run_vec THEN
		wv := 0;
	ELSE
		SELECT coalesce(array_agg(x.chunk_id ORDER BY x.vector_rank) FILTER (WHERE x.chunk_id IS NOT NULL), '{}'),
		       coalesce(array_agg(x.page_id ORDER BY x.vector_rank) FILTER (WHERE x.chunk_id IS NOT NULL), '{}'),
		       coalesce(array_agg(x.distance ORDER BY x.vector_rank) FILTER (WHERE x.chunk_id IS NOT NULL), '{}'),
		       coalesce(array_agg(x.vector_rank ORDER BY x.vector_rank) FILTER (WHERE x.chunk_id IS NOT NULL), '{}'),
		       max(x.meta::text) FILTER (WHERE x.chunk_id IS NULL)::jsonb -> 'withheld'
		INTO v_ids, v_pids, v_dists, v_ranks, v_wh
		FROM brain.vector_arm(v, n, source_ids, d = 'low', withheld_within => lim) x;
		-- A -word leaves out pages in this arm too (the keyword arm does it
		-- in brain.keyword_scan); the ranks close up.
		neg := brain.negated_tsquery(parser -> 'negated');
		IF neg IS NOT NULL AND cardinality(v_ids) > 0 THEN
			keep := brain.without_negated(v_ids, neg);
			SELECT coalesce(array_agg(x.cid ORDER BY x.r), '{}'), coalesce(array_agg(x.pid ORDER BY x.r), '{}'),
			       coalesce(array_agg(x.d ORDER BY x.r), '{}'), coalesce(array_agg(x.n ORDER BY x.r), '{}')
			INTO v_ids, v_pids, v_dists, v_ranks
			FROM (SELECT u.cid, u.pid, u.d, u.r, (row_number() OVER (ORDER BY u.r))::int AS n
			      FROM unnest(v_ids, v_pids, v_dists, v_ranks) AS u (cid, pid, d, r)
			      WHERE u.cid = ANY (keep)) x;
		END IF;
		-- The arms name no hidden page, so one seen by both cannot be
		-- told apart: the larger count of each, the union of categories.
		IF v_wh IS NOT NULL THEN
			wh := jsonb_build_object(
				'pages', greatest((wh ->> 'pages')::int, (v_wh ->> 'pages')::int),
				'unclassified', greatest((wh ->> 'unclassified')::int, (v_wh ->> 'unclassified')::int),
				'categories', to_jsonb(ARRAY(
					SELECT DISTINCT c COLLATE "C" FROM (
						SELECT jsonb_array_elements_text(wh -> 'categories')
						UNION ALL SELECT jsonb_array_elements_text(v_wh -> 'categories')) AS x (c)
					ORDER BY 1)));
		END IF;
	END IF;
	-- The candidates the caller may see: one primary-key probe each,
	-- through the caller's policies (id = ANY is leakproof, so the index
	-- serves it under row security); all of them for the owner.
	vis := kw_ids || v_ids;
	IF row_security_active('brain.chunks'::regclass) THEN
		vis := ARRAY(SELECT c.id FROM brain.chunks c WHERE c.id = ANY (vis));
	END IF;
	m := jsonb_build_object(
		'detail_resolved', d, 'vector_enabled', enabled, 'vector_ran', run_vec, 'vector_skipped', skipped,
		'keyword_weight', wk, 'vector_weight', coalesce(vector_weight, (cfg ->> 'vector_weight')::float8),
		'rrf_k', k, 'parser', parser, 'keyword_scan', kw_meta, 'vector_index', ix, 'withheld', wh);

	RETURN QUERY
	WITH kw AS MATERIALIZED (
		SELECT x.cid AS chunk_id, x.sc AS score, x.r AS keyword_rank
		FROM unnest(kw_ids, kw_scores, kw_ranks) AS x (cid, sc, r)
	), vec AS MATERIALIZED (
		SELECT x.cid AS chunk_id, x.dist AS distance, x.r AS vector_rank
		FROM unnest(v_ids, v_dists, v_ranks) AS x (cid, dist, r)
	), fused AS (
		SELECT coalesce(kw.chunk_id, vec.chunk_id) AS cid,
		       kw.keyword_rank AS kr, vec.vector_rank AS vr,
		       CASE
		         WHEN wv = 0 THEN kw.score
		         WHEN wk = 0 THEN 1 - vec.distance
		         -- Filling: the keyword matches keep their order, the vector
		         -- arm's own pages come after them (docs/retrieval.md,
		         -- "Fusion and the trust rule").
		         WHEN fill_only AND kw.chunk_id IS NOT NULL THEN wk / (k + kw.keyword_rank)
		         ELSE coalesce(wk / (k + kw.keyword_rank), 0) + coalesce(wv / (k + vec.vector_rank), 0)
		       END AS s
		FROM kw FULL JOIN vec ON vec.chunk_id = kw.chunk_id
	), ch AS MATERIALIZED (
		-- Read by id, through the caller's policies: the planner cannot
		-- misjudge a join with the policies' filters.
		-- (the vector only where the dedup below compares chunks of a page)
		SELECT c.id, c.page_id, c.chunk_index, c.chunk_source, c.text, CASE WHEN pp > 1 THEN c.embedding END AS embedding
		FROM brain.chunks c WHERE c.id = ANY (vis)
	), pg AS MATERIALIZED (
		SELECT p.id, p.slug, p.source_id, p.title, p.type
		FROM brain.pages p WHERE p.id = ANY (ARRAY(SELECT ch.page_id FROM ch))
	), scored AS (
		SELECT f.cid, f.kr, f.vr, c.page_id AS pid, c.chunk_index AS cidx, c.chunk_source AS csrc,
		       c.text AS ctext, c.embedding AS emb, p.slug AS pslug, p.source_id AS psrc,
		       p.title AS ptitle, p.type AS ptype,
		       f.s * CASE WHEN d = 'high' THEN 1.0 ELSE coalesce((
				SELECT sb.factor FROM brain.source_boosts sb
				WHERE starts_with(p.slug, sb.prefix)
				ORDER BY length(sb.prefix) DESC LIMIT 1), 1.0) END AS fs
		FROM fused f
		JOIN ch c ON c.id = f.cid
		JOIN pg p ON p.id = c.page_id
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
		       -- (a heading's "#" marks at its start, and the === under a
		       -- setext title, are markup, not text: ts_headline starts
		       -- there when the words are not found as written, as in
		       -- Chinese or Japanese, read as bigrams)
		       -- (the underline is a line of its own: "a === b" stays)
		       regexp_replace(regexp_replace(regexp_replace(
				CASE WHEN hq IS NULL THEN left(t.ctext, 200) ELSE
				ts_headline('brain.english_unaccent'::regconfig, left(t.ctext, 4000), hq,
					'MaxWords=28, MinWords=12, MaxFragments=1, StartSel="", StopSel="", HighlightAll=false') END,
				'(^|\n) {0,3}={3,}[ \t]*(?=\n|$)', '\1', 'g'),
				'\s+', ' ', 'g'), '^\s*#{1,6}\s+', '')
	       END,
	       m
	FROM top t
	ORDER BY (t.tr > type_cap), t.fs DESC, t.cid;
	GET DIAGNOSTICS got = ROW_COUNT;
	IF got = 0 THEN
		RETURN QUERY SELECT NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::int, NULL::text,
			NULL::text, NULL::text, NULL::float8, NULL::int, NULL::int, NULL::text, m;
	END IF;
END
$fn$;
