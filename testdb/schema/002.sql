-- pgbrain schema version 2 as released, with sample rows: written by
-- testdb/cmd/schemadump for the upgrade tests (client/migrate). Never edit.

--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: brain; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA brain;


--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';


--
-- Name: chunk_tsv(text, text, text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
	SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
	    || setweight(to_tsvector('english'::regconfig, coalesce(body, '')),
	                 CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char")
$$;


--
-- Name: chunks_embed_local(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_embed_local() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
	IF NEW.embedding IS NULL
	   AND coalesce(current_setting('brain.embed', true), '') <> 'off'
	   AND brain.embedder() = 'local' THEN
		NEW.embedding := brain.embed_tsvector(NEW.tsv);
	END IF;
	RETURN NEW;
END
$$;


--
-- Name: chunks_set_tsv(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_set_tsv() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
	NEW.tsv := brain.chunk_tsv(
		(SELECT title FROM brain.pages WHERE id = NEW.page_id), NEW.text, NEW.chunk_source);
	RETURN NEW;
END
$$;


--
-- Name: chunks_stats_delete(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_stats_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
	gone text[];
BEGIN
	WITH up AS (
		INSERT INTO brain.term_stats AS t (lexeme, doc_freq)
		SELECT u.lexeme, -count(*) FROM old_rows o, unnest(o.tsv) u
		GROUP BY u.lexeme ORDER BY u.lexeme
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
$$;


--
-- Name: chunks_stats_insert(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_stats_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
	INSERT INTO brain.term_stats AS t (lexeme, doc_freq)
	SELECT u.lexeme, count(*) FROM new_rows n, unnest(n.tsv) u
	GROUP BY u.lexeme ORDER BY u.lexeme
	ON CONFLICT (lexeme) DO UPDATE SET doc_freq = t.doc_freq + EXCLUDED.doc_freq;
	UPDATE brain.corpus_stats s
	SET n_docs = s.n_docs + d.n, total_len = s.total_len + d.len
	FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM new_rows) d
	WHERE d.n > 0;
	RETURN NULL;
END
$$;


--
-- Name: chunks_stats_truncate(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_stats_truncate() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
	DELETE FROM brain.term_stats;
	UPDATE brain.corpus_stats SET n_docs = 0, total_len = 0;
	RETURN NULL;
END
$$;


--
-- Name: chunks_stats_update(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_stats_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
			SELECT u.lexeme, 1 AS delta FROM ch, unnest(ch.new_tsv) u
			UNION ALL
			SELECT u.lexeme, -1 FROM ch, unnest(ch.old_tsv) u
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
$$;


--
-- Name: detect_detail(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.detect_detail(q text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
	SELECT CASE
		WHEN q IS NULL OR btrim(q) = '' THEN NULL
		WHEN q ~* '\m(when|timeline|history|historical|since|ago|yesterday|changelog|happened|introduced|deprecated|added in|removed in|last (week|month|year)|(19|20)[0-9]{2}|january|february|march|april|june|july|august|september|october|november|december)\M'
			THEN 'high'
		WHEN q ~* '^\s*(who|what)\s+(is|are|was|were)\s+\S'
		  OR q ~ '^\s*[A-Za-z_][A-Za-z0-9_/]*\.[A-Z][A-Za-z0-9_]*\s*$'
			THEN 'low'
		ELSE NULL
	END
$_$;


--
-- Name: embed_local(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_local(t text) RETURNS public.vector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
	SELECT brain.embed_tsvector(to_tsvector('english'::regconfig, coalesce(t, '')))
$$;


--
-- Name: embed_stale(integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_stale(batch integer) RETURNS bigint
    LANGUAGE sql
    AS $$
	WITH todo AS (
		SELECT id FROM brain.chunks WHERE embedding IS NULL ORDER BY id LIMIT batch
	), done AS (
		UPDATE brain.chunks c SET embedding = brain.embed_tsvector(c.tsv)
		FROM todo WHERE c.id = todo.id
		RETURNING 1
	)
	SELECT count(*) FROM done
$$;


--
-- Name: embed_tsvector(tsvector); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_tsvector(doc tsvector) RETURNS public.vector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
	SELECT l2_normalize(
		format('{%s}/256', string_agg(format('%s:%s', b + 1, w), ',' ORDER BY b))::sparsevec::vector(256))
	FROM (
		SELECT b, sum(w) AS w
		FROM (
			SELECT (hashtext(lexeme) & 2147483647) % 256 AS b,
			       CASE WHEN hashtext('~' || lexeme) & 1 = 0 THEN 1.0 ELSE -1.0 END
			       * (1.0 + ln(coalesce(array_length(positions, 1), 1)))
			       * CASE WHEN 'A' = ANY (weights) THEN 2.0 ELSE 1.0 END AS w
			FROM unnest(coalesce(doc, ''::tsvector))
		) f
		GROUP BY b
	) g
	WHERE w <> 0
	HAVING count(*) > 0
$$;


--
-- Name: embedder(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embedder() RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
	SELECT coalesce((SELECT value FROM brain.config WHERE key = 'embedder'), 'local')
$$;


--
-- Name: hybrid_search(text, public.vector, integer, text, text[], integer, double precision, double precision, double precision, double precision); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.hybrid_search(q text, qvec public.vector DEFAULT NULL::public.vector, lim integer DEFAULT 10, detail text DEFAULT NULL::text, source_ids text[] DEFAULT NULL::text[], per_page integer DEFAULT 1, keyword_weight double precision DEFAULT NULL::double precision, vector_weight double precision DEFAULT NULL::double precision, rrf_k double precision DEFAULT NULL::double precision, type_share double precision DEFAULT NULL::double precision) RETURNS TABLE(slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index integer, chunk_source text, title text, type text, score double precision, keyword_rank integer, vector_rank integer, snippet text)
    LANGUAGE plpgsql ROWS 30
    AS $$
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
	       regexp_replace(
			ts_headline('english'::regconfig, left(t.ctext, 4000), tsq,
				'MaxWords=28, MinWords=12, MaxFragments=1, StartSel="", StopSel="", HighlightAll=false'),
			'\s+', ' ', 'g')
	FROM top t
	ORDER BY (t.tr > type_cap), t.fs DESC, t.cid;
END
$$;


--
-- Name: import_apply(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.import_apply(p_source text) RETURNS TABLE(added bigint, updated bigint, unchanged bigint)
    LANGUAGE plpgsql
    AS $$
BEGIN
	-- Chunks of changed pages go first, so the title trigger below has nothing
	-- to refresh for rows that are about to be replaced anyway.
	DELETE FROM brain.chunks c
	USING brain.pages p, pg_temp.import_pages s
	WHERE c.page_id = p.id AND p.source_id = p_source AND p.slug = s.slug
	  AND p.content_hash <> s.content_hash;

	CREATE TEMP TABLE import_applied ON COMMIT DROP AS
	WITH up AS (
		INSERT INTO brain.pages AS p (source_id, slug, title, type, body, timeline, frontmatter, content_hash)
		SELECT p_source, s.slug, s.title, s.type, s.body, s.timeline, s.frontmatter, s.content_hash
		FROM pg_temp.import_pages s
		ON CONFLICT (source_id, slug) DO UPDATE
			SET title = EXCLUDED.title, type = EXCLUDED.type, body = EXCLUDED.body,
			    timeline = EXCLUDED.timeline, frontmatter = EXCLUDED.frontmatter,
			    content_hash = EXCLUDED.content_hash, updated_at = now()
			WHERE p.content_hash <> EXCLUDED.content_hash
		RETURNING p.id, p.slug, (p.xmax = 0) AS inserted
	)
	SELECT * FROM up;

	INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text, embedding)
	SELECT a.id, c.chunk_index, c.chunk_source, c.text, c.embedding
	FROM pg_temp.import_chunks c
	JOIN pg_temp.import_applied a ON a.slug = c.slug
	ORDER BY a.id, c.chunk_index;

	RETURN QUERY
	SELECT count(*) FILTER (WHERE a.inserted),
	       count(*) FILTER (WHERE NOT a.inserted),
	       (SELECT count(*) FROM pg_temp.import_pages) - count(*)
	FROM pg_temp.import_applied a;
END
$$;


--
-- Name: import_begin(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.import_begin() RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
	CREATE TEMP TABLE import_pages (
		slug text NOT NULL, title text NOT NULL, type text NOT NULL, body text NOT NULL,
		timeline text NOT NULL, frontmatter jsonb NOT NULL, content_hash text NOT NULL
	) ON COMMIT DROP;
	CREATE TEMP TABLE import_chunks (
		slug text NOT NULL, chunk_index int NOT NULL, chunk_source text NOT NULL,
		text text NOT NULL, embedding vector
	) ON COMMIT DROP;
END
$$;


--
-- Name: keyword_candidates(tsquery, integer, text[], boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.keyword_candidates(q tsquery, cap integer, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false) RETURNS bigint[]
    LANGUAGE plpgsql STABLE
    AS $$
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
$$;


--
-- Name: keyword_search(text, integer, text[], boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.keyword_search(q text, lim integer DEFAULT 10, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false) RETURNS TABLE(chunk_id bigint, page_id bigint, score double precision, keyword_rank integer)
    LANGUAGE plpgsql STABLE ROWS 30
    AS $$
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
$$;


--
-- Name: pages_refresh_chunk_tsv(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pages_refresh_chunk_tsv() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
	UPDATE brain.chunks SET tsv = ''::tsvector, embedding = NULL WHERE page_id = NEW.id;
	RETURN NULL;
END
$$;


--
-- Name: query(text, integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.query(q text, lim integer DEFAULT 10) RETURNS TABLE(slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index integer, chunk_source text, title text, type text, score double precision, keyword_rank integer, vector_rank integer, snippet text)
    LANGUAGE sql ROWS 10
    AS $$
	SELECT * FROM brain.hybrid_search(
		q,
		CASE WHEN brain.embedder() = 'local' THEN brain.embed_local(q) END,
		lim)
$$;


--
-- Name: reset_embeddings(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.reset_embeddings() RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE n bigint;
BEGIN
	SET LOCAL brain.embed = 'off';
	UPDATE brain.chunks SET embedding = NULL WHERE embedding IS NOT NULL;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;


--
-- Name: search_setting(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.search_setting(name text) RETURNS double precision
    LANGUAGE plpgsql STABLE
    AS $$
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
$$;


--
-- Name: term_stats_rebuild(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.term_stats_rebuild() RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
	DELETE FROM brain.term_stats;
	INSERT INTO brain.term_stats (lexeme, doc_freq)
	SELECT u.lexeme, count(*) FROM brain.chunks c, unnest(c.tsv) u GROUP BY u.lexeme;
	UPDATE brain.corpus_stats
	SET n_docs = (SELECT count(*) FROM brain.chunks),
	    total_len = (SELECT coalesce(sum(doc_len), 0) FROM brain.chunks);
END
$$;


--
-- Name: tsquery_terms(tsquery); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.tsquery_terms(q tsquery) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
	-- querytree() drops negated operands; lexemes print quoted with '' and \\ escaped.
	SELECT coalesce(array_agg(DISTINCT replace(replace(m[1], '''''', ''''), '\\', '\')), '{}')
	FROM regexp_matches(querytree(q), '''((?:[^'']|'''')*)''', 'g') AS m
$$;


--
-- Name: tsv_length(tsvector); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.tsv_length(doc tsvector) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
	SELECT coalesce(sum(coalesce(cardinality(positions), 0) + CASE WHEN positions IS NULL OR cardinality(positions) = 0 THEN 1 ELSE 0 END), 0)::int
	FROM unnest(coalesce(doc, ''::tsvector))
$$;


--
-- Name: vector_index_resume(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_resume() RETURNS void
    LANGUAGE sql
    AS $$
	CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding vector_cosine_ops);
$$;


--
-- Name: vector_index_suspend(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_suspend() RETURNS void
    LANGUAGE sql
    AS $$
	DROP INDEX IF EXISTS brain.chunks_embedding_hnsw;
$$;


--
-- Name: vector_search(public.vector, integer, text[], boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_search(qvec public.vector, lim integer DEFAULT 10, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false) RETURNS TABLE(chunk_id bigint, page_id bigint, distance double precision, vector_rank integer)
    LANGUAGE plpgsql ROWS 30
    AS $$
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
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: chunks; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.chunks (
    id bigint NOT NULL,
    page_id bigint NOT NULL,
    chunk_index integer NOT NULL,
    chunk_source text NOT NULL,
    text text NOT NULL,
    tsv tsvector DEFAULT ''::tsvector NOT NULL,
    embedding public.vector(256),
    doc_len integer GENERATED ALWAYS AS (brain.tsv_length(tsv)) STORED NOT NULL,
    CONSTRAINT chunks_chunk_index_check CHECK ((chunk_index >= 0)),
    CONSTRAINT chunks_chunk_source_check CHECK ((chunk_source = ANY (ARRAY['compiled_truth'::text, 'timeline'::text]))),
    CONSTRAINT chunks_text_nonempty CHECK (((btrim(text, ' 	
'::text) <> ''::text) AND (octet_length(text) <= 65536)))
);


--
-- Name: chunks_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.chunks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: chunks_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.chunks_id_seq OWNED BY brain.chunks.id;


--
-- Name: config; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.config (
    key text NOT NULL,
    value text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT config_key_check CHECK ((key ~ '^[a-z][a-z0-9_.]{0,127}$'::text)),
    CONSTRAINT config_value_check CHECK ((octet_length(value) <= 4096))
);


--
-- Name: corpus_stats; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.corpus_stats (
    singleton boolean DEFAULT true NOT NULL,
    n_docs bigint DEFAULT 0 NOT NULL,
    total_len bigint DEFAULT 0 NOT NULL,
    CONSTRAINT corpus_stats_n_docs_check CHECK ((n_docs >= 0)),
    CONSTRAINT corpus_stats_singleton_check CHECK (singleton),
    CONSTRAINT corpus_stats_total_len_check CHECK ((total_len >= 0))
);


--
-- Name: pages; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.pages (
    id bigint NOT NULL,
    source_id text DEFAULT 'default'::text NOT NULL,
    slug text NOT NULL,
    title text NOT NULL,
    type text DEFAULT 'page'::text NOT NULL,
    body text NOT NULL,
    timeline text DEFAULT ''::text NOT NULL,
    frontmatter jsonb DEFAULT '{}'::jsonb NOT NULL,
    content_hash text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT pages_body_check CHECK ((octet_length(body) <= 10485760)),
    CONSTRAINT pages_content_hash_check CHECK ((content_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT pages_frontmatter_check CHECK ((jsonb_typeof(frontmatter) = 'object'::text)),
    CONSTRAINT pages_slug_shape CHECK (((octet_length(slug) <= 512) AND (slug ~ '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$'::text))),
    CONSTRAINT pages_timeline_check CHECK ((octet_length(timeline) <= 10485760)),
    CONSTRAINT pages_title_check CHECK (((length(title) >= 1) AND (length(title) <= 1000))),
    CONSTRAINT pages_type_check CHECK ((type ~ '^[a-z0-9][a-z0-9_-]{0,63}$'::text))
);


--
-- Name: pages_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.pages_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: pages_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.pages_id_seq OWNED BY brain.pages.id;


--
-- Name: source_boosts; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.source_boosts (
    prefix text NOT NULL,
    factor real NOT NULL,
    CONSTRAINT source_boosts_factor_check CHECK (((factor > (0)::double precision) AND (factor <= (10)::double precision))),
    CONSTRAINT source_boosts_prefix_check CHECK (((length(prefix) >= 1) AND (length(prefix) <= 512)))
);


--
-- Name: sources; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.sources (
    id text NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    config jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT sources_config_check CHECK ((jsonb_typeof(config) = 'object'::text)),
    CONSTRAINT sources_id_check CHECK ((id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'::text)),
    CONSTRAINT sources_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
);


--
-- Name: term_stats; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.term_stats (
    lexeme text NOT NULL,
    doc_freq bigint NOT NULL
);


--
-- Name: pgbrain_schema_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pgbrain_schema_version (
    version integer NOT NULL
);


--
-- Name: chunks id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.chunks ALTER COLUMN id SET DEFAULT nextval('brain.chunks_id_seq'::regclass);


--
-- Name: pages id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages ALTER COLUMN id SET DEFAULT nextval('brain.pages_id_seq'::regclass);


--
-- Data for Name: chunks; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.chunks VALUES (1, 1, 0, 'compiled_truth', 'Alice keeps the harbour lanterns lit.', '''alic'':1A,3B ''harbour'':6B ''keep'':4B ''lantern'':7B ''lit'':8B ''smith'':2A', '[0,0,0.45329466,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.76749456,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', DEFAULT);
INSERT INTO brain.chunks VALUES (2, 2, 0, 'compiled_truth', 'Brass lanterns, rebuilt every spring.', '''brass'':3B ''everi'':6B ''lantern'':1A,4B ''project'':2A ''rebuilt'':5B ''spring'':7B', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.5696763,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', DEFAULT);
INSERT INTO brain.chunks VALUES (3, 3, 0, 'compiled_truth', 'Call Alice about the wicks.', '''alic'':1A,4B ''call'':3B ''note'':2A ''wick'':7B', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.8102437,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.47854298,0,0,0,0,0,0,0,0.23927149,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.23927149,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', DEFAULT);
INSERT INTO brain.chunks VALUES (4, 2, 1, 'timeline', '2024-03-01: new wicks', '''-01'':5C ''-03'':4C ''2024'':3C ''lantern'':1A ''new'':6C ''project'':2A ''wick'':7C', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', DEFAULT);


--
-- Data for Name: config; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.config VALUES ('embedding_dim', '256', '2026-11-24 20:36:07.260204+00');
INSERT INTO brain.config VALUES ('embedder', 'local', '2026-11-24 20:36:07.260204+00');
INSERT INTO brain.config VALUES ('embed_model', 'hash-tsv-v1', '2026-11-24 20:36:07.260204+00');
INSERT INTO brain.config VALUES ('schema_version', '2', '2026-11-24 20:36:07.260204+00');


--
-- Data for Name: corpus_stats; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.corpus_stats VALUES (true, 4, 26);


--
-- Data for Name: pages; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.pages VALUES (1, 'default', 'people/alice-smith', 'Alice Smith', 'page', 'Alice keeps the harbour lanterns lit.', '', '{}', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '2026-11-24 20:36:07.315827+00', '2026-11-24 20:36:07.315827+00');
INSERT INTO brain.pages VALUES (2, 'default', 'projects/lantern', 'Lantern project', 'page', 'Brass lanterns, rebuilt every spring.', '2024-03-01: new wicks', '{}', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', '2026-11-24 20:36:07.315827+00', '2026-11-24 20:36:07.315827+00');
INSERT INTO brain.pages VALUES (3, 'notes', 'people/alice-smith', 'Alice (notes)', 'page', 'Call Alice about the wicks.', '', '{}', 'cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc', '2026-11-24 20:36:07.315827+00', '2026-11-24 20:36:07.315827+00');


--
-- Data for Name: source_boosts; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.source_boosts VALUES ('people/', 1.5);


--
-- Data for Name: sources; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.sources VALUES ('default', 'Default source', '2026-11-24 20:36:07.260204+00', '{}');
INSERT INTO brain.sources VALUES ('notes', 'Notes', '2026-11-24 20:36:07.315827+00', '{}');


--
-- Data for Name: term_stats; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.term_stats VALUES ('alic', 2);
INSERT INTO brain.term_stats VALUES ('brass', 1);
INSERT INTO brain.term_stats VALUES ('call', 1);
INSERT INTO brain.term_stats VALUES ('everi', 1);
INSERT INTO brain.term_stats VALUES ('harbour', 1);
INSERT INTO brain.term_stats VALUES ('keep', 1);
INSERT INTO brain.term_stats VALUES ('lit', 1);
INSERT INTO brain.term_stats VALUES ('note', 1);
INSERT INTO brain.term_stats VALUES ('rebuilt', 1);
INSERT INTO brain.term_stats VALUES ('smith', 1);
INSERT INTO brain.term_stats VALUES ('spring', 1);
INSERT INTO brain.term_stats VALUES ('-01', 1);
INSERT INTO brain.term_stats VALUES ('-03', 1);
INSERT INTO brain.term_stats VALUES ('2024', 1);
INSERT INTO brain.term_stats VALUES ('lantern', 3);
INSERT INTO brain.term_stats VALUES ('new', 1);
INSERT INTO brain.term_stats VALUES ('project', 2);
INSERT INTO brain.term_stats VALUES ('wick', 2);


--
-- Data for Name: pgbrain_schema_version; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.pgbrain_schema_version VALUES (2);


--
-- Name: chunks_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.chunks_id_seq', 4, true);


--
-- Name: pages_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.pages_id_seq', 3, true);


--
-- Name: chunks chunks_page_id_chunk_index_key; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.chunks
    ADD CONSTRAINT chunks_page_id_chunk_index_key UNIQUE (page_id, chunk_index);


--
-- Name: chunks chunks_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.chunks
    ADD CONSTRAINT chunks_pkey PRIMARY KEY (id);


--
-- Name: config config_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.config
    ADD CONSTRAINT config_pkey PRIMARY KEY (key);


--
-- Name: corpus_stats corpus_stats_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.corpus_stats
    ADD CONSTRAINT corpus_stats_pkey PRIMARY KEY (singleton);


--
-- Name: pages pages_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages
    ADD CONSTRAINT pages_pkey PRIMARY KEY (id);


--
-- Name: pages pages_source_id_slug_key; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages
    ADD CONSTRAINT pages_source_id_slug_key UNIQUE (source_id, slug);


--
-- Name: source_boosts source_boosts_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.source_boosts
    ADD CONSTRAINT source_boosts_pkey PRIMARY KEY (prefix);


--
-- Name: sources sources_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.sources
    ADD CONSTRAINT sources_pkey PRIMARY KEY (id);


--
-- Name: term_stats term_stats_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.term_stats
    ADD CONSTRAINT term_stats_pkey PRIMARY KEY (lexeme);


--
-- Name: chunks_embedding_hnsw; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding public.vector_cosine_ops);


--
-- Name: chunks_stale_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX chunks_stale_idx ON brain.chunks USING btree (id) WHERE (embedding IS NULL);


--
-- Name: chunks_tsv_gin; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX chunks_tsv_gin ON brain.chunks USING gin (tsv);


--
-- Name: pages_type_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX pages_type_idx ON brain.pages USING btree (type);


--
-- Name: chunks chunks_10_tsv; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_10_tsv BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id ON brain.chunks FOR EACH ROW EXECUTE FUNCTION brain.chunks_set_tsv();


--
-- Name: chunks chunks_20_embed_local; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_20_embed_local BEFORE INSERT OR UPDATE OF text, chunk_source, embedding ON brain.chunks FOR EACH ROW EXECUTE FUNCTION brain.chunks_embed_local();


--
-- Name: chunks chunks_term_stats_delete; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_term_stats_delete AFTER DELETE ON brain.chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_delete();


--
-- Name: chunks chunks_term_stats_insert; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_term_stats_insert AFTER INSERT ON brain.chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_insert();


--
-- Name: chunks chunks_term_stats_truncate; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_term_stats_truncate AFTER TRUNCATE ON brain.chunks FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_truncate();


--
-- Name: chunks chunks_term_stats_update; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_term_stats_update AFTER UPDATE ON brain.chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_update();


--
-- Name: pages pages_title_tsv; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER pages_title_tsv AFTER UPDATE OF title ON brain.pages FOR EACH ROW WHEN ((old.title IS DISTINCT FROM new.title)) EXECUTE FUNCTION brain.pages_refresh_chunk_tsv();


--
-- Name: chunks chunks_page_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.chunks
    ADD CONSTRAINT chunks_page_id_fkey FOREIGN KEY (page_id) REFERENCES brain.pages(id) ON DELETE CASCADE;


--
-- Name: pages pages_source_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages
    ADD CONSTRAINT pages_source_id_fkey FOREIGN KEY (source_id) REFERENCES brain.sources(id);


--
-- PostgreSQL database dump complete
--


