-- 006_cheaper_embedding_and_search: a cheaper local embedder, computed with the BM25 document
-- length in one pass; searches that need no snippets.
--
-- Guarantees: brain.embed_tsvector() computes the same features as before
-- (same buckets, signs and weights) in float8 instead of numeric;
-- chunks.doc_len is no longer a generated column but is set by the
-- chunks_20_features trigger, with the same value, from the same pass over
-- the lexemes as the local embedding (brain.tsv_features); that trigger
-- replaces chunks_20_embed_local and also recomputes (or, when deferred,
-- clears) an embedding whose chunk text changed. Every stored local-embedder
-- vector that the new arithmetic rounds differently is recomputed
-- (brain.embed_local_refresh()), so stored chunk vectors and query vectors
-- stay in one space; rows that agree, which on the sample corpus is every
-- row, are not rewritten. brain.hybrid_search() gains a last parameter,
-- snippets (default true); callers that leave it out are unaffected.

-- brain.tsv_features(doc), brain.embed_tsvector(doc) and
-- brain.embed_local(text): the offline, deterministic "local" embedder,
-- computable in plain SQL.
--
-- Guarantees: the same text always yields the same vector({{.dim}}); the
-- vector is L2-normalised (so cosine distance is meaningful) or NULL when the
-- text has no indexable words. Features are the stemmed lexemes of the
-- english text-search configuration, signed-hashed into {{.dim}} buckets with
-- weight (1 + ln tf), doubled for title (weight A) lexemes. Query and chunk
-- vectors live in the same space because both go through embed_tsvector.
-- tsv_features(doc) returns that vector together with the document's BM25
-- length (brain.tsv_length) from one pass over its lexemes, which is how the
-- chunk trigger computes both; embed_tsvector is its vector, so the two can
-- never disagree.
-- Built on hashtext(), which PostgreSQL keeps stable in practice but does not
-- promise across major versions: after a major upgrade run `pgbrain embed --all`.
CREATE OR REPLACE FUNCTION brain.tsv_features(doc tsvector, OUT doc_len int, OUT embedding vector({{.dim}}))
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	-- float8 arithmetic and plain concatenation: numeric ln() and format()
	-- cost more than the rest of the function together. The sparsevec text
	-- form needs no ordering; its input sorts the indices. A document whose
	-- buckets all cancel out, or that has no lexemes, has no vector.
	SELECT coalesce(sum(n), 0)::int,
	       l2_normalize(('{' || string_agg((b + 1) || ':' || w, ',') FILTER (WHERE w <> 0)
	                     || '}/{{.dim}}')::sparsevec::vector({{.dim}}))
	FROM (
		SELECT b, sum(w) AS w, sum(n) AS n
		FROM (
			SELECT (hashtext(lexeme) & 2147483647) % {{.dim}} AS b,
			       CASE WHEN hashtext('~' || lexeme) & 1 = 0 THEN 1.0::float8 ELSE -1.0::float8 END
			       * (1.0::float8 + ln(coalesce(array_length(positions, 1), 1)::float8))
			       * CASE WHEN 'A' = ANY (weights) THEN 2.0::float8 ELSE 1.0::float8 END AS w,
			       greatest(cardinality(positions), 1) AS n
			FROM unnest(coalesce(doc, ''::tsvector))
		) f
		GROUP BY b
	) g
$fn$;

CREATE OR REPLACE FUNCTION brain.embed_tsvector(doc tsvector) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT (brain.tsv_features(doc)).embedding
$fn$;

