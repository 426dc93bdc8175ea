-- 002_retrieval: search in SQL (keyword BM25, vector, hybrid fusion).
--
-- Guarantees: every chunk carries its BM25 document length (doc_len, a
-- generated column, so no writer can store a wrong one); brain.term_stats and
-- brain.corpus_stats hold the document frequencies and corpus size BM25
-- needs, computed here for existing chunks and kept current by statement
-- triggers; the retrieval functions described in DESIGN.md section 3 are
-- installed. Tuning knobs live in brain.config as search.<name>.

-- BM25 corpus statistics: brain.tsv_length(tsv), brain.tsquery_terms(q),
-- brain.term_stats_rebuild().
--
-- Guarantees: brain.tsv_length counts every indexed token of a tsvector
-- (positions, or 1 for a position-less lexeme), the document length BM25
-- normalises by. brain.tsquery_terms lists the distinct positive lexemes of a
-- tsquery (negated terms excluded), the terms BM25 sums over.
-- brain.term_stats_rebuild() recomputes brain.term_stats and
-- brain.corpus_stats from brain.chunks from scratch; the statement triggers
-- keep them equal to that result as chunks change.
CREATE OR REPLACE FUNCTION brain.tsv_length(doc tsvector) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	-- greatest() skips NULL: a lexeme without positions counts once.
	SELECT coalesce(sum(greatest(cardinality(positions), 1)), 0)::int
	FROM unnest(coalesce(doc, ''::tsvector))
$fn$;

