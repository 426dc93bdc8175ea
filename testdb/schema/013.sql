-- pgbrain schema version 13 as released, with sample rows: written by
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
-- Name: unaccent; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;


--
-- Name: EXTENSION unaccent; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION unaccent IS 'text search dictionary that removes accents';


--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';


--
-- Name: audit_field(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.audit_field(v text) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN (v IS NULL) THEN '\xffffffff'::bytea
             ELSE (int4send(octet_length(convert_to(v, 'UTF8'::name))) || convert_to(v, 'UTF8'::name))
         END AS "case";
END;


--
-- Name: pii_taxonomy(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pii_taxonomy() RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT ARRAY['behavioral'::text, 'biometric'::text, 'contact'::text, 'credential'::text, 'demographic_protected'::text, 'financial'::text, 'genetic'::text, 'government_id'::text, 'health'::text, 'location'::text, 'online_identifier'::text, 'payment_card'::text] AS "array";
END;


--
-- Name: pii_categories_valid(text[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pii_categories_valid(c text[]) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT ((c IS NOT NULL) AND (COALESCE(array_ndims(c), 1) = 1) AND (COALESCE(array_lower(c, 1), 1) = 1) AND (c <@ brain.pii_taxonomy()) AND (array_position(c, NULL::text) IS NULL) AND (c = ARRAY( SELECT DISTINCT (v.v COLLATE "C") AS v
            FROM unnest(pii_categories_valid.c) v(v)
           ORDER BY (v.v COLLATE "C"))));
END;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: audit_log; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.audit_log (
    id bigint NOT NULL,
    occurred_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    session_id text NOT NULL,
    caller text DEFAULT ''::text NOT NULL,
    tool_name text NOT NULL,
    status text NOT NULL,
    refusal_reason text,
    pii_categories text[] DEFAULT '{}'::text[] NOT NULL,
    cost_class text NOT NULL,
    fingerprint text NOT NULL,
    fingerprint_version smallint DEFAULT 1 NOT NULL,
    prev_hash bytea NOT NULL,
    chain_hash bytea NOT NULL,
    CONSTRAINT audit_log_caller_check CHECK (((octet_length(caller) <= 256) AND (caller !~ '[[:cntrl:]]'::text))),
    CONSTRAINT audit_log_chain_hash_check CHECK ((octet_length(chain_hash) = 32)),
    CONSTRAINT audit_log_cost_class_check CHECK ((cost_class ~ '^[a-z][a-z0-9_]{0,31}$'::text)),
    CONSTRAINT audit_log_fingerprint_check CHECK ((fingerprint ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT audit_log_fingerprint_version_check CHECK ((fingerprint_version = 1)),
    CONSTRAINT audit_log_id_check CHECK ((id > 0)),
    CONSTRAINT audit_log_pii_categories_check CHECK (brain.pii_categories_valid(pii_categories)),
    CONSTRAINT audit_log_prev_hash_check CHECK ((octet_length(prev_hash) = 32)),
    CONSTRAINT audit_log_refusal_reason CHECK (((status = 'refused'::text) = (refusal_reason IS NOT NULL))),
    CONSTRAINT audit_log_refusal_reason_check CHECK ((refusal_reason ~ '^[a-z][a-z0-9_]{0,63}$'::text)),
    CONSTRAINT audit_log_session_id_check CHECK ((((octet_length(session_id) >= 1) AND (octet_length(session_id) <= 128)) AND (session_id ~ '^[A-Za-z0-9._:-]+$'::text))),
    CONSTRAINT audit_log_status_check CHECK ((status = ANY (ARRAY['success'::text, 'empty'::text, 'partial'::text, 'degraded'::text, 'error'::text, 'refused'::text]))),
    CONSTRAINT audit_log_tool_name_check CHECK ((tool_name ~ '^[a-z][a-z0-9_]{0,63}$'::text))
);


--
-- Name: TABLE audit_log; Type: COMMENT; Schema: brain; Owner: -
--

COMMENT ON TABLE brain.audit_log IS 'Append-only, hash-chained log of tool calls; check it with SELECT * FROM brain.audit_verify(true). Byte forms: docs/audit.md.';


--
-- Name: audit_canonical_row(brain.audit_log); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.audit_canonical_row(r brain.audit_log) RETURNS bytea
    LANGUAGE sql STABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT (((((((((((brain.audit_field('pgbrain.audit.row.v1'::text) || brain.audit_field(((r).id)::text)) || brain.audit_field(to_char(((r).occurred_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'::text))) || brain.audit_field((r).session_id)) || brain.audit_field((r).caller)) || brain.audit_field((r).tool_name)) || brain.audit_field((r).status)) || brain.audit_field((r).refusal_reason)) || brain.audit_field(array_to_string((r).pii_categories, ','::text))) || brain.audit_field((r).cost_class)) || brain.audit_field((r).fingerprint)) || brain.audit_field(((r).fingerprint_version)::text));
END;


--
-- Name: pii_normalize(text[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pii_normalize(c text[]) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	out text[];
	bad text[];
BEGIN
	SELECT coalesce(array_agg(DISTINCT lower(btrim(v)) COLLATE "C" ORDER BY lower(btrim(v)) COLLATE "C"), '{}')
	INTO out
	FROM unnest(coalesce(c, '{}')) v
	WHERE v IS NOT NULL AND btrim(v) <> '';
	bad := ARRAY(SELECT v FROM unnest(out) v WHERE NOT v = ANY (brain.pii_taxonomy()));
	IF cardinality(bad) > 0 THEN
		RAISE EXCEPTION 'unknown PII categor% %', CASE WHEN cardinality(bad) = 1 THEN 'y' ELSE 'ies' END, array_to_string(bad, ', ')
			USING ERRCODE = 'invalid_parameter_value',
			      HINT = 'use names from: ' || array_to_string(brain.pii_taxonomy(), ', ');
	END IF;
	RETURN out;
END
$$;


--
-- Name: audit_fingerprint(text, text, text, text[], text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.audit_fingerprint(tool text, status text, refusal_reason text, pii_categories text[], cost_class text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT encode(sha256((((((brain.audit_field('pgbrain.audit.fingerprint.v1'::text) || brain.audit_field(tool)) || brain.audit_field(status)) || brain.audit_field(refusal_reason)) || brain.audit_field(array_to_string(brain.pii_normalize(pii_categories), ','::text))) || brain.audit_field(cost_class))), 'hex'::text) AS encode;
END;


--
-- Name: audit_log_chain(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.audit_log_chain() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
	last_id   bigint;
	last_hash bytea;
BEGIN
	PERFORM pg_advisory_xact_lock(1885823602, 1);
	SELECT a.id, a.chain_hash INTO last_id, last_hash
	FROM brain.audit_log a ORDER BY a.id DESC LIMIT 1;
	NEW.id := coalesce(last_id, 0) + 1;
	NEW.prev_hash := coalesce(last_hash, decode(repeat('00', 32), 'hex'));
	NEW.occurred_at := clock_timestamp();
	NEW.pii_categories := brain.pii_normalize(NEW.pii_categories);
	NEW.fingerprint_version := 1;
	NEW.fingerprint := brain.audit_fingerprint(
		NEW.tool_name, NEW.status, NEW.refusal_reason, NEW.pii_categories, NEW.cost_class);
	NEW.chain_hash := sha256(NEW.prev_hash || brain.audit_canonical_row(NEW));
	RETURN NEW;
END
$$;


--
-- Name: audit_log_refuse_change(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.audit_log_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	RAISE EXCEPTION 'brain.audit_log is append-only: % is refused', TG_OP
		USING ERRCODE = 'insufficient_privilege',
		      HINT = 'audit rows are never changed or removed; check the chain with SELECT * FROM brain.audit_verify(true)';
END
$$;


--
-- Name: audit_verify(boolean, bigint, bigint); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.audit_verify("full" boolean DEFAULT false, since_id bigint DEFAULT NULL::bigint, window_rows bigint DEFAULT 10000) RETURNS TABLE(id bigint, problem text, detail text)
    LANGUAGE sql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $_$
	WITH lo AS (
		SELECT CASE
			WHEN $1 THEN NULL
			WHEN $2 IS NOT NULL THEN $2
			ELSE (SELECT max(a.id) FROM brain.audit_log a) - greatest($3, 1) + 1
		END AS first_id
	), start AS (
		SELECT coalesce((SELECT max(a.id) FROM brain.audit_log a WHERE a.id < lo.first_id), lo.first_id) AS from_id
		FROM lo
	), linked AS (
		SELECT a AS rec, lag(a.id) OVER w AS prev_id, lag(a.chain_hash) OVER w AS prev_chain
		FROM brain.audit_log a, start
		WHERE start.from_id IS NULL OR a.id >= start.from_id
		WINDOW w AS (ORDER BY a.id)
	), checked AS (
		SELECT l.* FROM linked l, lo
		WHERE lo.first_id IS NULL OR (l.rec).id >= lo.first_id
	)
	SELECT (c.rec).id, p.problem, p.detail
	FROM checked c
	CROSS JOIN LATERAL (VALUES
		(CASE WHEN (c.rec).id IS DISTINCT FROM coalesce(c.prev_id, 0) + 1 THEN 'missing_rows' END,
		 format('rows %s..%s are missing before row %s', coalesce(c.prev_id, 0) + 1, (c.rec).id - 1, (c.rec).id)),
		(CASE WHEN (c.rec).prev_hash IS DISTINCT FROM coalesce(c.prev_chain, decode(repeat('00', 32), 'hex')) THEN 'broken_link' END,
		 format('prev_hash %s does not match %s', encode((c.rec).prev_hash, 'hex'),
		        CASE WHEN c.prev_id IS NULL THEN 'the genesis hash (32 zero bytes)'
		             ELSE format('the chain_hash of row %s (%s)', c.prev_id, encode(c.prev_chain, 'hex')) END)),
		(CASE WHEN (c.rec).chain_hash IS DISTINCT FROM sha256((c.rec).prev_hash || brain.audit_canonical_row(c.rec)) THEN 'hash_mismatch' END,
		 format('stored chain_hash %s, recomputed %s', encode((c.rec).chain_hash, 'hex'),
		        encode(sha256((c.rec).prev_hash || brain.audit_canonical_row(c.rec)), 'hex'))),
		(CASE WHEN NOT brain.pii_categories_valid((c.rec).pii_categories) THEN 'invalid_categories' END,
		 format('pii_categories %s is not a sorted, duplicate-free list of taxonomy names', (c.rec).pii_categories)),
		(CASE WHEN brain.pii_categories_valid((c.rec).pii_categories)
		       AND (c.rec).fingerprint IS DISTINCT FROM brain.audit_fingerprint((c.rec).tool_name, (c.rec).status,
		           (c.rec).refusal_reason, (c.rec).pii_categories, (c.rec).cost_class)
		      THEN 'fingerprint_mismatch' END,
		 format('stored fingerprint %s does not match the row''s tool, status, refusal reason, categories and cost class',
		        (c.rec).fingerprint))
	) AS p (problem, detail)
	WHERE p.problem IS NOT NULL
	ORDER BY 1, 2
$_$;


--
-- Name: cjk_bigrams(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.cjk_bigrams(t text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN (t !~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]'::text) THEN t
             ELSE ( SELECT string_agg(
                     CASE
                         WHEN (r.m[1] IS NULL) THEN r.m[2]
                         WHEN (char_length(r.m[1]) = 1) THEN ((' '::text || r.m[1]) || ' '::text)
                         ELSE ((' '::text || ( SELECT string_agg(substr(r.m[1], i.i, 2), ' '::text ORDER BY i.i) AS string_agg
                            FROM generate_series(1, (char_length(r.m[1]) - 1)) i(i))) || ' '::text)
                     END, ''::text ORDER BY r.o) AS string_agg
                FROM regexp_matches(cjk_bigrams.t, '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+)|([^\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+)'::text, 'g'::text) WITH ORDINALITY r(m, o))
         END AS string_agg;
END;


--
-- Name: english_unaccent; Type: TEXT SEARCH CONFIGURATION; Schema: brain; Owner: -
--

CREATE TEXT SEARCH CONFIGURATION brain.english_unaccent (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR asciiword WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR word WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR hword_part WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR hword_asciipart WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR numhword WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR asciihword WITH english_stem;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR hword WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
    ADD MAPPING FOR uint WITH simple;


--
-- Name: text_tsvector(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.text_tsvector(t text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT to_tsvector('brain.english_unaccent'::regconfig,
         CASE
             WHEN (t ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]'::text) THEN brain.cjk_bigrams(t)
             ELSE COALESCE(t, ''::text)
         END) AS to_tsvector;
END;


--
-- Name: chunk_tsv(text, text, text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT (setweight(brain.text_tsvector(title), 'A'::"char") || setweight(brain.text_tsvector(body), (
         CASE
             WHEN (chunk_source = 'timeline'::text) THEN 'C'::text
             ELSE 'B'::text
         END)::"char"));
END;


--
-- Name: chunks_features(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_features() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	f record;
	retext boolean := TG_OP = 'INSERT' OR NEW.tsv IS DISTINCT FROM OLD.tsv;
BEGIN
	IF NEW.embedding IS NULL OR (retext AND TG_OP = 'UPDATE' AND NEW.embedding IS NOT DISTINCT FROM OLD.embedding) THEN
		IF coalesce(current_setting('brain.embed', true), '') <> 'off' AND brain.embedder() = 'local' THEN
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
$$;


--
-- Name: chunks_set_tsv(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_set_tsv() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	page_title text;
BEGIN
	SELECT p.title INTO page_title FROM brain.pages p WHERE p.id = NEW.page_id;
	NEW.tsv := brain.chunk_tsv(page_title, NEW.text, NEW.chunk_source);
	RETURN NEW;
END
$$;


--
-- Name: chunks_stats_delete(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_stats_delete() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
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
$$;


--
-- Name: chunks_stats_insert(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_stats_insert() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
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
$$;


--
-- Name: chunks_stats_truncate(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_stats_truncate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
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
    SET search_path TO 'brain', 'public', 'pg_temp'
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
$$;


--
-- Name: detect_detail(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.detect_detail(q text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
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
-- Name: tsv_features(tsvector); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.tsv_features(doc tsvector, OUT doc_len integer, OUT embedding public.vector) RETURNS record
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT (COALESCE(sum(g.n), (0)::numeric))::integer AS "coalesce",
     public.l2_normalize((((('{'::text || string_agg((((g.b + 1) || ':'::text) || g.w), ','::text) FILTER (WHERE (g.w <> (0)::double precision))) || '}/256'::text))::public.sparsevec)::public.vector(256)) AS l2_normalize
    FROM ( SELECT f.b,
             sum(f.w) AS w,
             sum(f.n) AS n
            FROM ( SELECT ((hashtext(unnest.lexeme) & 2147483647) % 256) AS b,
                     ((
                         CASE
                             WHEN ((hashtext(('~'::text || unnest.lexeme)) & 1) = 0) THEN (1.0)::double precision
                             ELSE (- (1.0)::double precision)
                         END * ((1.0)::double precision + ln((COALESCE(array_length(unnest.positions, 1), 1))::double precision))) *
                         CASE
                             WHEN ('A'::text = ANY (unnest.weights)) THEN (2.0)::double precision
                             ELSE (1.0)::double precision
                         END) AS w,
                     GREATEST(cardinality(unnest.positions), 1) AS n
                    FROM unnest(COALESCE(tsv_features.doc, ''::tsvector)) unnest(lexeme, positions, weights)) f
           GROUP BY f.b) g;
END;


--
-- Name: embed_tsvector(tsvector); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_tsvector(doc tsvector) RETURNS public.vector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT (brain.tsv_features(doc)).embedding AS embedding;
END;


--
-- Name: embed_local(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_local(t text) RETURNS public.vector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT brain.embed_tsvector(brain.text_tsvector(t)) AS embed_tsvector;
END;


--
-- Name: embed_local_refresh(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_local_refresh() RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
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
$$;


--
-- Name: embed_stale(integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_stale(batch integer) RETURNS bigint
    LANGUAGE sql
    SET search_path TO 'brain', 'public', 'pg_temp'
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
-- Name: embedder(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embedder() RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT COALESCE(( SELECT config.value
            FROM brain.config
           WHERE (config.key = 'embedder'::text)), 'local'::text) AS "coalesce";
END;


--
-- Name: eval_candidates_set_created_at(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.eval_candidates_set_created_at() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	PERFORM pg_current_xact_id();
	NEW.created_at := clock_timestamp();
	RETURN NEW;
END
$$;


--
-- Name: eval_prune(interval, boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.eval_prune(older_than interval, dry_run boolean DEFAULT false) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE n bigint;
BEGIN
	IF older_than < interval '0' THEN
		RAISE EXCEPTION 'eval_prune: older_than must not be negative (got %)', older_than
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF dry_run THEN
		SELECT count(*) INTO n FROM brain.eval_candidates
		 WHERE older_than = interval '0' OR created_at < now() - older_than;
	ELSE
		DELETE FROM brain.eval_candidates
		 WHERE older_than = interval '0' OR created_at < now() - older_than;
		GET DIAGNOSTICS n = ROW_COUNT;
	END IF;
	RETURN n;
END
$$;


--
-- Name: eval_candidates; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.eval_candidates (
    id bigint NOT NULL,
    tool_name text NOT NULL,
    query text NOT NULL,
    retrieved_slugs text[] DEFAULT '{}'::text[] NOT NULL,
    retrieved_chunk_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    source_ids text[] DEFAULT '{}'::text[] NOT NULL,
    expand_enabled boolean,
    detail text,
    detail_resolved text,
    vector_enabled boolean NOT NULL,
    expansion_applied boolean DEFAULT false NOT NULL,
    latency_ms numeric(14,3) NOT NULL,
    remote boolean DEFAULT false NOT NULL,
    job_id bigint,
    subagent_id bigint,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT eval_candidates_chunk_ids_shape CHECK (((array_position(retrieved_chunk_ids, NULL::bigint) IS NULL) AND (COALESCE(array_ndims(retrieved_chunk_ids), 1) = 1))),
    CONSTRAINT eval_candidates_detail CHECK ((detail = ANY (ARRAY['low'::text, 'medium'::text, 'high'::text]))),
    CONSTRAINT eval_candidates_detail_resolved CHECK ((detail_resolved = ANY (ARRAY['low'::text, 'medium'::text, 'high'::text]))),
    CONSTRAINT eval_candidates_expand_query_only CHECK (((expand_enabled IS NULL) OR (tool_name = 'query'::text))),
    CONSTRAINT eval_candidates_latency CHECK (((latency_ms >= (0)::numeric) AND (latency_ms < '100000000000'::numeric))),
    CONSTRAINT eval_candidates_query_length CHECK ((char_length(query) <= 51200)),
    CONSTRAINT eval_candidates_slugs_shape CHECK (((array_position(retrieved_slugs, NULL::text) IS NULL) AND (COALESCE(array_ndims(retrieved_slugs), 1) = 1))),
    CONSTRAINT eval_candidates_source_ids_shape CHECK (((array_position(source_ids, NULL::text) IS NULL) AND (COALESCE(array_ndims(source_ids), 1) = 1))),
    CONSTRAINT eval_candidates_tool_name CHECK ((tool_name = ANY (ARRAY['query'::text, 'search'::text])))
);


--
-- Name: eval_row_json(brain.eval_candidates); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.eval_row_json(c brain.eval_candidates) RETURNS json
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
	SELECT (
		'{"schema_version":1'
		|| ',"id":' || c.id
		|| ',"tool_name":' || to_json(c.tool_name)::text
		|| ',"query":' || to_json(c.query)::text
		|| ',"retrieved_slugs":' || to_json(c.retrieved_slugs)::text
		|| ',"retrieved_chunk_ids":' || to_json(c.retrieved_chunk_ids)::text
		|| ',"source_ids":' || to_json(c.source_ids)::text
		|| ',"expand_enabled":' || coalesce(to_json(c.expand_enabled)::text, 'null')
		|| ',"detail":' || coalesce(to_json(c.detail)::text, 'null')
		|| ',"detail_resolved":' || coalesce(to_json(c.detail_resolved)::text, 'null')
		|| ',"vector_enabled":' || to_json(c.vector_enabled)::text
		|| ',"expansion_applied":' || to_json(c.expansion_applied)::text
		|| ',"latency_ms":' || trim_scale(c.latency_ms)::text
		|| ',"remote":' || to_json(c.remote)::text
		|| ',"job_id":' || coalesce(c.job_id::text, 'null')
		|| ',"subagent_id":' || coalesce(c.subagent_id::text, 'null')
		|| ',"created_at":"' || to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"'
		|| '}')::json
$$;


--
-- Name: eval_window_end(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.eval_window_end() RETURNS timestamp with time zone
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	t_end   timestamptz := clock_timestamp();
	bounded timestamptz;
	unknown text[];
BEGIN
	-- pg_stat_activity is cached per transaction; read it fresh.
	PERFORM pg_stat_clear_snapshot();
	SELECT min(a.xact_start),
	       array_agg(a.pid || ':' || a.backend_xid) FILTER (WHERE a.xact_start IS NULL)
	  INTO bounded, unknown
	  FROM pg_stat_activity a
	 WHERE a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid()
	   AND a.datname = current_database();
	IF bounded IS NOT NULL AND bounded < t_end THEN
		t_end := bounded;
	END IF;
	-- Wait for the transactions whose start this role cannot see, until
	-- each backend no longer holds the transaction id it held above.
	WHILE unknown IS NOT NULL LOOP
		PERFORM pg_sleep(0.01);
		PERFORM pg_stat_clear_snapshot();
		SELECT array_agg(a.pid || ':' || a.backend_xid) INTO unknown
		  FROM pg_stat_activity a
		 WHERE a.backend_xid IS NOT NULL AND (a.pid || ':' || a.backend_xid) = ANY (unknown);
	END LOOP;
	RETURN t_end;
END
$$;


--
-- Name: hybrid_search(text, public.vector, integer, text, text[], integer, double precision, double precision, double precision, double precision, boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.hybrid_search(q text, qvec public.vector DEFAULT NULL::public.vector, lim integer DEFAULT 10, detail text DEFAULT NULL::text, source_ids text[] DEFAULT NULL::text[], per_page integer DEFAULT 1, keyword_weight double precision DEFAULT NULL::double precision, vector_weight double precision DEFAULT NULL::double precision, rrf_k double precision DEFAULT NULL::double precision, type_share double precision DEFAULT NULL::double precision, snippets boolean DEFAULT true) RETURNS TABLE(slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index integer, chunk_source text, title text, type text, score double precision, keyword_rank integer, vector_rank integer, snippet text)
    LANGUAGE plpgsql ROWS 30
    SET search_path TO 'brain', 'public', 'pg_temp'
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
	       CASE WHEN coalesce(snippets, true) THEN
		       regexp_replace(
				ts_headline('english'::regconfig, left(t.ctext, 4000), tsq,
					'MaxWords=28, MinWords=12, MaxFragments=1, StartSel="", StopSel="", HighlightAll=false'),
				'\s+', ' ', 'g')
	       END
	FROM top t
	ORDER BY (t.tr > type_cap), t.fs DESC, t.cid;
END
$$;


--
-- Name: import_apply(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.import_apply(p_source text) RETURNS TABLE(added bigint, updated bigint, unchanged bigint)
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	-- Chunks of changed pages go first, so the title trigger below has nothing
	-- to refresh for rows that are about to be replaced anyway.
	DELETE FROM brain.chunks c
	USING brain.pages p, pg_temp.import_pages s
	WHERE c.page_id = p.id AND p.source_id = p_source AND p.slug = s.slug
	  AND p.content_hash <> s.content_hash;

	WITH up AS (
		INSERT INTO brain.pages AS p (id, source_id, slug, title, type, body, timeline, frontmatter, content_hash)
		SELECT coalesce(s.id, nextval('brain.pages_id_seq')), p_source, s.slug, s.title, s.type, s.body, s.timeline, s.frontmatter, s.content_hash
		FROM pg_temp.import_pages s
		ON CONFLICT (source_id, slug) DO UPDATE
			SET title = EXCLUDED.title, type = EXCLUDED.type, body = EXCLUDED.body,
			    timeline = EXCLUDED.timeline, frontmatter = EXCLUDED.frontmatter,
			    content_hash = EXCLUDED.content_hash, updated_at = now()
			WHERE p.content_hash <> EXCLUDED.content_hash
		RETURNING p.id, p.slug, (p.xmax = 0) AS inserted
	)
	INSERT INTO pg_temp.import_applied (id, slug, inserted)
	SELECT up.id, up.slug, up.inserted FROM up;

	INSERT INTO brain.chunks (id, page_id, chunk_index, chunk_source, text, embedding)
	SELECT coalesce(c.id, nextval('brain.chunks_id_seq')), a.id, c.chunk_index, c.chunk_source, c.text, c.embedding
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
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	BEGIN
		PERFORM set_config('default_toast_compression', 'lz4', true);
	EXCEPTION WHEN invalid_parameter_value THEN
		NULL; -- no lz4 in this server: stage with the default compression
	END;
	-- The staging tables live as long as the session and empty themselves at
	-- every commit: creating and dropping them per batch cost more than a
	-- small import itself. A later change to their columns must rename them,
	-- so that no session keeps using an older shape.
	IF to_regclass('pg_temp.import_pages') IS NULL THEN
		CREATE TEMP TABLE import_pages (
			id bigint, slug text NOT NULL, title text NOT NULL, type text NOT NULL, body text NOT NULL,
			timeline text NOT NULL, frontmatter jsonb NOT NULL, content_hash text NOT NULL
		) ON COMMIT DELETE ROWS;
		CREATE TEMP TABLE import_chunks (
			id bigint, slug text NOT NULL, chunk_index int NOT NULL, chunk_source text NOT NULL,
			text text NOT NULL, embedding vector
		) ON COMMIT DELETE ROWS;
		CREATE TEMP TABLE import_applied (
			id bigint NOT NULL, slug text NOT NULL, inserted boolean NOT NULL
		) ON COMMIT DELETE ROWS;
	ELSE
		-- Normally empty already; this covers a second batch in one transaction.
		DELETE FROM pg_temp.import_pages;
		DELETE FROM pg_temp.import_chunks;
		DELETE FROM pg_temp.import_applied;
	END IF;
END
$$;


--
-- Name: keyword_candidates(tsquery, integer, text[], boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.keyword_candidates(q tsquery, cap integer, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false) RETURNS bigint[]
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
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
    SET search_path TO 'brain', 'public', 'pg_temp'
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
-- Name: page_pii_clear(text, text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.page_pii_clear(p_source text, p_slug text) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	pid bigint;
BEGIN
	SELECT id INTO pid FROM brain.pages WHERE source_id = p_source AND slug = p_slug;
	IF pid IS NULL THEN
		RAISE EXCEPTION 'no page % in source %', p_slug, p_source
			USING ERRCODE = 'no_data_found', HINT = 'list pages with: pgbrain list';
	END IF;
	DELETE FROM brain.page_pii WHERE page_id = pid;
	RETURN pid;
END
$$;


--
-- Name: pii_sensitivity(text[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pii_sensitivity(c text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN (c && ARRAY['credential'::text, 'payment_card'::text, 'government_id'::text, 'health'::text, 'genetic'::text, 'biometric'::text, 'demographic_protected'::text]) THEN 'high'::text
             WHEN (c && ARRAY['financial'::text, 'location'::text, 'behavioral'::text]) THEN 'moderate'::text
             WHEN (cardinality(c) > 0) THEN 'low'::text
             ELSE 'none'::text
         END AS "case";
END;


--
-- Name: page_pii; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.page_pii (
    page_id bigint NOT NULL,
    categories text[] DEFAULT '{}'::text[] NOT NULL,
    sensitivity text GENERATED ALWAYS AS (brain.pii_sensitivity(categories)) STORED NOT NULL,
    origin text DEFAULT 'heuristic'::text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT page_pii_categories_check CHECK (brain.pii_categories_valid(categories)),
    CONSTRAINT page_pii_origin_check CHECK ((origin = ANY (ARRAY['heuristic'::text, 'operator'::text]))),
    CONSTRAINT page_pii_sensitivity_check CHECK ((sensitivity = ANY (ARRAY['none'::text, 'low'::text, 'moderate'::text, 'high'::text])))
);


--
-- Name: page_pii_override(text, text, text[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.page_pii_override(p_source text, p_slug text, p_categories text[]) RETURNS brain.page_pii
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	pid bigint;
	out brain.page_pii;
BEGIN
	SELECT id INTO pid FROM brain.pages WHERE source_id = p_source AND slug = p_slug;
	IF pid IS NULL THEN
		RAISE EXCEPTION 'no page % in source %', p_slug, p_source
			USING ERRCODE = 'no_data_found', HINT = 'list pages with: pgbrain list';
	END IF;
	INSERT INTO brain.page_pii AS t (page_id, categories, origin, updated_at)
	VALUES (pid, brain.pii_normalize(p_categories), 'operator', now())
	ON CONFLICT (page_id) DO UPDATE
		SET categories = EXCLUDED.categories, origin = 'operator', updated_at = now()
	RETURNING t.* INTO out;
	RETURN out;
END
$$;


--
-- Name: page_pii_record(bigint[], text[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.page_pii_record(page_ids bigint[], categories text[]) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	n bigint;
BEGIN
	IF cardinality(page_ids) IS DISTINCT FROM cardinality(categories) THEN
		RAISE EXCEPTION 'page_pii_record: % page ids but % category lists',
			cardinality(page_ids), cardinality(categories)
			USING ERRCODE = 'invalid_parameter_value',
			      HINT = 'pass one comma-separated category list per page id';
	END IF;
	INSERT INTO brain.page_pii AS t (page_id, categories, origin, updated_at)
	SELECT u.page_id, brain.pii_normalize(string_to_array(u.csv, ',')), 'heuristic', now()
	FROM unnest(page_ids, categories) AS u (page_id, csv)
	ON CONFLICT (page_id) DO UPDATE
		SET categories = EXCLUDED.categories, updated_at = now()
		WHERE t.origin = 'heuristic' AND t.categories IS DISTINCT FROM EXCLUDED.categories;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;


--
-- Name: pages_pii_categories(bigint[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pages_pii_categories(page_ids bigint[]) RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
	SELECT coalesce(array_agg(DISTINCT c COLLATE "C" ORDER BY c COLLATE "C"), '{}')
	FROM brain.page_pii p, unnest(p.categories) c
	WHERE p.page_id = ANY (page_ids)
$$;


--
-- Name: pages_refresh_chunk_tsv(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pages_refresh_chunk_tsv() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
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
    SET search_path TO 'brain', 'public', 'pg_temp'
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
    SET search_path TO 'brain', 'public', 'pg_temp'
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
    SET search_path TO 'brain', 'public', 'pg_temp'
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
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	DELETE FROM brain.term_stats;
	INSERT INTO brain.term_stats (lexeme, doc_freq)
	SELECT u.lexeme, count(*) FROM brain.chunks c, unnest(tsvector_to_array(c.tsv)) AS u (lexeme) GROUP BY u.lexeme;
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
    BEGIN ATOMIC
 SELECT COALESCE(array_agg(DISTINCT replace(replace(m.m[1], ''''''::text, ''''::text), '\\'::text, '\'::text)), '{}'::text[]) AS "coalesce"
    FROM regexp_matches(querytree(tsquery_terms.q), '''((?:[^'']|'''')*)'''::text, 'g'::text) m(m);
END;


--
-- Name: tsv_length(tsvector); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.tsv_length(doc tsvector) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT (COALESCE(sum(GREATEST(cardinality(unnest.positions), 1)), (0)::bigint))::integer AS "coalesce"
    FROM unnest(COALESCE(tsv_length.doc, ''::tsvector)) unnest(lexeme, positions, weights);
END;


--
-- Name: vector_index_resume(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_resume() RETURNS void
    LANGUAGE sql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
	CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding vector_cosine_ops);
$$;


--
-- Name: vector_index_suspend(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_suspend() RETURNS void
    LANGUAGE sql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
	DROP INDEX IF EXISTS brain.chunks_embedding_hnsw;
$$;


--
-- Name: vector_search(public.vector, integer, text[], boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_search(qvec public.vector, lim integer DEFAULT 10, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false) RETURNS TABLE(chunk_id bigint, page_id bigint, distance double precision, vector_rank integer)
    LANGUAGE plpgsql ROWS 30
    SET search_path TO 'brain', 'public', 'pg_temp'
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
    doc_len integer NOT NULL,
    CONSTRAINT chunks_chunk_index_check CHECK ((chunk_index >= 0)),
    CONSTRAINT chunks_chunk_source_check CHECK ((chunk_source = ANY (ARRAY['compiled_truth'::text, 'timeline'::text]))),
    CONSTRAINT chunks_text_nonempty CHECK (((btrim(text, ' 	
'::text) <> ''::text) AND (octet_length(text) <= 65536)))
);
ALTER TABLE ONLY brain.chunks ALTER COLUMN text SET COMPRESSION lz4;
ALTER TABLE ONLY brain.chunks ALTER COLUMN tsv SET COMPRESSION lz4;


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
-- Name: embed_runs; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.embed_runs (
    id bigint NOT NULL,
    embedder text NOT NULL,
    model text NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    last_page_id bigint NOT NULL,
    done_page_id bigint DEFAULT 0 NOT NULL,
    chunks_done bigint DEFAULT 0 NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT embed_runs_check CHECK (((finished_at IS NULL) OR (finished_at >= started_at))),
    CONSTRAINT embed_runs_chunks_done_check CHECK ((chunks_done >= 0)),
    CONSTRAINT embed_runs_done_page_id_check CHECK ((done_page_id >= 0)),
    CONSTRAINT embed_runs_last_page_id_check CHECK ((last_page_id >= 0))
);


--
-- Name: embed_runs_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.embed_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: embed_runs_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.embed_runs_id_seq OWNED BY brain.embed_runs.id;


--
-- Name: eval_candidates_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.eval_candidates_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: eval_candidates_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.eval_candidates_id_seq OWNED BY brain.eval_candidates.id;


--
-- Name: eval_capture_failures; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.eval_capture_failures (
    id bigint NOT NULL,
    occurred_at timestamp with time zone DEFAULT now() NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    tool_name text,
    reason text NOT NULL,
    sqlstate text,
    message text DEFAULT ''::text NOT NULL,
    spool_id text,
    CONSTRAINT eval_capture_failures_message CHECK ((char_length(message) <= 1000)),
    CONSTRAINT eval_capture_failures_reason CHECK ((reason = ANY (ARRAY['db_down'::text, 'rls_reject'::text, 'check_violation'::text, 'scrubber_exception'::text, 'other'::text]))),
    CONSTRAINT eval_capture_failures_spool_id CHECK ((spool_id ~ '^[0-9a-f]{32}$'::text)),
    CONSTRAINT eval_capture_failures_sqlstate CHECK ((sqlstate ~ '^[0-9A-Z]{5}$'::text)),
    CONSTRAINT eval_capture_failures_tool_name CHECK ((tool_name = ANY (ARRAY['query'::text, 'search'::text])))
);


--
-- Name: eval_capture_failures_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.eval_capture_failures_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: eval_capture_failures_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.eval_capture_failures_id_seq OWNED BY brain.eval_capture_failures.id;


--
-- Name: eval_contradiction_findings; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.eval_contradiction_findings (
    run_id bigint NOT NULL,
    query text NOT NULL,
    kind text NOT NULL,
    severity text NOT NULL,
    source_a text NOT NULL,
    slug_a text NOT NULL,
    chunk_id_a bigint NOT NULL,
    hash_a text NOT NULL,
    source_b text NOT NULL,
    slug_b text NOT NULL,
    chunk_id_b bigint NOT NULL,
    hash_b text NOT NULL,
    explanation text DEFAULT ''::text NOT NULL,
    evidence_a text DEFAULT ''::text NOT NULL,
    evidence_b text DEFAULT ''::text NOT NULL,
    CONSTRAINT eval_contradiction_findings_check CHECK ((hash_a <= hash_b)),
    CONSTRAINT eval_contradiction_findings_hash_a_check CHECK ((hash_a ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT eval_contradiction_findings_hash_b_check CHECK ((hash_b ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT eval_contradiction_findings_kind_check CHECK ((kind = ANY (ARRAY['truth_vs_timeline'::text, 'cross_page'::text]))),
    CONSTRAINT eval_contradiction_findings_query_check CHECK ((length(query) <= 51200)),
    CONSTRAINT eval_contradiction_findings_severity_check CHECK ((severity = ANY (ARRAY['low'::text, 'medium'::text, 'high'::text])))
);


--
-- Name: eval_contradiction_runs; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.eval_contradiction_runs (
    id bigint NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    prompt_version text NOT NULL,
    model text NOT NULL,
    top_k integer NOT NULL,
    queries integer NOT NULL,
    queries_flagged integer NOT NULL,
    pairs integer NOT NULL,
    pairs_flagged integer NOT NULL,
    cache_hits integer NOT NULL,
    model_calls integer NOT NULL,
    prompt_tokens bigint DEFAULT 0 NOT NULL,
    completion_tokens bigint DEFAULT 0 NOT NULL,
    est_cost_usd numeric(12,6) DEFAULT 0 NOT NULL,
    CONSTRAINT eval_contradiction_runs_cache_hits_check CHECK ((cache_hits >= 0)),
    CONSTRAINT eval_contradiction_runs_check CHECK (((queries_flagged >= 0) AND (queries_flagged <= queries))),
    CONSTRAINT eval_contradiction_runs_check1 CHECK (((pairs_flagged >= 0) AND (pairs_flagged <= pairs))),
    CONSTRAINT eval_contradiction_runs_completion_tokens_check CHECK ((completion_tokens >= 0)),
    CONSTRAINT eval_contradiction_runs_est_cost_usd_check CHECK ((est_cost_usd >= (0)::numeric)),
    CONSTRAINT eval_contradiction_runs_model_calls_check CHECK ((model_calls >= 0)),
    CONSTRAINT eval_contradiction_runs_pairs_check CHECK ((pairs >= 0)),
    CONSTRAINT eval_contradiction_runs_prompt_tokens_check CHECK ((prompt_tokens >= 0)),
    CONSTRAINT eval_contradiction_runs_queries_check CHECK ((queries >= 0)),
    CONSTRAINT eval_contradiction_runs_top_k_check CHECK ((top_k > 0))
);


--
-- Name: eval_contradiction_runs_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.eval_contradiction_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: eval_contradiction_runs_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.eval_contradiction_runs_id_seq OWNED BY brain.eval_contradiction_runs.id;


--
-- Name: eval_contradictions_cache; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.eval_contradictions_cache (
    prompt_version text NOT NULL,
    hash_a text NOT NULL,
    hash_b text NOT NULL,
    contradiction boolean NOT NULL,
    severity text,
    explanation text DEFAULT ''::text NOT NULL,
    evidence_a text DEFAULT ''::text NOT NULL,
    evidence_b text DEFAULT ''::text NOT NULL,
    model text NOT NULL,
    judged_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT eval_contradictions_cache_check CHECK ((hash_a <= hash_b)),
    CONSTRAINT eval_contradictions_cache_check1 CHECK (((severity IS NOT NULL) = contradiction)),
    CONSTRAINT eval_contradictions_cache_evidence_a_check CHECK ((length(evidence_a) <= 4000)),
    CONSTRAINT eval_contradictions_cache_evidence_b_check CHECK ((length(evidence_b) <= 4000)),
    CONSTRAINT eval_contradictions_cache_explanation_check CHECK ((length(explanation) <= 4000)),
    CONSTRAINT eval_contradictions_cache_hash_a_check CHECK ((hash_a ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT eval_contradictions_cache_hash_b_check CHECK ((hash_b ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT eval_contradictions_cache_prompt_version_check CHECK (((length(prompt_version) >= 1) AND (length(prompt_version) <= 100))),
    CONSTRAINT eval_contradictions_cache_severity_check CHECK ((severity = ANY (ARRAY['low'::text, 'medium'::text, 'high'::text])))
);


--
-- Name: eval_contradictions_dismissed; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.eval_contradictions_dismissed (
    hash_a text NOT NULL,
    hash_b text NOT NULL,
    dismissed_at timestamp with time zone DEFAULT now() NOT NULL,
    note text DEFAULT ''::text NOT NULL,
    CONSTRAINT eval_contradictions_dismissed_check CHECK ((hash_a <= hash_b)),
    CONSTRAINT eval_contradictions_dismissed_hash_a_check CHECK ((hash_a ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT eval_contradictions_dismissed_hash_b_check CHECK ((hash_b ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT eval_contradictions_dismissed_note_check CHECK ((length(note) <= 1000))
);


--
-- Name: eval_export; Type: VIEW; Schema: brain; Owner: -
--

CREATE VIEW brain.eval_export AS
 SELECT c.id,
    c.tool_name,
    c.created_at,
    brain.eval_row_json(c.*) AS row_json
   FROM brain.eval_candidates c
  ORDER BY c.created_at DESC, c.id DESC;


--
-- Name: eval_nightly_runs; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.eval_nightly_runs (
    id bigint NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    outcome text NOT NULL,
    questions integer DEFAULT 0 NOT NULL,
    pass_count integer DEFAULT 0 NOT NULL,
    fail_count integer DEFAULT 0 NOT NULL,
    inconclusive_count integer DEFAULT 0 NOT NULL,
    error_count integer DEFAULT 0 NOT NULL,
    est_cost_usd numeric(12,6) DEFAULT 0 NOT NULL,
    max_usd numeric(12,6),
    fixture_sha256 text NOT NULL,
    reason text DEFAULT ''::text NOT NULL,
    CONSTRAINT eval_nightly_runs_check CHECK ((finished_at >= started_at)),
    CONSTRAINT eval_nightly_runs_error_count_check CHECK ((error_count >= 0)),
    CONSTRAINT eval_nightly_runs_est_cost_usd_check CHECK ((est_cost_usd >= (0)::numeric)),
    CONSTRAINT eval_nightly_runs_fail_count_check CHECK ((fail_count >= 0)),
    CONSTRAINT eval_nightly_runs_fixture_sha256_check CHECK ((fixture_sha256 ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT eval_nightly_runs_inconclusive_count_check CHECK ((inconclusive_count >= 0)),
    CONSTRAINT eval_nightly_runs_max_usd_check CHECK ((max_usd >= (0)::numeric)),
    CONSTRAINT eval_nightly_runs_outcome_check CHECK ((outcome = ANY (ARRAY['pass'::text, 'fail'::text, 'inconclusive'::text, 'error'::text, 'budget_exceeded'::text, 'rate_limited'::text, 'no_model'::text]))),
    CONSTRAINT eval_nightly_runs_pass_count_check CHECK ((pass_count >= 0)),
    CONSTRAINT eval_nightly_runs_questions_check CHECK ((questions >= 0)),
    CONSTRAINT eval_nightly_runs_reason_check CHECK ((length(reason) <= 4000))
);


--
-- Name: eval_nightly_runs_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.eval_nightly_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: eval_nightly_runs_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.eval_nightly_runs_id_seq OWNED BY brain.eval_nightly_runs.id;


--
-- Name: mcp_tokens; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.mcp_tokens (
    id bigint NOT NULL,
    name text NOT NULL,
    token_sha256 bytea NOT NULL,
    role_name text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    CONSTRAINT mcp_tokens_check CHECK (((revoked_at IS NULL) OR (revoked_at >= created_at))),
    CONSTRAINT mcp_tokens_name_check CHECK ((name ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'::text)),
    CONSTRAINT mcp_tokens_role_name_check CHECK ((role_name ~ '^[a-z_][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT mcp_tokens_token_sha256_check CHECK ((octet_length(token_sha256) = 32))
);


--
-- Name: mcp_tokens_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

ALTER TABLE brain.mcp_tokens ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME brain.mcp_tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
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
    CONSTRAINT pages_slug_shape CHECK (((octet_length(slug) <= 512) AND (slug ~ '^[a-z0-9\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF][a-z0-9._+\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF-]*(/[a-z0-9\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF][a-z0-9._+\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF-]*)*$'::text))),
    CONSTRAINT pages_timeline_check CHECK ((octet_length(timeline) <= 10485760)),
    CONSTRAINT pages_title_check CHECK (((length(title) >= 1) AND (length(title) <= 1000))),
    CONSTRAINT pages_type_check CHECK ((type ~ '^[a-z0-9][a-z0-9_-]{0,63}$'::text))
);
ALTER TABLE ONLY brain.pages ALTER COLUMN body SET COMPRESSION lz4;
ALTER TABLE ONLY brain.pages ALTER COLUMN timeline SET COMPRESSION lz4;
ALTER TABLE ONLY brain.pages ALTER COLUMN frontmatter SET COMPRESSION lz4;


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
    lexeme text NOT NULL COLLATE pg_catalog."C",
    doc_freq bigint NOT NULL
);


--
-- Name: vector_index_state; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.vector_index_state (
    index_name text NOT NULL,
    state text NOT NULL,
    reason text NOT NULL,
    since timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT vector_index_state_index_name_check CHECK ((index_name = 'chunks_embedding_hnsw'::text)),
    CONSTRAINT vector_index_state_reason_check CHECK ((length(reason) <= 1000)),
    CONSTRAINT vector_index_state_state_check CHECK ((state = ANY (ARRAY['suspended'::text, 'rebuilding'::text])))
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
-- Name: embed_runs id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.embed_runs ALTER COLUMN id SET DEFAULT nextval('brain.embed_runs_id_seq'::regclass);


--
-- Name: eval_candidates id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_candidates ALTER COLUMN id SET DEFAULT nextval('brain.eval_candidates_id_seq'::regclass);


--
-- Name: eval_capture_failures id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_capture_failures ALTER COLUMN id SET DEFAULT nextval('brain.eval_capture_failures_id_seq'::regclass);


--
-- Name: eval_contradiction_runs id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_contradiction_runs ALTER COLUMN id SET DEFAULT nextval('brain.eval_contradiction_runs_id_seq'::regclass);


--
-- Name: eval_nightly_runs id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_nightly_runs ALTER COLUMN id SET DEFAULT nextval('brain.eval_nightly_runs_id_seq'::regclass);


--
-- Name: pages id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages ALTER COLUMN id SET DEFAULT nextval('brain.pages_id_seq'::regclass);


--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.audit_log VALUES (1, '2026-11-25 00:05:43.647395+00', 's-1', '', 'query', 'success', NULL, '{}', 'search', 'a036edbe74eadd8b170718c92f505b9fdf1d1f6b45f9a5daa26395cc39359e30', 1, '\x0000000000000000000000000000000000000000000000000000000000000000', '\xb3633ccdebed40a644661d984b3b3f1306d6902cdaa196f7f4bdb122986d2b96');
INSERT INTO brain.audit_log VALUES (2, '2026-11-25 00:05:43.649088+00', 's-1', '', 'get_page', 'refused', 'pii_blocked', '{credential}', 'read', '4966388653f18705c65234b96bb1ecc7bca43d2f476e57484b966f6d614da567', 1, '\xb3633ccdebed40a644661d984b3b3f1306d6902cdaa196f7f4bdb122986d2b96', '\x848f18a1571ac96bd3c8b982ee72c2c178edb74a2fa293aba3ecf6581fcb558c');


--
-- Data for Name: chunks; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.chunks VALUES (1, 1, 0, 'compiled_truth', 'Alice keeps the harbour lanterns lit.', '''alic'':1A,3B ''harbour'':6B ''keep'':4B ''lantern'':7B ''lit'':8B ''smith'':2A', '[0,0,0.45329466,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.76749456,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', 7);
INSERT INTO brain.chunks VALUES (2, 2, 0, 'compiled_truth', 'Brass lanterns, rebuilt every spring.', '''brass'':3B ''everi'':6B ''lantern'':1A,4B ''project'':2A ''rebuilt'':5B ''spring'':7B', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.5696763,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', 7);
INSERT INTO brain.chunks VALUES (3, 3, 0, 'compiled_truth', 'Call Alice about the wicks.', '''alic'':1A,4B ''call'':3B ''note'':2A ''wick'':7B', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.8102437,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.47854298,0,0,0,0,0,0,0,0.23927149,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.23927149,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', 5);
INSERT INTO brain.chunks VALUES (4, 2, 1, 'timeline', '2024-03-01: new wicks', '''-01'':5C ''-03'':4C ''2024'':3C ''lantern'':1A ''new'':6C ''project'':2A ''wick'':7C', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', 7);


--
-- Data for Name: config; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.config VALUES ('embedding_dim', '256', '2026-11-25 00:05:43.483366+00');
INSERT INTO brain.config VALUES ('embedder', 'local', '2026-11-25 00:05:43.483366+00');
INSERT INTO brain.config VALUES ('embed_model', 'hash-tsv-v1', '2026-11-25 00:05:43.483366+00');
INSERT INTO brain.config VALUES ('schema_version', '13', '2026-11-25 00:05:43.483366+00');


--
-- Data for Name: corpus_stats; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.corpus_stats VALUES (true, 4, 26);


--
-- Data for Name: embed_runs; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: eval_candidates; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.eval_candidates VALUES (1, 'query', 'who keeps the lanterns', '{people/alice-smith}', '{}', '{}', NULL, NULL, NULL, true, false, 4.200, false, NULL, NULL, '2026-11-25 00:05:43.646719+00');


--
-- Data for Name: eval_capture_failures; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.eval_capture_failures VALUES (1, '2026-11-25 00:05:43.639583+00', '2026-11-25 00:05:43.639583+00', 'search', 'db_down', NULL, 'connection refused', NULL);


--
-- Data for Name: eval_contradiction_findings; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: eval_contradiction_runs; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: eval_contradictions_cache; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: eval_contradictions_dismissed; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: eval_nightly_runs; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: mcp_tokens; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: page_pii; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.page_pii VALUES (1, '{contact}', DEFAULT, 'heuristic', '2026-11-25 00:05:43.639583+00');
INSERT INTO brain.page_pii VALUES (3, '{contact}', DEFAULT, 'heuristic', '2026-11-25 00:05:43.639583+00');


--
-- Data for Name: pages; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.pages VALUES (1, 'default', 'people/alice-smith', 'Alice Smith', 'page', 'Alice keeps the harbour lanterns lit.', '', '{}', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '2026-11-25 00:05:43.639583+00', '2026-11-25 00:05:43.639583+00');
INSERT INTO brain.pages VALUES (2, 'default', 'projects/lantern', 'Lantern project', 'page', 'Brass lanterns, rebuilt every spring.', '2024-03-01: new wicks', '{}', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', '2026-11-25 00:05:43.639583+00', '2026-11-25 00:05:43.639583+00');
INSERT INTO brain.pages VALUES (3, 'notes', 'people/alice-smith', 'Alice (notes)', 'page', 'Call Alice about the wicks.', '', '{}', 'cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc', '2026-11-25 00:05:43.639583+00', '2026-11-25 00:05:43.639583+00');


--
-- Data for Name: source_boosts; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.source_boosts VALUES ('people/', 1.5);


--
-- Data for Name: sources; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.sources VALUES ('default', 'Default source', '2026-11-25 00:05:43.483366+00', '{}');
INSERT INTO brain.sources VALUES ('notes', 'Notes', '2026-11-25 00:05:43.639583+00', '{}');


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
-- Data for Name: vector_index_state; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: pgbrain_schema_version; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.pgbrain_schema_version VALUES (13);


--
-- Name: chunks_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.chunks_id_seq', 4, true);


--
-- Name: embed_runs_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.embed_runs_id_seq', 1, false);


--
-- Name: eval_candidates_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.eval_candidates_id_seq', 1, true);


--
-- Name: eval_capture_failures_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.eval_capture_failures_id_seq', 1, true);


--
-- Name: eval_contradiction_runs_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.eval_contradiction_runs_id_seq', 1, false);


--
-- Name: eval_nightly_runs_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.eval_nightly_runs_id_seq', 1, false);


--
-- Name: mcp_tokens_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.mcp_tokens_id_seq', 1, false);


--
-- Name: pages_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.pages_id_seq', 3, true);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


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
-- Name: embed_runs embed_runs_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.embed_runs
    ADD CONSTRAINT embed_runs_pkey PRIMARY KEY (id);


--
-- Name: eval_candidates eval_candidates_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_candidates
    ADD CONSTRAINT eval_candidates_pkey PRIMARY KEY (id);


--
-- Name: eval_capture_failures eval_capture_failures_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_capture_failures
    ADD CONSTRAINT eval_capture_failures_pkey PRIMARY KEY (id);


--
-- Name: eval_capture_failures eval_capture_failures_spool_id_key; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_capture_failures
    ADD CONSTRAINT eval_capture_failures_spool_id_key UNIQUE (spool_id);


--
-- Name: eval_contradiction_runs eval_contradiction_runs_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_contradiction_runs
    ADD CONSTRAINT eval_contradiction_runs_pkey PRIMARY KEY (id);


--
-- Name: eval_contradictions_cache eval_contradictions_cache_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_contradictions_cache
    ADD CONSTRAINT eval_contradictions_cache_pkey PRIMARY KEY (prompt_version, hash_a, hash_b);


--
-- Name: eval_contradictions_dismissed eval_contradictions_dismissed_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_contradictions_dismissed
    ADD CONSTRAINT eval_contradictions_dismissed_pkey PRIMARY KEY (hash_a, hash_b);


--
-- Name: eval_nightly_runs eval_nightly_runs_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_nightly_runs
    ADD CONSTRAINT eval_nightly_runs_pkey PRIMARY KEY (id);


--
-- Name: mcp_tokens mcp_tokens_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.mcp_tokens
    ADD CONSTRAINT mcp_tokens_pkey PRIMARY KEY (id);


--
-- Name: mcp_tokens mcp_tokens_token_sha256_key; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.mcp_tokens
    ADD CONSTRAINT mcp_tokens_token_sha256_key UNIQUE (token_sha256);


--
-- Name: page_pii page_pii_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.page_pii
    ADD CONSTRAINT page_pii_pkey PRIMARY KEY (page_id);


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
-- Name: vector_index_state vector_index_state_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.vector_index_state
    ADD CONSTRAINT vector_index_state_pkey PRIMARY KEY (index_name);


--
-- Name: audit_log_occurred_at_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX audit_log_occurred_at_idx ON brain.audit_log USING btree (occurred_at);


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
-- Name: embed_runs_one_open; Type: INDEX; Schema: brain; Owner: -
--

CREATE UNIQUE INDEX embed_runs_one_open ON brain.embed_runs USING btree ((true)) WHERE (finished_at IS NULL);


--
-- Name: eval_candidates_export_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX eval_candidates_export_idx ON brain.eval_candidates USING btree (created_at DESC, id DESC);


--
-- Name: eval_candidates_tool_export_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX eval_candidates_tool_export_idx ON brain.eval_candidates USING btree (tool_name, created_at DESC, id DESC);


--
-- Name: eval_capture_failures_occurred_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX eval_capture_failures_occurred_idx ON brain.eval_capture_failures USING btree (occurred_at DESC);


--
-- Name: eval_contradiction_findings_run; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX eval_contradiction_findings_run ON brain.eval_contradiction_findings USING btree (run_id);


--
-- Name: eval_contradiction_runs_started; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX eval_contradiction_runs_started ON brain.eval_contradiction_runs USING btree (started_at);


--
-- Name: eval_nightly_runs_started; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX eval_nightly_runs_started ON brain.eval_nightly_runs USING btree (started_at);


--
-- Name: mcp_tokens_live_name; Type: INDEX; Schema: brain; Owner: -
--

CREATE UNIQUE INDEX mcp_tokens_live_name ON brain.mcp_tokens USING btree (name) WHERE (revoked_at IS NULL);


--
-- Name: page_pii_categories_gin; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX page_pii_categories_gin ON brain.page_pii USING gin (categories);


--
-- Name: pages_type_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX pages_type_idx ON brain.pages USING btree (type);


--
-- Name: audit_log audit_log_00_append_only; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER audit_log_00_append_only BEFORE DELETE OR UPDATE OR TRUNCATE ON brain.audit_log FOR EACH STATEMENT EXECUTE FUNCTION brain.audit_log_refuse_change();

ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_00_append_only;


--
-- Name: audit_log audit_log_10_chain; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER audit_log_10_chain BEFORE INSERT ON brain.audit_log FOR EACH ROW EXECUTE FUNCTION brain.audit_log_chain();

ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_10_chain;


--
-- Name: chunks chunks_10_tsv; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_10_tsv BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id ON brain.chunks FOR EACH ROW EXECUTE FUNCTION brain.chunks_set_tsv();


--
-- Name: chunks chunks_20_features; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_20_features BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id, embedding, doc_len ON brain.chunks FOR EACH ROW EXECUTE FUNCTION brain.chunks_features();


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
-- Name: eval_candidates eval_candidates_10_created_at; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER eval_candidates_10_created_at BEFORE INSERT ON brain.eval_candidates FOR EACH ROW EXECUTE FUNCTION brain.eval_candidates_set_created_at();


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
-- Name: eval_contradiction_findings eval_contradiction_findings_run_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.eval_contradiction_findings
    ADD CONSTRAINT eval_contradiction_findings_run_id_fkey FOREIGN KEY (run_id) REFERENCES brain.eval_contradiction_runs(id) ON DELETE CASCADE;


--
-- Name: page_pii page_pii_page_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.page_pii
    ADD CONSTRAINT page_pii_page_id_fkey FOREIGN KEY (page_id) REFERENCES brain.pages(id) ON DELETE CASCADE;


--
-- Name: pages pages_source_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages
    ADD CONSTRAINT pages_source_id_fkey FOREIGN KEY (source_id) REFERENCES brain.sources(id);


--
-- Name: SCHEMA brain; Type: ACL; Schema: -; Owner: -
--

GRANT USAGE ON SCHEMA brain TO pgbrain_audit_writer;
GRANT USAGE ON SCHEMA brain TO pgbrain_auditor;


--
-- Name: TABLE audit_log; Type: ACL; Schema: brain; Owner: -
--

GRANT SELECT ON TABLE brain.audit_log TO pgbrain_auditor;


--
-- Name: COLUMN audit_log.session_id; Type: ACL; Schema: brain; Owner: -
--

GRANT INSERT(session_id) ON TABLE brain.audit_log TO pgbrain_audit_writer;


--
-- Name: COLUMN audit_log.caller; Type: ACL; Schema: brain; Owner: -
--

GRANT INSERT(caller) ON TABLE brain.audit_log TO pgbrain_audit_writer;


--
-- Name: COLUMN audit_log.tool_name; Type: ACL; Schema: brain; Owner: -
--

GRANT INSERT(tool_name) ON TABLE brain.audit_log TO pgbrain_audit_writer;


--
-- Name: COLUMN audit_log.status; Type: ACL; Schema: brain; Owner: -
--

GRANT INSERT(status) ON TABLE brain.audit_log TO pgbrain_audit_writer;


--
-- Name: COLUMN audit_log.refusal_reason; Type: ACL; Schema: brain; Owner: -
--

GRANT INSERT(refusal_reason) ON TABLE brain.audit_log TO pgbrain_audit_writer;


--
-- Name: COLUMN audit_log.pii_categories; Type: ACL; Schema: brain; Owner: -
--

GRANT INSERT(pii_categories) ON TABLE brain.audit_log TO pgbrain_audit_writer;


--
-- Name: COLUMN audit_log.cost_class; Type: ACL; Schema: brain; Owner: -
--

GRANT INSERT(cost_class) ON TABLE brain.audit_log TO pgbrain_audit_writer;


--
-- PostgreSQL database dump complete
--