CREATE OR REPLACE FUNCTION brain.embed_local(t text) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT brain.embed_tsvector(to_tsvector('english'::regconfig, coalesce(t, '')))
$fn$;
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
-- brain.embed_stale(batch) : fills up to `batch` missing embeddings with the
-- local embedder and returns how many it filled. Only meaningful when the
-- brain's embedder is 'local'; remote embedders are filled by the client.
-- brain.reset_embeddings(): marks every embedding stale (for `embed --all`).
-- brain.embed_local_refresh(): rewrites every stored vector that differs from
-- what brain.embed_tsvector() gives for its chunk today, and returns how many
-- it rewrote; rows that already agree are not touched. Run after a change to
-- the local embedder's arithmetic, so stored vectors and query vectors stay in
-- one space. A no-op unless the brain's embedder is 'local'.
CREATE OR REPLACE FUNCTION brain.embed_stale(batch int) RETURNS bigint
LANGUAGE sql AS $fn$
	WITH todo AS (
		SELECT id FROM brain.chunks WHERE embedding IS NULL ORDER BY id LIMIT batch
	), done AS (
		UPDATE brain.chunks c SET embedding = brain.embed_tsvector(c.tsv)
		FROM todo WHERE c.id = todo.id
		RETURNING 1
	)
	SELECT count(*) FROM done
$fn$;

CREATE OR REPLACE FUNCTION brain.reset_embeddings() RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE n bigint;
BEGIN
	SET LOCAL brain.embed = 'off';
	UPDATE brain.chunks SET embedding = NULL WHERE embedding IS NOT NULL;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.embed_local_refresh() RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE n bigint := 0;
BEGIN
	IF brain.embedder() = 'local' THEN
		-- Each vector is computed once, then compared.
		UPDATE brain.chunks c SET embedding = f.v
		FROM (SELECT id, brain.embed_tsvector(tsv) AS v FROM brain.chunks WHERE embedding IS NOT NULL) f
		WHERE c.id = f.id AND c.embedding IS DISTINCT FROM f.v;
		GET DIAGNOSTICS n = ROW_COUNT;
	END IF;
	RETURN n;
END
$fn$;

ALTER TABLE brain.chunks ALTER COLUMN doc_len DROP EXPRESSION;
DROP TRIGGER IF EXISTS chunks_20_embed_local ON brain.chunks;
DROP FUNCTION IF EXISTS brain.chunks_embed_local();
-- chunks_20_features: every chunk's BM25 document length (doc_len) is
-- computed in the database from its tsvector, and so is its embedding when
-- the brain's embedder is 'local', both from one pass over the lexemes
-- (brain.tsv_features). Runs after chunks_10_tsv (triggers fire in name
-- order), on insert and whenever the text, source, tsvector, page, embedding
-- or doc_len is written, so no writer can store a doc_len that disagrees with
-- the tsvector.
-- An embedding is stale when a chunk is written without one, or when its
-- tsvector changes while the old vector is left in place. A 'local' brain
-- computes stale embeddings at once, unless the writer deferred embedding
-- with `SET LOCAL brain.embed = 'off'` (as `pgbrain import --no-embed`
-- does); then, as with any other embedder, a stale embedding is left NULL
-- until `pgbrain embed --stale`.
CREATE OR REPLACE FUNCTION brain.chunks_features() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
	f record;
	retext boolean := TG_OP = 'INSERT' OR NEW.tsv IS DISTINCT FROM OLD.tsv;
BEGIN
	IF NEW.embedding IS NULL OR (retext AND TG_OP = 'UPDATE' AND NEW.embedding IS NOT DISTINCT FROM OLD.embedding) THEN
		IF brain.embedder() = 'local' AND coalesce(current_setting('brain.embed', true), '') <> 'off' THEN
			f := brain.tsv_features(NEW.tsv);
			NEW.doc_len := f.doc_len;
			NEW.embedding := f.embedding;
			RETURN NEW;
		END IF;
		NEW.embedding := NULL;
	END IF;
	IF retext OR NEW.doc_len IS DISTINCT FROM OLD.doc_len THEN
		NEW.doc_len := brain.tsv_length(NEW.tsv);
	END IF;
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_20_features ON brain.chunks;
CREATE TRIGGER chunks_20_features
	BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id, embedding, doc_len ON brain.chunks
	FOR EACH ROW EXECUTE FUNCTION brain.chunks_features();

SELECT brain.embed_local_refresh();

DROP FUNCTION IF EXISTS brain.hybrid_search(text, vector, int, text, text[], int, float8, float8, float8, float8);
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

UPDATE brain.config SET value = '6' WHERE key = 'schema_version';