CREATE OR REPLACE FUNCTION brain.tsquery_terms(q tsquery) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	-- querytree() drops negated operands; lexemes print quoted with '' and \\ escaped.
	SELECT coalesce(array_agg(DISTINCT replace(replace(m[1], '''''', ''''), '\\', '\')), '{}')
	FROM regexp_matches(querytree(q), '''((?:[^'']|'''')*)''', 'g') AS m
$fn$;

CREATE OR REPLACE FUNCTION brain.term_stats_rebuild() RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
	DELETE FROM brain.term_stats;
	INSERT INTO brain.term_stats (lexeme, doc_freq)
	SELECT u.lexeme, count(*) FROM brain.chunks c, unnest(tsvector_to_array(c.tsv)) AS u (lexeme) GROUP BY u.lexeme;
	UPDATE brain.corpus_stats
	SET n_docs = (SELECT count(*) FROM brain.chunks),
	    total_len = (SELECT coalesce(sum(doc_len), 0) FROM brain.chunks);
END
$fn$;

ALTER TABLE brain.chunks
	ADD COLUMN doc_len int NOT NULL GENERATED ALWAYS AS (brain.tsv_length(tsv)) STORED;

CREATE TABLE brain.term_stats (
	lexeme   text PRIMARY KEY,
	doc_freq bigint NOT NULL
);

CREATE TABLE brain.corpus_stats (
	singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
	n_docs    bigint NOT NULL DEFAULT 0 CHECK (n_docs >= 0),
	total_len bigint NOT NULL DEFAULT 0 CHECK (total_len >= 0)
);
INSERT INTO brain.corpus_stats DEFAULT VALUES;

SELECT brain.term_stats_rebuild();

-- chunks_term_stats_*: brain.term_stats (document frequency per lexeme) and
-- brain.corpus_stats (chunk count, total length) follow every INSERT, UPDATE,
-- DELETE and TRUNCATE of brain.chunks in the same transaction, so BM25 never
-- ranks with stale statistics. Statement-level triggers with transition tables
-- update each lexeme once per statement, which keeps bulk imports fast.
-- Lexemes come from tsvector_to_array(), which skips building the position
-- arrays unnest(tsvector) would, and are upserted in byte order (COLLATE
-- "C", the collation of term_stats.lexeme since migration 005), so
-- concurrent writers lock rows in the same order and cannot deadlock on each
-- other; corpus_stats is touched last.
CREATE OR REPLACE FUNCTION brain.chunks_stats_insert() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO brain.term_stats AS t (lexeme, doc_freq)
	SELECT u.lexeme COLLATE "C", count(*) FROM new_rows n, unnest(tsvector_to_array(n.tsv)) AS u (lexeme)
	GROUP BY 1 ORDER BY 1
	ON CONFLICT (lexeme) DO UPDATE SET doc_freq = t.doc_freq + EXCLUDED.doc_freq;
	UPDATE brain.corpus_stats s
	SET n_docs = s.n_docs + d.n, total_len = s.total_len + d.len
	FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM new_rows) d
	WHERE d.n > 0;
	RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.chunks_stats_delete() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
	gone text[];
BEGIN
	WITH up AS (
		INSERT INTO brain.term_stats AS t (lexeme, doc_freq)
		SELECT u.lexeme COLLATE "C", -count(*) FROM old_rows o, unnest(tsvector_to_array(o.tsv)) AS u (lexeme)
		GROUP BY 1 ORDER BY 1
		ON CONFLICT (lexeme) DO UPDATE SET doc_freq = t.doc_freq + EXCLUDED.doc_freq
		RETURNING t.lexeme, t.doc_freq
	)
	SELECT array_agg(up.lexeme) INTO gone FROM up WHERE up.doc_freq <= 0;
	-- A separate statement: these rows are already locked by the upsert, so
	-- this adds no lock-order hazard, and it sees the upsert's new versions.
	DELETE FROM brain.term_stats t WHERE t.lexeme = ANY (gone) AND t.doc_freq <= 0;
	UPDATE brain.corpus_stats s
	SET n_docs = s.n_docs - d.n, total_len = s.total_len - d.len
	FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM old_rows) d
	WHERE d.n > 0;
	RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.chunks_stats_update() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
	gone text[];
BEGIN
	-- Only rows whose tsvector changed count; embedding-only updates (the
	-- common case) change no statistics.
	WITH ch AS MATERIALIZED (
		SELECT o.tsv AS old_tsv, n.tsv AS new_tsv, o.doc_len AS old_len, n.doc_len AS new_len
		FROM old_rows o JOIN new_rows n ON n.id = o.id
		WHERE o.tsv IS DISTINCT FROM n.tsv
	), up AS (
		INSERT INTO brain.term_stats AS t (lexeme, doc_freq)
		SELECT x.lexeme, sum(x.delta) FROM (
			SELECT u.lexeme COLLATE "C" AS lexeme, 1 AS delta FROM ch, unnest(tsvector_to_array(ch.new_tsv)) AS u (lexeme)
			UNION ALL
			SELECT u.lexeme COLLATE "C", -1 FROM ch, unnest(tsvector_to_array(ch.old_tsv)) AS u (lexeme)
		) x
		GROUP BY x.lexeme HAVING sum(x.delta) <> 0 ORDER BY x.lexeme
		ON CONFLICT (lexeme) DO UPDATE SET doc_freq = t.doc_freq + EXCLUDED.doc_freq
		RETURNING t.lexeme, t.doc_freq
	), len AS (
		UPDATE brain.corpus_stats s SET total_len = s.total_len + d.len
		FROM (SELECT sum(ch.new_len - ch.old_len) AS len FROM ch) d
		WHERE d.len IS NOT NULL AND d.len <> 0
	)
	SELECT array_agg(up.lexeme) INTO gone FROM up WHERE up.doc_freq <= 0;
	DELETE FROM brain.term_stats t WHERE t.lexeme = ANY (gone) AND t.doc_freq <= 0;
	RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.chunks_stats_truncate() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	DELETE FROM brain.term_stats;
	UPDATE brain.corpus_stats SET n_docs = 0, total_len = 0;
	RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_term_stats_insert ON brain.chunks;
CREATE TRIGGER chunks_term_stats_insert
	AFTER INSERT ON brain.chunks REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_insert();

DROP TRIGGER IF EXISTS chunks_term_stats_delete ON brain.chunks;
CREATE TRIGGER chunks_term_stats_delete
	AFTER DELETE ON brain.chunks REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_delete();

DROP TRIGGER IF EXISTS chunks_term_stats_update ON brain.chunks;
CREATE TRIGGER chunks_term_stats_update
	AFTER UPDATE ON brain.chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_update();

DROP TRIGGER IF EXISTS chunks_term_stats_truncate ON brain.chunks;
CREATE TRIGGER chunks_term_stats_truncate
	AFTER TRUNCATE ON brain.chunks
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_truncate();
-- brain.search_setting(name): one retrieval tuning knob, as a number.
--
-- Guarantees: a DBA override in brain.config (key 'search.<name>') wins;
-- otherwise the default documented (and tuned) in docs/retrieval.md is
-- returned; an unknown name is an error, never a silent NULL. The vector
-- arm's fusion weight is the trust rule: the offline 'local' embedder (hashed
-- lexemes) is weak and mostly repeats the keyword arm, so it gets a low
-- weight and can only reorder near-ties; any other (semantic) embedder gets
-- the same weight as the keyword arm. rrf_k is 10 for 'local' (a keyword
-- top hit keeps its lead) and the customary 60 otherwise.
CREATE OR REPLACE FUNCTION brain.search_setting(name text) RETURNS float8
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
	v text;
	d float8;
BEGIN
	d := CASE name
		WHEN 'keyword_weight' THEN 1.0
		WHEN 'vector_weight' THEN CASE WHEN brain.embedder() = 'local' THEN 0.25 ELSE 1.0 END
		WHEN 'rrf_k' THEN CASE WHEN brain.embedder() = 'local' THEN 10 ELSE 60 END
		WHEN 'bm25_k1' THEN 1.2
		WHEN 'bm25_b' THEN 0.75
		WHEN 'title_weight' THEN 2.0
		WHEN 'timeline_weight' THEN 0.5
		WHEN 'keyword_candidates' THEN 400
		WHEN 'type_share' THEN 1.0
	END;
	IF d IS NULL THEN
		RAISE EXCEPTION 'unknown search setting %', quote_literal(name)
			USING HINT = 'docs/retrieval.md lists the settings brain.config accepts as search.<name>';
	END IF;
	SELECT c.value INTO v FROM brain.config c WHERE c.key = 'search.' || name;
	RETURN coalesce(v::float8, d);
END
$fn$;
-- brain.detect_detail(q): the auto-detail heuristic behind detail_resolved.
--
-- Guarantees: a deterministic answer from the query text alone. Temporal or
-- event questions (when, history, since, added in, a year, a month name ...)
-- return 'high', since timelines hold their answers; entity lookups ("who is
-- alice", "what is strings.Builder", a bare Qualified.Name) return 'low',
-- since the compiled truth answers them; anything else returns NULL, which
-- search treats as 'medium'. Empty or NULL input returns NULL.
CREATE OR REPLACE FUNCTION brain.detect_detail(q text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT CASE
		WHEN q IS NULL OR btrim(q) = '' THEN NULL
		WHEN q ~* '\m(when|timeline|history|historical|since|ago|yesterday|changelog|happened|introduced|deprecated|added in|removed in|last (week|month|year)|(19|20)[0-9]{2}|january|february|march|april|june|july|august|september|october|november|december)\M'
			THEN 'high'
		WHEN q ~* '^\s*(who|what)\s+(is|are|was|were)\s+\S'
		  OR q ~ '^\s*[A-Za-z_][A-Za-z0-9_/]*\.[A-Z][A-Za-z0-9_]*\s*$'
			THEN 'low'
		ELSE NULL
	END
$fn$;
-- brain.keyword_candidates(q, cap, source_ids, compiled_only): the chunk ids
-- the keyword arm scores.
--
-- Guarantees: ids of chunks matching q through the GIN index on chunks.tsv,
-- honouring the source and compiled-truth filters; never more than cap. When
-- more than cap chunks match, the cap best by length-normalised ts_rank
-- (title A 1.0, compiled B 0.4, timeline C 0.2) are kept, ties by id, so the
-- cut is deterministic and BM25 latency stays bounded. NULL when none match.
CREATE OR REPLACE FUNCTION brain.keyword_candidates(
	q tsquery, cap int, source_ids text[] DEFAULT NULL, compiled_only boolean DEFAULT false)
RETURNS bigint[]
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
	ids bigint[];
BEGIN
	SELECT array_agg(s.id) INTO ids FROM (
		SELECT c.id FROM brain.chunks c
		WHERE c.tsv @@ q
		  AND (NOT compiled_only OR c.chunk_source = 'compiled_truth')
		  AND (source_ids IS NULL OR c.page_id IN (
			SELECT p.id FROM brain.pages p WHERE p.source_id = ANY (source_ids)))
		LIMIT cap + 1) s;
	IF cardinality(ids) > cap THEN
		SELECT array_agg(s.id) INTO ids FROM (
			SELECT c.id FROM brain.chunks c
			WHERE c.tsv @@ q
			  AND (NOT compiled_only OR c.chunk_source = 'compiled_truth')
			  AND (source_ids IS NULL OR c.page_id IN (
				SELECT p.id FROM brain.pages p WHERE p.source_id = ANY (source_ids)))
			ORDER BY ts_rank('{0.1, 0.2, 0.4, 1.0}'::float4[], c.tsv, q, 1) DESC, c.id
			LIMIT cap) s;
	END IF;
	RETURN ids;
END
$fn$;
-- brain.keyword_search(q, lim, source_ids, compiled_only): the keyword arm,
-- ranked chunks by BM25.
--
-- Guarantees:
-- * Raw input is parsed with websearch_to_tsquery, so quotes, `or`, `-`,
--   punctuation and arbitrary junk never raise a syntax error; a query with
--   no indexable words returns no rows.
-- * Candidates come from the GIN index on chunks.tsv: strict AND first; only
--   when AND finds nothing, and the query has no quoted phrase or negation,
--   an OR over its terms (the rarest terms whose document frequencies fit the
--   candidate budget, so a common word cannot flood the scan).
-- * Each candidate is scored with BM25 (k1, b from brain.search_setting):
--   idf = ln(1 + (N - df + 0.5) / (df + 0.5)) from brain.term_stats and
--   brain.corpus_stats (kept current by triggers), tf counts every position
--   weighted by field (title A x title_weight, compiled truth B x 1,
--   timeline C x timeline_weight), length-normalised by chunks.doc_len
--   against the corpus average.
-- * More than `keyword_candidates` matches are first cut to that many by
--   ts_rank (cover density-free, length-normalised) so latency stays bounded.
-- * Order is score DESC, chunk id ASC: the same input gives the same order.
--   lim is clamped to 1..1000 (fusion asks for more than the 100 shown).
CREATE OR REPLACE FUNCTION brain.keyword_search(
	q text,
	lim int DEFAULT 10,
	source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false)
RETURNS TABLE (chunk_id bigint, page_id bigint, score float8, keyword_rank int)
LANGUAGE plpgsql STABLE ROWS 30 AS $fn$
DECLARE
	tsq tsquery;
	or_q tsquery;
	terms text[];
	cap int := greatest(brain.search_setting('keyword_candidates')::int, 10);
	k1 float8 := brain.search_setting('bm25_k1');
	b float8 := brain.search_setting('bm25_b');
	w_a float8 := brain.search_setting('title_weight');
	w_c float8 := brain.search_setting('timeline_weight');
	n_docs float8;
	avgdl float8;
	ids bigint[];
	only_compiled boolean := coalesce(compiled_only, false);
BEGIN
	IF q IS NULL THEN
		RETURN;
	END IF;
	lim := least(greatest(coalesce(lim, 10), 1), 1000);
	tsq := websearch_to_tsquery('english'::regconfig, q);
	terms := brain.tsquery_terms(tsq);
	IF cardinality(terms) = 0 THEN
		RETURN;
	END IF;

	ids := brain.keyword_candidates(tsq, cap, source_ids, only_compiled);

	-- OR fill-in: not for phrases or negations, whose meaning OR would drop.
	IF coalesce(cardinality(ids), 0) < lim AND cardinality(terms) > 1
	   AND regexp_replace(tsq::text, '''(?:[^'']|'''')*''', '', 'g') !~ '[!<]' THEN
		SELECT string_agg('''' || replace(replace(e.lexeme, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery
		INTO or_q
		FROM (
			SELECT l.lexeme, sum(coalesce(t.doc_freq, 0)) OVER (ORDER BY coalesce(t.doc_freq, 0), l.lexeme) AS cum,
			       row_number() OVER (ORDER BY coalesce(t.doc_freq, 0), l.lexeme) AS r
			FROM unnest(terms) AS l(lexeme)
			LEFT JOIN brain.term_stats t ON t.lexeme = l.lexeme
		) e
		WHERE e.r = 1 OR e.cum <= cap;
		ids := ARRAY(
			SELECT DISTINCT x FROM unnest(coalesce(ids, '{}') || coalesce(
				brain.keyword_candidates(or_q, cap, source_ids, only_compiled), '{}')) x);
	END IF;
	IF coalesce(cardinality(ids), 0) = 0 THEN
		RETURN;
	END IF;

	SELECT greatest(s.n_docs, 1), greatest(s.total_len::float8 / greatest(s.n_docs, 1), 1)
	INTO n_docs, avgdl FROM brain.corpus_stats s;

	RETURN QUERY
	WITH idf AS MATERIALIZED (
		SELECT l.lexeme,
		       ln(1 + (n_docs - coalesce(t.doc_freq, 0) + 0.5) / (coalesce(t.doc_freq, 0) + 0.5)) AS idf
		FROM unnest(terms) AS l(lexeme)
		LEFT JOIN brain.term_stats t ON t.lexeme = l.lexeme
	), scored AS (
		SELECT c.id, c.page_id, c.tsv @@ tsq AS strict,
		       coalesce((
				SELECT sum(i.idf * x.tf * (k1 + 1) / (x.tf + k1 * (1 - b + b * c.doc_len / avgdl)))
				FROM (
					SELECT u.lexeme,
					       w_a * cardinality(array_positions(u.weights, 'A'))
					       + w_c * cardinality(array_positions(u.weights, 'C'))
					       + cardinality(u.weights)
					       - cardinality(array_positions(u.weights, 'A'))
					       - cardinality(array_positions(u.weights, 'C')) AS tf
					-- Keep only the query's lexemes before unnesting: far cheaper
					-- than unnesting the whole tsvector.
					FROM unnest(ts_delete(c.tsv, tsvector_to_array(ts_delete(c.tsv, terms)))) u
				) x
				JOIN idf i ON i.lexeme = x.lexeme
				WHERE x.tf > 0), 0)::float8 AS s
		FROM brain.chunks c
		WHERE c.id = ANY (ids)
	)
	SELECT sc.id, sc.page_id, sc.s, (row_number() OVER (ORDER BY sc.strict DESC, sc.s DESC, sc.id))::int AS r
	FROM scored sc
	ORDER BY r
	LIMIT lim;
END
$fn$;
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
CREATE OR REPLACE FUNCTION brain.vector_search(
	qvec vector,
	lim int DEFAULT 10,
	source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false)
RETURNS TABLE (chunk_id bigint, page_id bigint, distance float8, vector_rank int)
LANGUAGE plpgsql VOLATILE ROWS 30 AS $fn$
DECLARE
	only_compiled boolean := coalesce(compiled_only, false);
BEGIN
	IF qvec IS NULL THEN
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
LANGUAGE plpgsql VOLATILE ROWS 30 AS $fn$
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
LANGUAGE sql VOLATILE ROWS 10 AS $fn$
	SELECT * FROM brain.hybrid_search(
		q,
		CASE WHEN brain.embedder() = 'local' THEN brain.embed_local(q) END,
		lim)
$fn$;

UPDATE brain.config SET value = '2' WHERE key = 'schema_version';
