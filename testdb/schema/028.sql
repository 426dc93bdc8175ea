-- pgbrain schema version 28 as released, with sample rows: written by
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
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;


--
-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';


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
    BEGIN ATOMIC
 WITH lo AS (
          SELECT
                 CASE
                     WHEN audit_verify."full" THEN NULL::bigint
                     WHEN (audit_verify.since_id IS NOT NULL) THEN audit_verify.since_id
                     ELSE ((( SELECT max(a.id) AS max
                        FROM brain.audit_log a) - GREATEST(audit_verify.window_rows, (1)::bigint)) + 1)
                 END AS first_id
         ), start AS (
          SELECT COALESCE(( SELECT max(a.id) AS max
                    FROM brain.audit_log a
                   WHERE (a.id < lo.first_id)), lo.first_id) AS from_id
            FROM lo
         ), linked AS (
          SELECT a.*::brain.audit_log AS rec,
             lag(a.id) OVER w AS prev_id,
             lag(a.chain_hash) OVER w AS prev_chain
            FROM brain.audit_log a,
             start
           WHERE ((start.from_id IS NULL) OR (a.id >= start.from_id))
           WINDOW w AS (ORDER BY a.id)
         ), checked AS (
          SELECT l.rec,
             l.prev_id,
             l.prev_chain
            FROM linked l,
             lo
           WHERE ((lo.first_id IS NULL) OR ((l.rec).id >= lo.first_id))
         )
  SELECT (c.rec).id AS id,
     p.problem,
     p.detail
    FROM (checked c
      CROSS JOIN LATERAL ( VALUES (
                 CASE
                     WHEN ((c.rec).id IS DISTINCT FROM (COALESCE(c.prev_id, (0)::bigint) + 1)) THEN 'missing_rows'::text
                     ELSE NULL::text
                 END,format('rows %s..%s are missing before row %s'::text, (COALESCE(c.prev_id, (0)::bigint) + 1), ((c.rec).id - 1), (c.rec).id)), (
                 CASE
                     WHEN ((c.rec).prev_hash IS DISTINCT FROM COALESCE(c.prev_chain, decode(repeat('00'::text, 32), 'hex'::text))) THEN 'broken_link'::text
                     ELSE NULL::text
                 END,format('prev_hash %s does not match %s'::text, encode((c.rec).prev_hash, 'hex'::text),
                 CASE
                     WHEN (c.prev_id IS NULL) THEN 'the genesis hash (32 zero bytes)'::text
                     ELSE format('the chain_hash of row %s (%s)'::text, c.prev_id, encode(c.prev_chain, 'hex'::text))
                 END)), (
                 CASE
                     WHEN ((c.rec).chain_hash IS DISTINCT FROM sha256(((c.rec).prev_hash || brain.audit_canonical_row(c.rec)))) THEN 'hash_mismatch'::text
                     ELSE NULL::text
                 END,format('stored chain_hash %s, recomputed %s'::text, encode((c.rec).chain_hash, 'hex'::text), encode(sha256(((c.rec).prev_hash || brain.audit_canonical_row(c.rec))), 'hex'::text))), (
                 CASE
                     WHEN (NOT brain.pii_categories_valid((c.rec).pii_categories)) THEN 'invalid_categories'::text
                     ELSE NULL::text
                 END,format('pii_categories %s is not a sorted, duplicate-free list of taxonomy names'::text, (c.rec).pii_categories)), (
                 CASE
                     WHEN (brain.pii_categories_valid((c.rec).pii_categories) AND ((c.rec).fingerprint IS DISTINCT FROM brain.audit_fingerprint((c.rec).tool_name, (c.rec).status, (c.rec).refusal_reason, (c.rec).pii_categories, (c.rec).cost_class))) THEN 'fingerprint_mismatch'::text
                     ELSE NULL::text
                 END,format('stored fingerprint %s does not match the row''s tool, status, refusal reason, categories and cost class'::text, (c.rec).fingerprint))) p(problem, detail))
   WHERE (p.problem IS NOT NULL)
   ORDER BY (c.rec).id, p.problem;
END;


--
-- Name: lexeme_tsquery(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.lexeme_tsquery(lexeme text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    BEGIN ATOMIC
 SELECT (((''''::text || replace(replace(lexeme, '\'::text, '\\'::text), ''''::text, ''''''::text)) || ''''::text))::tsquery AS tsquery;
END;


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
)
WITH (toast_tuple_target='8160');
ALTER TABLE ONLY brain.chunks ALTER COLUMN text SET COMPRESSION lz4;
ALTER TABLE ONLY brain.chunks ALTER COLUMN tsv SET COMPRESSION lz4;


--
-- Name: bm25_scores(bigint[], text[], double precision[], tsquery, double precision, double precision, double precision, double precision, double precision, double precision, double precision, double precision, integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.bm25_scores(ids bigint[], lexemes text[], idfs double precision[], strict_q tsquery, k1 double precision, b double precision, w_a double precision, w_c double precision, avgdl double precision, bonus double precision, cover double precision, lead_w double precision DEFAULT 0, lead_n integer DEFAULT 0) RETURNS TABLE(id bigint, sc double precision, strict double precision)
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 WITH t AS MATERIALIZED (
          SELECT c.id,
             c.doc_len,
             c.chunk_index,
             c.tsv,
             ts_filter(c.tsv, '{a,c}'::"char"[]) AS ac,
                 CASE
                     WHEN ((bm25_scores.strict_q IS NOT NULL) AND (c.tsv @@ bm25_scores.strict_q)) THEN ((1)::double precision + bm25_scores.bonus)
                     ELSE (1)::double precision
                 END AS strict
            FROM brain.chunks c
           WHERE (c.id = ANY (bm25_scores.ids))
         ), ac AS (
          SELECT t_1.id,
             u.lexeme,
             cardinality(array_positions(u.weights, 'A'::text)) AS na,
             cardinality(array_positions(u.weights, 'C'::text)) AS nc
            FROM t t_1,
             LATERAL unnest(t_1.ac) u(lexeme, positions, weights)
           WHERE ((t_1.ac @@ ( SELECT (string_agg((brain.lexeme_tsquery(l.l))::text, ' | '::text))::tsquery AS string_agg
                    FROM unnest(bm25_scores.lexemes) l(l)
                   WHERE (l.l <> ''::text))) AND (u.lexeme = ANY (bm25_scores.lexemes)))
         ), tf AS (
          SELECT x.id,
             x.lexeme,
             x.doc_len,
             (bm25_scores.idfs)[array_position(bm25_scores.lexemes, x.lexeme)] AS idf,
             (bm25_scores.w_a * (COALESCE(ac.na, 0))::double precision) AS ta,
             ((((cardinality(x.positions) - COALESCE(ac.na, 0)))::double precision + ((bm25_scores.w_c - (1)::double precision) * (COALESCE(ac.nc, 0))::double precision)) +
                 CASE
                     WHEN ((bm25_scores.lead_w > (0)::double precision) AND (x.chunk_index = 0) AND (x.positions[1] <= bm25_scores.lead_n)) THEN (bm25_scores.lead_w * (GREATEST((width_bucket((bm25_scores.lead_n)::smallint, x.positions) - COALESCE(ac.na, 0)), 0))::double precision)
                     ELSE (0)::double precision
                 END) AS tb
            FROM (( SELECT t_1.id,
                     t_1.doc_len,
                     t_1.chunk_index,
                     u.lexeme,
                     u.positions
                    FROM t t_1,
                     LATERAL unnest(ts_filter(setweight(setweight(t_1.tsv, 'D'::"char"), 'A'::"char", bm25_scores.lexemes), '{a}'::"char"[])) u(lexeme, positions, weights)) x
              LEFT JOIN ac ON (((ac.id = x.id) AND (ac.lexeme = x.lexeme))))
           ORDER BY x.id, x.lexeme
         ), m AS (
          SELECT f.id,
             sum((((f.idf * f.tfp) * (bm25_scores.k1 + (1)::double precision)) / (f.tfp + bm25_scores.k1))) AS bm25,
             sum(f.idf) AS held
            FROM ( SELECT tf.id,
                     tf.idf,
                     (tf.ta + (tf.tb / (((1)::double precision - bm25_scores.b) + ((bm25_scores.b * (tf.doc_len)::double precision) / bm25_scores.avgdl)))) AS tfp
                    FROM tf
                   WHERE ((tf.ta + tf.tb) > (0)::double precision)) f
           GROUP BY f.id
         )
  SELECT t.id,
     ((COALESCE(m.bm25, (0)::double precision) * ((1)::double precision + (bm25_scores.cover * power((COALESCE(m.held, (0)::double precision) / GREATEST(( SELECT sum(v.v) AS sum
            FROM unnest(bm25_scores.idfs) v(v)), (0.000000001)::double precision)), (2)::double precision)))) * t.strict) AS float8,
     t.strict
    FROM (t
      LEFT JOIN m ON ((m.id = t.id)));
END;


--
-- Name: caller_role(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.caller_role() RETURNS name
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN (COALESCE(current_setting('role'::text, true), 'none'::text) = 'none'::text) THEN SESSION_USER
             ELSE (current_setting('role'::text, true))::name
         END AS current_setting;
END;


--
-- Name: caller_scope(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.caller_scope() RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	who name := brain.caller_role();
	r oid;
	bypass boolean;
BEGIN
	SELECT a.oid, a.rolsuper OR a.rolbypassrls INTO r, bypass FROM pg_catalog.pg_roles a WHERE a.rolname = who;
	IF r IS NULL THEN
		RETURN 'none';
	END IF;
	IF bypass OR NOT (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = 'brain.chunks'::regclass)
	   OR pg_has_role(r, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = 'brain.chunks'::regclass), 'USAGE') THEN
		RETURN 'all';
	END IF;
	IF NOT has_table_privilege(r, 'brain.chunks'::regclass, 'SELECT') THEN
		RAISE EXCEPTION 'permission denied for table chunks (role %)', who
			USING ERRCODE = '42501', HINT = 'grant the role pgbrain_agent or pgbrain_reader';
	END IF;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_policy p, unnest(p.polroles) pr
	           WHERE p.polrelid = 'brain.chunks'::regclass AND p.polname = 'chunks_trusted'
	             AND (pr = 0 OR pg_has_role(r, pr, 'USAGE'))) THEN
		RETURN 'all';
	END IF;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_policy p, unnest(p.polroles) pr
	           WHERE p.polrelid = 'brain.chunks'::regclass AND p.polname = 'chunks_agent'
	             AND (pr = 0 OR pg_has_role(r, pr, 'USAGE'))) THEN
		RETURN 'agent';
	END IF;
	RETURN 'none';
END
$$;


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
-- Name: slash_parts(tsvector); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.slash_parts(v tsvector) RETURNS tsvector
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	extra text;
BEGIN
	-- tsvector has no constructor taking positions but its text form, whose
	-- input merges a lexeme written twice into one with both positions.
	SELECT string_agg('''' || replace(replace(x.lexeme, '\', '\\'), '''', '''''') || ''':' || x.pos, ' ')
	INTO extra
	FROM (SELECT DISTINCT p.lexeme, array_to_string(u.positions, ',') AS pos
	      FROM unnest(v) u, unnest(brain.text_tsvector(translate(u.lexeme, '/', ' '))) p
	      -- (a URL, host/path, is left whole: the parser gives its host, at
	      -- the next position, and its path as lexemes of their own, and
	      -- the path is split here)
	      WHERE strpos(u.lexeme, '/') > 0 AND p.lexeme <> u.lexeme
	        AND NOT EXISTS (SELECT 1 FROM unnest(v) h
	                        WHERE h.lexeme = split_part(u.lexeme, '/', 1) AND u.positions[1] + 1 = ANY (h.positions))) x;
	IF extra IS NULL THEN
		RETURN v;
	END IF;
	RETURN (v::text || ' ' || extra)::tsvector;
END
$$;


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
 SELECT to_tsvector('brain.english_unaccent'::regconfig, translate(
         CASE
             WHEN (t ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]'::text) THEN brain.cjk_bigrams(t)
             ELSE COALESCE(t, ''::text)
         END, 'ς'::text, 'σ'::text)) AS to_tsvector;
END;


--
-- Name: indexed_tsvector(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.indexed_tsvector(t text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN (strpos(t, '/'::text) = 0) THEN brain.text_tsvector(t)
             ELSE brain.slash_parts(brain.text_tsvector(t))
         END AS slash_parts;
END;


--
-- Name: chunk_tsv(text, text, text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT (setweight(brain.indexed_tsvector(title), 'A'::"char") || setweight(brain.indexed_tsvector(body), (
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
-- Name: chunks_pending_done(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_pending_done() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	DELETE FROM brain.page_chunks_pending d USING (SELECT DISTINCT n.page_id FROM new_chunks n) x
	WHERE d.page_id = x.page_id;
	RETURN NULL;
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
-- Name: contradiction_dismiss(text, text, text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.contradiction_dismiss(hash_1 text, hash_2 text, note text DEFAULT ''::text) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $_$
DECLARE n int;
BEGIN
	IF hash_1 IS NULL OR hash_1 !~ '^[0-9a-f]{64}$' OR hash_2 IS NULL OR hash_2 !~ '^[0-9a-f]{64}$' THEN
		RAISE EXCEPTION 'contradiction_dismiss: % and % must both be sha256 hashes (64 lower-case hex digits) as printed by pgbrain doctor', hash_1, hash_2
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	INSERT INTO brain.eval_contradictions_dismissed (hash_a, hash_b, note)
	VALUES (least(hash_1, hash_2), greatest(hash_1, hash_2), coalesce(note, ''))
	ON CONFLICT DO NOTHING;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n > 0;
END
$_$;


--
-- Name: title_words(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.title_words(title text) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	RETURN ARRAY(
		SELECT DISTINCT x
		FROM unnest(string_to_array(translate(
				array_to_string(ARRAY(
					SELECT l FROM unnest(tsvector_to_array(brain.indexed_tsvector(title))) l
					WHERE strpos(l, '/') = 0), ' '),
			'0123456789-_./+@:~', '                  '), ' ')) x
		WHERE length(x) >= 2
		ORDER BY x);
END
$$;


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
    origin text DEFAULT 'put'::text NOT NULL,
    title_words text[] GENERATED ALWAYS AS (brain.title_words(title)) STORED,
    CONSTRAINT pages_body_check CHECK ((octet_length(body) <= 10485760)),
    CONSTRAINT pages_content_hash_check CHECK ((content_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT pages_frontmatter_check CHECK ((jsonb_typeof(frontmatter) = 'object'::text)),
    CONSTRAINT pages_origin_known CHECK ((origin = ANY (ARRAY['file'::text, 'put'::text]))),
    CONSTRAINT pages_slug_shape CHECK (((octet_length(slug) <= 512) AND (slug ~ '^[a-z0-9\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF][a-z0-9._+\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF-]*(/[a-z0-9\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF][a-z0-9._+\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF-]*)*$'::text))),
    CONSTRAINT pages_timeline_check CHECK ((octet_length(timeline) <= 10485760)),
    CONSTRAINT pages_title_check CHECK (((length(title) >= 1) AND (length(title) <= 1000))),
    CONSTRAINT pages_type_shape CHECK (((char_length(type) <= 64) AND (type ~ '^[a-z0-9\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF][a-z0-9_\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF-]*$'::text)))
);
ALTER TABLE ONLY brain.pages ALTER COLUMN body SET COMPRESSION lz4;
ALTER TABLE ONLY brain.pages ALTER COLUMN timeline SET COMPRESSION lz4;
ALTER TABLE ONLY brain.pages ALTER COLUMN frontmatter SET COMPRESSION lz4;


--
-- Name: contradiction_pairs(bigint[], text, integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.contradiction_pairs(chunk_ids bigint[], prompt_version text, per_page integer DEFAULT 3) RETURNS TABLE(kind text, chunk_id_a bigint, source_a text, slug_a text, text_a text, hash_a text, chunk_id_b bigint, source_b text, slug_b text, text_b text, hash_b text, dismissed boolean, cached boolean, contradiction boolean, severity text, explanation text, evidence_a text, evidence_b text)
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 WITH hit AS (
          SELECT c.id,
             c.page_id,
             c.chunk_index,
             c.chunk_source,
             c.text,
             p.source_id,
             p.slug,
             encode(sha256(convert_to(c.text, 'UTF8'::name)), 'hex'::text) AS h,
             o.ord
            FROM ((unnest(contradiction_pairs.chunk_ids) WITH ORDINALITY o(id, ord)
              JOIN brain.chunks c ON ((c.id = o.id)))
              JOIN brain.pages p ON ((p.id = c.page_id)))
         ), raw AS (
          SELECT 'truth_vs_timeline'::text AS kind,
             hit.ord,
             (0)::bigint AS sub,
             hit.id AS id1,
             hit.source_id AS src1,
             hit.slug AS slug1,
             hit.text AS text1,
             hit.h AS h1,
             o.id AS id2,
             hit.source_id AS src2,
             hit.slug AS slug2,
             o.text AS text2,
             o.h AS h2,
             o.rn
            FROM (hit
              CROSS JOIN LATERAL ( SELECT c2.id,
                     c2.text,
                     encode(sha256(convert_to(c2.text, 'UTF8'::name)), 'hex'::text) AS h,
                     row_number() OVER () AS rn
                    FROM ( SELECT c2_1.id,
                             c2_1.page_id,
                             c2_1.chunk_index,
                             c2_1.chunk_source,
                             c2_1.text,
                             c2_1.tsv,
                             c2_1.embedding,
                             c2_1.doc_len
                            FROM brain.chunks c2_1
                           WHERE ((c2_1.page_id = hit.page_id) AND (c2_1.chunk_source <> hit.chunk_source))
                           ORDER BY (abs((c2_1.chunk_index - hit.chunk_index))), c2_1.chunk_index
                          LIMIT GREATEST(COALESCE(contradiction_pairs.per_page, 3), 0)) c2) o)
         UNION ALL
          SELECT 'cross_page'::text,
             x.ord,
             y.ord,
             x.id,
             x.source_id,
             x.slug,
             x.text,
             x.h,
             y.id,
             y.source_id,
             y.slug,
             y.text,
             y.h,
             0
            FROM (hit x
              JOIN hit y ON (((x.ord < y.ord) AND (x.page_id <> y.page_id))))
         ), norm AS (
          SELECT r.kind,
             r.ord,
             r.sub,
             r.rn,
                 CASE
                     WHEN (r.h1 <= r.h2) THEN r.id1
                     ELSE r.id2
                 END AS ida,
                 CASE
                     WHEN (r.h1 <= r.h2) THEN r.src1
                     ELSE r.src2
                 END AS srca,
                 CASE
                     WHEN (r.h1 <= r.h2) THEN r.slug1
                     ELSE r.slug2
                 END AS sluga,
                 CASE
                     WHEN (r.h1 <= r.h2) THEN r.text1
                     ELSE r.text2
                 END AS texta,
             LEAST(r.h1, r.h2) AS ha,
                 CASE
                     WHEN (r.h1 <= r.h2) THEN r.id2
                     ELSE r.id1
                 END AS idb,
                 CASE
                     WHEN (r.h1 <= r.h2) THEN r.src2
                     ELSE r.src1
                 END AS srcb,
                 CASE
                     WHEN (r.h1 <= r.h2) THEN r.slug2
                     ELSE r.slug1
                 END AS slugb,
                 CASE
                     WHEN (r.h1 <= r.h2) THEN r.text2
                     ELSE r.text1
                 END AS textb,
             GREATEST(r.h1, r.h2) AS hb
            FROM raw r
           WHERE (r.h1 <> r.h2)
         ), one AS (
          SELECT DISTINCT ON (n.ha, n.hb) n.kind,
             n.ord,
             n.sub,
             n.rn,
             n.ida,
             n.srca,
             n.sluga,
             n.texta,
             n.ha,
             n.idb,
             n.srcb,
             n.slugb,
             n.textb,
             n.hb
            FROM norm n
           ORDER BY n.ha, n.hb, n.ord, n.kind DESC, n.sub, n.rn
         )
  SELECT one.kind,
     one.ida,
     one.srca,
     one.sluga,
     one.texta,
     one.ha,
     one.idb,
     one.srcb,
     one.slugb,
     one.textb,
     one.hb,
     (d.hash_a IS NOT NULL),
     (j.hash_a IS NOT NULL),
     j.contradiction,
     j.severity,
     j.explanation,
     j.evidence_a,
     j.evidence_b
    FROM ((one
      LEFT JOIN brain.eval_contradictions_dismissed d ON (((d.hash_a = one.ha) AND (d.hash_b = one.hb))))
      LEFT JOIN brain.eval_contradictions_cache j ON (((j.prompt_version = contradiction_pairs.prompt_version) AND (j.hash_a = one.ha) AND (j.hash_b = one.hb))))
   ORDER BY one.ord, one.kind DESC, one.sub, one.rn;
END;


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
-- Name: contradiction_trend(integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.contradiction_trend(days integer) RETURNS TABLE(day date, ran boolean, flagged bigint, high bigint, medium bigint, low bigint)
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 WITH span AS (
          SELECT (g.g)::date AS day
            FROM generate_series(((((now() AT TIME ZONE 'UTC'::text))::date - (GREATEST(contradiction_trend.days, 1) - 1)))::timestamp with time zone, (((now() AT TIME ZONE 'UTC'::text))::date)::timestamp with time zone, '1 day'::interval) g(g)
         ), runs AS (
          SELECT DISTINCT ((r.started_at AT TIME ZONE 'UTC'::text))::date AS day
            FROM brain.eval_contradiction_runs r
         ), pairs AS (
          SELECT ((r.started_at AT TIME ZONE 'UTC'::text))::date AS day,
             f.hash_a,
             f.hash_b,
             max(
                 CASE f.severity
                     WHEN 'high'::text THEN 3
                     WHEN 'medium'::text THEN 2
                     ELSE 1
                 END) AS worst
            FROM (brain.eval_contradiction_findings f
              JOIN brain.eval_contradiction_runs r ON ((r.id = f.run_id)))
           WHERE (NOT (EXISTS ( SELECT 1
                    FROM brain.eval_contradictions_dismissed d
                   WHERE ((d.hash_a = f.hash_a) AND (d.hash_b = f.hash_b)))))
           GROUP BY (((r.started_at AT TIME ZONE 'UTC'::text))::date), f.hash_a, f.hash_b
         )
  SELECT s.day,
     (EXISTS ( SELECT 1
            FROM runs
           WHERE (runs.day = s.day))) AS "exists",
     count(p.hash_a) AS count,
     count(p.hash_a) FILTER (WHERE (p.worst = 3)) AS count,
     count(p.hash_a) FILTER (WHERE (p.worst = 2)) AS count,
     count(p.hash_a) FILTER (WHERE (p.worst = 1)) AS count
    FROM (span s
      LEFT JOIN pairs p ON ((p.day = s.day)))
   GROUP BY s.day
   ORDER BY s.day;
END;


--
-- Name: detect_detail(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.detect_detail(q text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN ((q IS NULL) OR (btrim(q) = ''::text)) THEN NULL::text
             WHEN (q ~* '\m(when|timeline|history|historical|since|ago|yesterday|changelog|happened|introduced|deprecated|added in|removed in|last (week|month|year)|(19|20)[0-9]{2}|january|february|march|april|june|july|august|september|october|november|december)\M'::text) THEN 'high'::text
             WHEN ((q ~* '^\s*(who|what)\s+(is|are|was|were)\s+\S'::text) OR (q ~ '^\s*[A-Za-z_][A-Za-z0-9_/]*\.[A-Z][A-Za-z0-9_]*\s*$'::text)) THEN 'low'::text
             ELSE NULL::text
         END AS "case";
END;


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
 SELECT brain.embed_tsvector(brain.indexed_tsvector(t)) AS embed_tsvector;
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
    BEGIN ATOMIC
 WITH todo AS (
          SELECT chunks.id
            FROM brain.chunks
           WHERE ((chunks.embedding IS NULL) AND (length(chunks.tsv) > 0))
           ORDER BY chunks.id
          LIMIT embed_stale.batch
         ), done AS (
          UPDATE brain.chunks AS c SET embedding = brain.embed_tsvector(c.tsv)
            FROM todo
           WHERE (c.id = todo.id)
           RETURNING (c.embedding IS NOT NULL) AS filled
         )
  SELECT count(*) FILTER (WHERE done.filled) AS count
    FROM done;
END;


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
    BEGIN ATOMIC
 SELECT ((((((((((((((((((((((((((((((((((('{"schema_version":1'::text || ',"id":'::text) || (c).id) || ',"tool_name":'::text) || (to_json((c).tool_name))::text) || ',"query":'::text) || (to_json((c).query))::text) || ',"retrieved_slugs":'::text) || (to_json((c).retrieved_slugs))::text) || ',"retrieved_chunk_ids":'::text) || (to_json((c).retrieved_chunk_ids))::text) || ',"source_ids":'::text) || (to_json((c).source_ids))::text) || ',"expand_enabled":'::text) || COALESCE((to_json((c).expand_enabled))::text, 'null'::text)) || ',"detail":'::text) || COALESCE((to_json((c).detail))::text, 'null'::text)) || ',"detail_resolved":'::text) || COALESCE((to_json((c).detail_resolved))::text, 'null'::text)) || ',"vector_enabled":'::text) || (to_json((c).vector_enabled))::text) || ',"expansion_applied":'::text) || (to_json((c).expansion_applied))::text) || ',"latency_ms":'::text) || (trim_scale((c).latency_ms))::text) || ',"remote":'::text) || (to_json((c).remote))::text) || ',"job_id":'::text) || COALESCE(((c).job_id)::text, 'null'::text)) || ',"subagent_id":'::text) || COALESCE(((c).subagent_id)::text, 'null'::text)) || ',"created_at":"'::text) || to_char(((c).created_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'::text)) || '"'::text) || '}'::text))::json AS json;
END;


--
-- Name: eval_window_end(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.eval_window_end() RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	t_end    timestamptz := clock_timestamp();
	bounded  timestamptz;
	unknown  text[];
	setting  text := nullif(current_setting('brain.eval_window_timeout', true), '');
	max_wait interval := interval '30 seconds';
	deadline timestamptz;
	who      text;
BEGIN
	IF setting IS NOT NULL THEN
		BEGIN
			max_wait := setting::interval;
		EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR interval_field_overflow THEN
			RAISE EXCEPTION 'brain.eval_window_timeout is %, which is not a time interval', quote_literal(setting)
				USING ERRCODE = '22023',
				      HINT = 'set it to an interval such as ''30s'' or ''5min'', or RESET brain.eval_window_timeout for the default of 30 seconds';
		END;
	END IF;
	deadline := clock_timestamp() + max_wait;
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
		IF clock_timestamp() >= deadline THEN
			SELECT string_agg(format('pid %s (user %s, application_name %s, state %s, xact_start %s)',
			                         a.pid, coalesce(a.usename::text, 'unknown'),
			                         coalesce(quote_literal(a.application_name), 'unknown'),
			                         coalesce(a.state, 'unknown'),
			                         coalesce(a.xact_start::text, 'unknown')), '; ' ORDER BY a.pid)
			  INTO who
			  FROM pg_stat_activity a
			 WHERE (a.pid || ':' || a.backend_xid) = ANY (unknown);
			RAISE EXCEPTION 'brain.eval_window_end: waited % for transactions that this role cannot see the start of: %', max_wait, coalesce(who, array_to_string(unknown, ', '))
				USING ERRCODE = '55P03',
				      HINT = 'end those transactions (pg_terminate_backend(pid)), grant pg_read_all_stats to the owner of brain.eval_window_end so their start bounds the window without waiting, or wait longer with SET brain.eval_window_timeout = ''5min''';
		END IF;
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
$$;


--
-- Name: import_apply(text, text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.import_apply(p_source text, p_origin text DEFAULT 'file'::text) RETURNS TABLE(added bigint, updated bigint, unchanged bigint, marked_put bigint, overwrote_put text[])
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	n_marked bigint := 0;
	put_over text[] := '{}';
BEGIN
	-- The source's row first, before any page or chunk of it: removing a
	-- source locks that row first too (brain.RemoveSource), so the two
	-- queue instead of deadlocking (each holding what the other waits for:
	-- the removal a page's chunks, the import the row a new page refers
	-- to). A source removed meanwhile ends the import with a clear error.
	PERFORM FROM brain.sources WHERE id = p_source FOR KEY SHARE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'source "%" does not exist (removed while this import ran?): create it with ''pgbrain sources add %'' and import again',
			p_source, p_source USING ERRCODE = 'no_data_found';
	END IF;

	-- Pages written by name (put, psql) whose content a file import is about
	-- to replace: named, so the edit is not lost without a word.
	IF p_origin = 'file' THEN
		SELECT coalesce(array_agg(p.slug ORDER BY p.slug), '{}') INTO put_over
		FROM pg_temp.import_pages s JOIN brain.pages p ON p.source_id = p_source AND p.slug = s.slug
		WHERE p.origin = 'put' AND p.content_hash <> s.content_hash;
	END IF;

	-- Chunks of changed pages go first, so the title trigger below has nothing
	-- to refresh for rows that are about to be replaced anyway.
	DELETE FROM brain.chunks c
	USING brain.pages p, pg_temp.import_pages s
	WHERE c.page_id = p.id AND p.source_id = p_source AND p.slug = s.slug
	  AND p.content_hash <> s.content_hash;

	WITH up AS (
		INSERT INTO brain.pages AS p (id, source_id, slug, title, type, body, timeline, frontmatter, content_hash, origin)
		SELECT coalesce(s.id, nextval('brain.pages_id_seq')), p_source, s.slug, s.title, s.type, s.body, s.timeline, s.frontmatter, s.content_hash, p_origin
		FROM pg_temp.import_pages s
		ON CONFLICT (source_id, slug) DO UPDATE
			SET title = EXCLUDED.title, type = EXCLUDED.type, body = EXCLUDED.body,
			    timeline = EXCLUDED.timeline, frontmatter = EXCLUDED.frontmatter,
			    content_hash = EXCLUDED.content_hash, origin = EXCLUDED.origin, updated_at = now()
			WHERE p.content_hash <> EXCLUDED.content_hash
		RETURNING p.id, p.slug, (p.xmax = 0) AS inserted
	)
	INSERT INTO pg_temp.import_applied (id, slug, inserted)
	SELECT up.id, up.slug, up.inserted FROM up;

	-- A page written by name stays out of --prune even when its content
	-- equals what an import stored (the upsert above leaves such a page alone).
	IF p_origin = 'put' THEN
		UPDATE brain.pages p SET origin = 'put'
		FROM pg_temp.import_pages s
		WHERE p.source_id = p_source AND p.slug = s.slug AND p.origin <> 'put';
		GET DIAGNOSTICS n_marked = ROW_COUNT;
	END IF;

	INSERT INTO brain.chunks (id, page_id, chunk_index, chunk_source, text, embedding)
	SELECT coalesce(c.id, nextval('brain.chunks_id_seq')), a.id, c.chunk_index, c.chunk_source, c.text, c.embedding
	FROM pg_temp.import_chunks c
	JOIN pg_temp.import_applied a ON a.slug = c.slug
	ORDER BY a.id, c.chunk_index;

	RETURN QUERY
	SELECT count(*) FILTER (WHERE a.inserted),
	       count(*) FILTER (WHERE NOT a.inserted),
	       (SELECT count(*) FROM pg_temp.import_pages) - count(*),
	       n_marked, put_over
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
		-- Stored like brain.chunks (migration 019): a chunk's text that was
		-- compressed here would be copied into brain.chunks compressed.
		CREATE TEMP TABLE import_chunks (
			id bigint, slug text NOT NULL, chunk_index int NOT NULL, chunk_source text NOT NULL,
			text text NOT NULL, embedding vector
		) WITH (toast_tuple_target = 8160) ON COMMIT DELETE ROWS;
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
    SET synchronize_seqscans TO 'off'
    SET plan_cache_mode TO 'auto'
    AS $$
DECLARE
	ids bigint[];
	-- A cap this large or larger ranks every match.
	scan_limit constant int := 10000;
BEGIN
	-- The tsvector is read (detoasted) only by ts_rank, which runs only
	-- when more than cap chunks match.
	SELECT array_agg(s.id) INTO ids FROM (
		SELECT m.id FROM (
			SELECT c.id, c.tsv, count(*) OVER () AS n FROM (
				SELECT c.id, c.tsv FROM brain.chunks c
				WHERE c.tsv @@ q
				  AND (NOT compiled_only OR c.chunk_source = 'compiled_truth')
				  AND (source_ids IS NULL OR c.page_id IN (
					SELECT p.id FROM brain.pages p WHERE p.source_id = ANY (source_ids)))
				LIMIT CASE WHEN cap < scan_limit THEN greatest(cap * 5, 2000) END) c) m
		ORDER BY CASE WHEN m.n > cap THEN ts_rank('{0.1, 0.2, 0.4, 1.0}'::float4[], m.tsv, q, 1) END DESC NULLS LAST, m.id
		LIMIT cap) s;
	RETURN ids;
END
$$;


--
-- Name: keyword_scan(text, integer, text[], boolean, boolean, integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.keyword_scan(q text, lim integer DEFAULT 10, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false, exhaustive boolean DEFAULT false, withheld_within integer DEFAULT NULL::integer) RETURNS TABLE(chunk_id bigint, page_id bigint, score double precision, keyword_rank integer, meta jsonb)
    LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 30
    SET search_path TO 'brain', 'public', 'pg_temp'
    SET synchronize_seqscans TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $_$
DECLARE
	cfg jsonb := brain.search_settings();
	p record;
	filt tsquery;
	budget float8 := least(greatest((cfg ->> 'keyword_candidates')::float8, 10), 1e9);
	max_cand int := greatest(least((cfg ->> 'keyword_candidates_max')::float8, 1e9), 0)::int;
	more_rounds int := greatest(least((cfg ->> 'keyword_rounds')::float8, 1e9), 0)::int;
	uncertain boolean := false; -- the first round read few of the terms (below)
	bonus float8 := greatest((cfg ->> 'strict_bonus')::float8, 0);
	k1 float8 := (cfg ->> 'bm25_k1')::float8;
	b float8 := (cfg ->> 'bm25_b')::float8;
	w_a float8 := (cfg ->> 'title_weight')::float8;
	w_c float8 := (cfg ->> 'timeline_weight')::float8;
	cover float8 := greatest((cfg ->> 'coverage_weight')::float8, 0);
	lead_w float8 := greatest((cfg ->> 'lead_weight')::float8, 0);
	lead_n int := greatest(least((cfg ->> 'lead_words')::float8, 16383), 0)::int;
	title_w float8 := greatest((cfg ->> 'title_affinity')::float8, 0);
	title_cov float8 := greatest((cfg ->> 'title_coverage')::float8, 0);
	title_unx float8 := least(greatest((cfg ->> 'title_unexplained')::float8, 0), 0.9);
	depth int := greatest(least((cfg ->> 'title_depth')::float8, 1e9), 0)::int;
	prox_w float8 := greatest((cfg ->> 'proximity')::float8, 0);
	title_ex float8 := least(greatest((cfg ->> 'title_exact')::float8, 0), 1e6);
	qn text; -- the whole query as a page title would be (below)
	pairs tsquery[];
	prox_on boolean;
	stricts float8[] := '{}';
	title_n int := 0;
	title_on boolean;
	only_compiled boolean := coalesce(compiled_only, false);
	n_docs float8;
	avgdl float8;
	lex text[];
	dfs float8[];
	live_df float8; -- the frequency of the rarest term some chunk holds
	idfs float8[];
	n_terms int;
	unscored text[]; -- lexemes that find chunks but add nothing to a score (see below)
	s_lex text[]; -- the terms scored, rarest first, and their idfs
	s_idfs float8[];
	all_terms text[]; -- those and, where chunks hold them, the query's initials
	initials text[];
	neg tsquery; -- the negated words: their pages are left out
	taken int := 0;
	round_q tsquery;
	cum float8 := 0;
	found bigint[];
	ids bigint[] := '{}';
	scores float8[] := '{}';
	theta float8;
	rest_ub float8;
	exact boolean := true;
	rounds int := 0;
	phrases_dropped boolean := false;
	near tsquery;
	fill_to int; -- how many rows the caller shows: withheld_within, at most lim
	drop_o bigint;
	live tsquery[];
	cap_near int := budget::int;
	-- A candidate scan that may match more chunks than this is replaced by
	-- a narrower one (see near_drop): 2,000 at the default budget of 400.
	wide float8 := 5 * budget;
	live_ub float8[];
	near_ub float8;
	near2_ub float8;
	near_drop int := 1;
	scope text := brain.caller_scope();
	r_ids bigint[];
	r_pids bigint[];
	r_scores float8[];
	shown boolean[];
	wh jsonb := jsonb_build_object('pages', 0, 'unclassified', 0, 'categories', '[]'::jsonb);
	hidden bigint[];
	m jsonb;
	title_cap int := greatest(least((cfg ->> 'title_names')::float8, 1e9), 0)::int;
	named bigint[] := '{}'; -- chunks of pages whose title holds a term inside a word
	exact_ids bigint[] := '{}'; -- chunks of pages whose title is the query
	seen bigint[] := '{}'; -- pages of the best chunks an agent may see
	top_ids bigint[]; -- the chunks whose title terms and proximity are computed
BEGIN
	lim := least(greatest(coalesce(lim, 10), 1), 1000);
	fill_to := least(greatest(coalesce(withheld_within, lim), 1), lim);
	IF q IS NULL THEN
		RETURN;
	END IF;
	p := brain.parse_query(q);
	-- The whole query, without the -words the parser read as exclusions,
	-- as a title is compared with it (brain.title_key).
	IF title_ex > 0 AND length(q) <= 1000 THEN
		qn := brain.title_key(array_to_string(ARRAY(
			SELECT x FROM regexp_split_to_table(q, '\s+') x
			WHERE NOT (left(x, 1) = '-' AND substr(x, 2) IN (SELECT jsonb_array_elements_text(p.info -> 'negated')))), ' '));
	END IF;
	n_terms := cardinality(p.terms);
	all_terms := p.terms;
	IF n_terms > 0 AND (cfg ->> 'initials')::float8 <> 0 THEN
		-- The initials of capitalised runs ("Open Text Summarizer" -> ots)
		-- count as terms where some, but at most budget, chunks hold them:
		-- a name written as its initials.
		initials := brain.query_initials(q);
		IF cardinality(initials) > 0 THEN
			all_terms := p.terms || ARRAY(
				SELECT i.l FROM unnest(initials) AS i (l) JOIN brain.term_stats t ON t.lexeme = i.l
				WHERE t.doc_freq BETWEEN 1 AND budget AND NOT (i.l = ANY (p.terms)) ORDER BY 1);
		END IF;
	END IF;
	IF n_terms = 0 THEN
		RETURN QUERY SELECT NULL::bigint, NULL::bigint, NULL::float8, NULL::int,
			jsonb_build_object('candidates', 0, 'rounds', 0, 'terms_scanned', 0, 'terms_total', 0, 'exact', true, 'phrases_dropped', false,
				'parser', p.info, 'withheld', wh);
		RETURN;
	END IF;
	n_terms := cardinality(all_terms);
	filt := p.filter_q;
	neg := brain.negated_tsquery(p.info -> 'negated');
	SELECT greatest(s.n_docs, 1), greatest(s.total_len::float8 / greatest(s.n_docs, 1), 1)
	INTO n_docs, avgdl FROM brain.corpus_stats s;
	-- Terms rarest first; a term no chunk holds has df 0 and bound 0.
	SELECT array_agg(l.lexeme ORDER BY coalesce(t.doc_freq, 0), l.lexeme),
	       array_agg(coalesce(t.doc_freq, 0)::float8 ORDER BY coalesce(t.doc_freq, 0), l.lexeme),
	       array_agg(ln(1 + (n_docs - coalesce(t.doc_freq, 0) + 0.5) / (coalesce(t.doc_freq, 0) + 0.5))
	                 ORDER BY coalesce(t.doc_freq, 0), l.lexeme)
	INTO lex, dfs, idfs
	FROM unnest(all_terms) AS l (lexeme) LEFT JOIN brain.term_stats t ON t.lexeme = l.lexeme;
	-- A hyphenated or slashed word's own lexeme ("tesseract-ocr",
	-- "tcp/ip") finds chunks but is not scored when one of its parts is a
	-- term of its group: with its parts (and joined form) it counted the
	-- word up to three times (in BM25 and in the title terms), and a page
	-- holding exactly that compound (a title "tesseract-ocr") beat the page
	-- holding its parts and the rest of the query ("tesseract-ocr-pan",
	-- "... Punjabi"). Pages index a slashed word's parts too (migration
	-- 026), so its parts score it wherever its own lexeme would. A part is
	-- a term without a dash or slash that the lexeme contains, other than
	-- its joined form, or for a slashed word one of the lexemes its parts
	-- read as. A query of that one word alone ("TCP/IP": no other group,
	-- phrase or OR) keeps it scored: with nothing else to weigh, the
	-- page saying it as written is favoured over one saying its parts
	-- more often; "to-do" and "and/or" (parts that are stop words), the
	-- other side of an OR, a host name, a URL (host/path: its host and
	-- its path are terms of their own) and a negative number ("-64") stay
	-- scored.
	unscored := ARRAY(
		SELECT t FROM unnest(p.terms) AS t
		WHERE NOT (cardinality(p.groups) = 1 AND jsonb_array_length(p.info -> 'phrases') = 0
		           AND coalesce((p.info ->> 'or_groups')::int, 0) = 0)
		  AND (strpos(t, '/') = 0 AND strpos(t, '-') > 0 OR strpos(t, '/') > 0
		       AND NOT (split_part(t, '/', 1) = ANY (p.terms) AND substr(t, strpos(t, '/')) = ANY (p.terms))) AND EXISTS (
			SELECT 1 FROM unnest(p.groups) AS g, unnest(p.terms) AS u
			WHERE strpos(u, '-') = 0 AND strpos(u, '/') = 0 AND u <> replace(t, '-', '')
			  -- (a slashed word's parts are stemmed on their own:
			  -- "policy/strategy" -> polici, strategi)
			  AND (strpos(t, u) > 0 OR strpos(t, '/') > 0 AND u = ANY (tsvector_to_array(brain.text_tsvector(translate(t, '/', ' ')))))
			  AND g @> brain.lexeme_tsquery(t) AND g @> brain.lexeme_tsquery(u)));
	SELECT coalesce(array_agg(u.l ORDER BY u.o), '{}'), coalesce(array_agg(u.i ORDER BY u.o), '{}')
	INTO s_lex, s_idfs
	FROM unnest(lex, idfs) WITH ORDINALITY AS u (l, i, o)
	WHERE NOT (u.l = ANY (unscored));

	-- The rarest term some chunk holds: the terms no chunk holds find
	-- nothing and cost nothing.
	live_df := coalesce((SELECT min(d) FROM unnest(dfs) AS d WHERE d > 0), 0);
	-- Live groups (some chunk holds one of their terms), each with an upper
	-- bound on the chunks it matches: the sum of its terms' frequencies.
	SELECT coalesce(array_agg(x.g ORDER BY x.o), '{}'), coalesce(array_agg(x.ub ORDER BY x.o), '{}')
	INTO live, live_ub
	FROM (
		-- (the group's terms are among the query's: @> tests a lexeme's
		-- presence in the group; brain.tsquery_terms here, an SQL function
		-- with a query, was planned again on every search)
		SELECT g.g, g.o, (SELECT sum(u.d) FROM unnest(lex, dfs) AS u (l, d)
		                  WHERE g.g @> brain.lexeme_tsquery(u.l)) AS ub
		FROM unnest(p.groups) WITH ORDINALITY AS g (g, o)
	) x
	WHERE x.ub > 0;
	-- Bounded cost: a GIN scan is cheap when it can skip along a rare
	-- term's postings and costly when a common term's whole posting list
	-- must be read and its matches ranked. "All groups but one" over two
	-- groups is the OR of both, so when its bound (Σ over the groups left
	-- out of the min of the others' bounds) passes wide, the candidates come
	-- from the strict AND of the live groups instead, which holds every
	-- chunk matching the whole query and skips along its rarest group.
	IF cardinality(live) > 1 THEN
		SELECT sum((SELECT min(u2) FROM unnest(live_ub) WITH ORDINALITY AS v2 (u2, o2) WHERE o2 <> v1.o1))
		INTO near_ub FROM unnest(live_ub) WITH ORDINALITY AS v1 (u1, o1);
		near_drop := CASE WHEN near_ub <= wide THEN 1 ELSE 0 END;
		-- Five or six groups: all but two, when that is bounded too (Σ over
		-- the pairs left out of the min of the others' bounds). A known
		-- item's page often holds three of five words, or four of six, none
		-- of them the rarest. Not past six: GIN evaluates the whole
		-- condition for every chunk holding one of its required words, and
		-- seven or eight groups cost a search 4% more for no gain measured
		-- (docs/retrieval.md; measured when near_strict wrote the OR of
		-- every AND, 15 of them at six groups, 28 at eight).
		IF near_drop = 1 AND cardinality(live) BETWEEN 5 AND 6 THEN
			SELECT sum((SELECT min(u3) FROM unnest(live_ub) WITH ORDINALITY AS v3 (u3, o3) WHERE o3 NOT IN (v1.o1, v2.o2)))
			INTO near2_ub
			FROM unnest(live_ub) WITH ORDINALITY AS v1 (u1, o1), unnest(live_ub) WITH ORDINALITY AS v2 (u2, o2)
			WHERE v1.o1 < v2.o2;
			IF near2_ub <= wide THEN
				near_drop := 2;
			END IF;
		END IF;
	END IF;

	<<retry>>
	LOOP
		-- Round 0: the rarest terms within the budget (at least one that
		-- some chunk holds: a word of the query no chunk holds, df 0, comes
		-- first and finds nothing, and "setproctitle for Go" came back
		-- empty with 558 chunks holding go) ...
		taken := 0;
		cum := 0;
		round_q := NULL;
		WHILE taken < n_terms AND (cum = 0 OR exhaustive OR cum + dfs[taken + 1] <= budget) LOOP
			taken := taken + 1;
			cum := cum + dfs[taken];
			round_q := CASE WHEN round_q IS NULL THEN brain.lexeme_tsquery(lex[taken])
			                ELSE round_q || brain.lexeme_tsquery(lex[taken]) END;
		END LOOP;
		-- A first round that read at most a third of the terms (all of them
		-- mid-frequency words: a description of a thing, not its name)
		-- often misses the page, which holds several of the others: up to
		-- keyword_rounds more rounds add the best chunks (a quarter of the
		-- budget, by length-normalised ts_rank) of each next rarest term
		-- within 5 x the budget, for a tenth or more of time (measured in
		-- docs/retrieval.md, which is why it is off by default).
		IF max_cand = 0 AND NOT exhaustive AND more_rounds > 0 AND taken * 3 <= n_terms THEN
			uncertain := true;
			-- (bounded by the rounds, a quarter of the budget each)
			max_cand := 1000000000;
		END IF;
		-- (one term alone may exceed the budget: then it is cut by ts_rank)
		found := NULL;
		IF NOT exhaustive AND live_df > wide AND cardinality(live) > 1 THEN
			-- Every term is common: ranking the rarest one's matches would
			-- read its whole posting list. The chunks matching all live
			-- groups come first; the rarest term's cut only when none do.
			found := brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN brain.near_strict(live, 0) ELSE brain.near_strict(live, 0) && filt END,
				greatest(budget::int, lim), source_ids, only_compiled);
			exact := false;
		END IF;
		IF cardinality(found) IS NULL OR cardinality(found) = 0 THEN
			found := brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN round_q ELSE round_q && filt END,
				CASE WHEN exhaustive THEN 2147483646 ELSE greatest(budget::int, lim) END, source_ids, only_compiled);
		ELSIF source_ids IS NOT NULL AND NOT exhaustive AND live_df > wide AND cardinality(found) < budget THEN
			-- The term statistics count every source: words common in the
			-- brain may be rare in the sources asked for, where the strict
			-- AND then finds a few chunks and the rest would be the first
			-- found. The rarest term's best chunks in those sources by
			-- ts_rank join them (keyword_candidates reads at most
			-- max(5 x budget, 2,000) of them).
			found := ARRAY(SELECT DISTINCT x FROM unnest(found || coalesce(brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN round_q ELSE round_q && filt END,
				greatest(budget::int, lim), source_ids, only_compiled), '{}')) x);
		END IF;
		IF NOT exhaustive AND cardinality(found) >= greatest(budget::int, lim) THEN
			exact := false;
		END IF;
		-- ... and the chunks matching all word groups but at most one: one
		-- GIN scan, usually few rows, which catches the right chunk when its
		-- words are common ones. Groups no chunk holds (a misspelling) do
		-- not count, or they would use up the one group that may be missing.
		-- When that scan would be unbounded (near_drop 0, above), all groups.
		-- Not past 16 groups: the near-match tsquery grows with the square of
		-- the groups, and a long query's rare terms already bring its
		-- candidates (32 common words made this one step half a second on
		-- 20,000 chunks; docs/security.md, "Bounded queries").
		IF NOT exhaustive AND cardinality(live) BETWEEN 2 AND 16 AND NOT (live_df > wide AND near_drop = 0) THEN
			-- (rarest group first: see near_strict)
			near := brain.near_strict(ARRAY(SELECT v.g FROM unnest(live, live_ub) WITH ORDINALITY AS v (g, u, o) ORDER BY v.u, v.o), near_drop);
			found := ARRAY(SELECT DISTINCT x FROM unnest(coalesce(found, '{}') || coalesce(brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN near ELSE near && filt END,
				cap_near, source_ids, only_compiled), '{}')) x);
		END IF;
		-- The narrow scans found fewer chunks than the caller shows (often
		-- one: the known item's rare word), or none (a negation excluded
		-- every chunk holding the rare words): up to that many chunks
		-- matching all groups but one, the first found, unranked, for BM25
		-- to order. So the answer is full and never empty while chunks hold
		-- some of the words. The target is what the caller shows
		-- (withheld_within), not lim: brain.search asks for three times its
		-- limit to fuse, and GIN answers this OR of ANDs over common words
		-- by reading every posting list before LIMIT applies (125 ms of a
		-- 180 ms query at 1,000,000 pages), while chunks matching every
		-- group, which the strict scan found, rank above these anyway.
		IF NOT exhaustive AND near_drop = 0 AND cardinality(live) BETWEEN 2 AND 16 AND coalesce(cardinality(found), 0) < fill_to THEN
			-- One AND per left-out group, the rarest group left out first
			-- (its AND matches the most chunks), until full: GIN answers an
			-- AND by skipping along its rarest postings, while the OR of
			-- these ANDs in one tsquery read every posting list whole
			-- (140 ms at 1,000,000 pages against about 25 for one AND).
			FOR drop_o IN SELECT v.o FROM unnest(live_ub) WITH ORDINALITY AS v (u, o) ORDER BY v.u, v.o LOOP
				near := brain.near_strict(ARRAY(SELECT g FROM unnest(live) WITH ORDINALITY AS w (g, o) WHERE w.o <> drop_o ORDER BY w.o), 0);
				IF filt IS NOT NULL THEN
					near := near && filt;
				END IF;
				-- EXECUTE: planned for this tsquery (see plan_cache_mode above)
				EXECUTE $q$SELECT ARRAY(SELECT DISTINCT x FROM unnest(coalesce($1, '{}') || ARRAY(
					SELECT c.id FROM brain.chunks c
					WHERE c.tsv @@ $2
					  AND NOT (c.id = ANY (coalesce($1, '{}')))
					  AND (NOT $3 OR c.chunk_source = 'compiled_truth')
					  AND ($4::text[] IS NULL OR c.page_id IN (
						SELECT pg.id FROM brain.pages pg WHERE pg.source_id = ANY ($4)))
					LIMIT $5)) x)$q$
				INTO found USING found, near, only_compiled, source_ids, fill_to - coalesce(cardinality(found), 0);
				EXIT WHEN cardinality(found) >= fill_to;
			END LOOP;
		END IF;
		-- Pages whose title holds a term inside a word ("maa" in
		-- "libmaa-dev"): names are written joined and affixed, and the
		-- full-text index holds the title's words whole, so neither scan
		-- above finds them when the text does not repeat the name. Only
		-- terms within the budget (a common word inside a title names
		-- nothing), of four letters or digits in a row or else held by no
		-- chunk ("maa" yes, "lib" no: a three-character trigram is inside
		-- too many titles to look up cheaply), and in at most title_names
		-- titles; a hyphenated word's own lexeme too, scored or not
		-- ("thread-loc" names "librust-thread-local-dev"). Scored with the
		-- rest (one call of bm25_scores: an SQL function, planned on every
		-- call), and their title terms are computed whatever their rank
		-- (below).
		named := brain.title_name_chunks(
			ARRAY(SELECT u.l FROM unnest(lex, dfs) AS u (l, d) WHERE u.d <= budget AND (u.d = 0 OR u.l ~ '[[:alnum:]]{4}')),
			title_cap, source_ids, only_compiled, filt);
		-- Pages titled with the whole query ("C"), however many chunks
		-- say its words more often, join them the same way.
		IF title_ex > 0 THEN
			exact_ids := brain.title_exact_chunks(qn, source_ids, only_compiled, filt, scope <> 'all');
			named := named || exact_ids;
		END IF;
		-- (only those the scans did not find: the others hold a term and
		-- compete on it like any candidate)
		named := ARRAY(SELECT DISTINCT x FROM unnest(named) x EXCEPT SELECT y FROM unnest(found) y);
		IF cardinality(named) > 0 THEN
			found := coalesce(found, '{}') || named;
		END IF;
		rounds := 1;
		ids := '{}';
		scores := '{}';
		stricts := '{}';
		LOOP
			-- A -word leaves out pages: chunks whose page holds it elsewhere too.
			IF neg IS NOT NULL THEN
				found := brain.without_negated(found, neg);
			END IF;
			IF cardinality(found) > 0 THEN
				SELECT ids || array_agg(s.id), scores || array_agg(s.sc), stricts || array_agg(s.strict)
				INTO ids, scores, stricts
				FROM brain.bm25_scores(found, s_lex, s_idfs, p.strict_q, k1, b, w_a, w_c, avgdl, bonus, cover, lead_w, lead_n) s;
			END IF;
			EXIT WHEN taken >= n_terms OR exhaustive;
			SELECT x INTO theta FROM unnest(scores) x ORDER BY x DESC OFFSET lim - 1 LIMIT 1;
			-- The title affinity may credit any term (a title word can
			-- contain a lexeme the chunk does not hold), so all terms
			-- count in its share of the bound.
			SELECT (coalesce(sum(u) FILTER (WHERE o > taken AND d > 0), 0) * (k1 + 1) * (1 + cover)
			        + title_w * coalesce(sum(u), 0)) * (1 + title_cov) * (1 + bonus) * (1 + prox_w) * (1 + title_ex) INTO rest_ub
			FROM unnest(idfs, dfs) WITH ORDINALITY AS v (u, d, o);
			EXIT WHEN theta IS NOT NULL AND rest_ub < theta;
			IF cardinality(ids) >= max_cand OR uncertain AND (rounds > more_rounds OR dfs[taken + 1] > wide) THEN
				exact := false;
				EXIT;
			END IF;
			taken := taken + 1;
			rounds := rounds + 1;
			found := brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN brain.lexeme_tsquery(lex[taken]) ELSE brain.lexeme_tsquery(lex[taken]) && filt END,
				CASE WHEN uncertain THEN greatest(budget::int / 4, 1) ELSE max_cand END, source_ids, only_compiled);
			-- Only chunks not scored yet; the cut keeps the total bounded.
			found := ARRAY(SELECT f FROM unnest(found) f EXCEPT SELECT s FROM unnest(ids) s);
			IF cardinality(found) > max_cand - cardinality(ids) THEN
				exact := false;
				found := ARRAY(
					SELECT c.id FROM brain.chunks c WHERE c.id = ANY (found)
					ORDER BY ts_rank('{0.1, 0.2, 0.4, 1.0}'::float4[], c.tsv, brain.lexeme_tsquery(lex[taken]), 1) DESC, c.id
					LIMIT max_cand - cardinality(ids));
			END IF;
		END LOOP;
		-- Phrases that match nothing: answer with the words alone.
		EXIT retry WHEN cardinality(ids) > 0 OR phrases_dropped OR jsonb_array_length(p.info -> 'phrases') = 0;
		phrases_dropped := true;
		-- Keep the negations only: none of the negated words (NULL when
		-- there are none).
		filt := !!neg;
	END LOOP;

	-- Title terms for the best title_depth (at least lim) chunks, which
	-- they reorder; the top lim come from them (the unexplained-word
	-- factor may lower one of them below a chunk further down, which keeps
	-- its BM25 score). Computing them for every candidate doubled the
	-- arm's time.
	-- The word-pair proximity is computed for the same chunks.
	title_on := (title_w > 0 OR title_cov > 0 OR title_unx > 0) AND cardinality(ids) > 0;
	IF prox_w > 0 AND cardinality(ids) > 0 THEN
		pairs := brain.near_pairs(p.groups);
	END IF;
	prox_on := cardinality(pairs) > 0;
	-- (the title-named chunks join them whatever their rank, and so do
	-- the chunks of pages titled with the query, found by the scans or not)
	top_ids := ARRAY(
		SELECT s.id FROM unnest(ids, scores) AS s (id, sc)
		ORDER BY s.sc DESC, s.id
		LIMIT CASE WHEN title_on OR prox_on THEN greatest(depth, lim) ELSE lim END);
	IF title_on OR prox_on THEN
		top_ids := top_ids || ARRAY(SELECT x FROM unnest(named) x WHERE x = ANY (ids) EXCEPT SELECT y FROM unnest(top_ids) y);
	END IF;
	top_ids := top_ids || ARRAY(SELECT x FROM unnest(exact_ids) x WHERE x = ANY (ids) EXCEPT SELECT y FROM unnest(top_ids) y);
	IF title_on THEN
		title_n := cardinality(top_ids);
	END IF;
	IF title_ex > 0 AND scope = 'agent' THEN
		seen := ARRAY(SELECT t.page_id FROM brain.page_pii t
		              WHERE t.agent_visible AND t.page_id IN (SELECT c.page_id FROM brain.chunks c WHERE c.id = ANY (top_ids)));
	END IF;
	WITH top AS (
		SELECT s.id, s.sc, s.st FROM unnest(ids, scores, stricts) AS s (id, sc, st)
		WHERE s.id = ANY (top_ids)),
	t AS (
		SELECT ts.id, ts.affinity, ts.explained, ts.unexplained
		FROM brain.title_scores(ARRAY(SELECT top.id FROM top), s_lex, s_idfs) ts
		WHERE title_on),
	px AS (
		SELECT c.id, count(*) FILTER (WHERE c.tsv @@ x)::float8 / cardinality(pairs) AS near
		FROM brain.chunks c, unnest(pairs) AS x
		WHERE prox_on AND c.id = ANY (ARRAY(SELECT top.id FROM top))
		GROUP BY c.id),
	ex AS (
		-- chunks of a page whose title is the query itself ("C" for the
		-- page titled C, not C++, which both read as the lexeme c)
		SELECT c.id FROM brain.chunks c JOIN brain.pages pg ON pg.id = c.page_id
		WHERE title_ex > 0 AND qn <> '' AND c.id = ANY (ARRAY(SELECT top.id FROM top))
		  -- (strpos first: most titles do not even hold the query's first word)
		  -- (and the key reads ς as σ, so the test does too)
		  AND strpos(translate(lower(pg.title), 'ς', 'σ'), split_part(qn, ' ', 1)) > 0 AND brain.title_key(pg.title) = qn
		  -- a page the caller may not see moves nothing (else a ranking
		  -- would confirm a guess at a hidden page's title)
		  AND (scope = 'all' OR pg.id = ANY (seen))),
	f AS (
		SELECT top.id, CASE WHEN t.id IS NULL THEN top.sc
			ELSE (top.sc + title_w * t.affinity * top.st) * (1 + title_cov * t.explained)
			     * power(1 - title_unx, t.unexplained) END * (1 + prox_w * coalesce(px.near, 0))
			* CASE WHEN ex.id IS NULL THEN 1 ELSE 1 + title_ex END AS sc
		FROM top LEFT JOIN t ON t.id = top.id LEFT JOIN px ON px.id = top.id LEFT JOIN ex ON ex.id = top.id
		ORDER BY 2 DESC, 1
		LIMIT lim)
	SELECT coalesce(array_agg(f.id ORDER BY f.sc DESC, f.id), '{}'), coalesce(array_agg(c.page_id ORDER BY f.sc DESC, f.id), '{}'),
	       coalesce(array_agg(f.sc ORDER BY f.sc DESC, f.id), '{}')
	INTO r_ids, r_pids, r_scores
	FROM f
	JOIN brain.chunks c ON c.id = f.id;
	m := jsonb_build_object('candidates', cardinality(ids), 'rounds', rounds, 'terms_scanned', taken,
			'terms_total', n_terms, 'exact', (exact AND title_unx = 0) OR exhaustive, 'phrases_dropped', phrases_dropped,
			'title_scored', title_n, 'parser', p.info,
			'initials', to_jsonb(coalesce(all_terms[cardinality(p.terms) + 1:], '{}')));
	IF scope = 'all' THEN
		RETURN QUERY SELECT u.id, u.pid, u.sc, u.r::int, NULL::jsonb
			FROM unnest(r_ids, r_pids, r_scores) WITH ORDINALITY AS u (id, pid, sc, r) ORDER BY u.r;
	ELSE
		-- Only the caller's pages, ranked among themselves; the others
		-- only as a count, and no statistic they move.
		shown := ARRAY(SELECT scope = 'agent' AND coalesce((SELECT t.agent_visible FROM brain.page_pii t WHERE t.page_id = u.pid), false)
		               FROM unnest(r_pids) WITH ORDINALITY AS u (pid, o) ORDER BY u.o);
		RETURN QUERY SELECT u.id, u.pid, u.sc, (row_number() OVER (ORDER BY u.r))::int, NULL::jsonb
			FROM unnest(r_ids, r_pids, r_scores, shown) WITH ORDINALITY AS u (id, pid, sc, ok, r)
			WHERE u.ok ORDER BY u.r;
		hidden := ARRAY(SELECT u.pid FROM unnest(r_pids, shown) WITH ORDINALITY AS u (pid, ok, r)
		                WHERE NOT u.ok AND u.r <= coalesce(withheld_within, lim));
		IF cardinality(hidden) > 0 THEN
			wh := brain.withheld_of(hidden);
		END IF;
		m := m || jsonb_build_object('candidates', NULL, 'rounds', NULL, 'terms_scanned', NULL, 'exact', NULL,
			'phrases_dropped', NULL, 'title_scored', NULL, 'initials', NULL);
	END IF;
	RETURN QUERY SELECT NULL::bigint, NULL::bigint, NULL::float8, NULL::int, m || jsonb_build_object('withheld', wh);
END
$_$;


--
-- Name: keyword_search(text, integer, text[], boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.keyword_search(q text, lim integer DEFAULT 10, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false) RETURNS TABLE(chunk_id bigint, page_id bigint, score double precision, keyword_rank integer)
    LANGUAGE sql STABLE ROWS 30
    BEGIN ATOMIC
 SELECT k.chunk_id,
     k.page_id,
     k.score,
     k.keyword_rank
    FROM brain.keyword_scan(keyword_search.q, keyword_search.lim, keyword_search.source_ids, keyword_search.compiled_only) k(chunk_id, page_id, score, keyword_rank, meta)
   WHERE ((k.chunk_id IS NOT NULL) AND (EXISTS ( SELECT 1
            FROM brain.chunks c
           WHERE (c.id = k.chunk_id))))
   ORDER BY k.keyword_rank;
END;


--
-- Name: missing_embeddings(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.missing_embeddings() RETURNS bigint
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 SELECT count(*) AS count
    FROM brain.chunks c
   WHERE ((c.embedding IS NULL) AND ((brain.embedder() <> 'local'::text) OR (length(c.tsv) > 0)));
END;


--
-- Name: near_pairs(tsquery[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.near_pairs(groups tsquery[]) RETURNS tsquery[]
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	RETURN (WITH g AS (
		SELECT replace(u.g::text, ' & ', ' <-> ')::tsquery AS g, u.o
		FROM unnest(groups[1:least(cardinality(groups), 32)]) WITH ORDINALITY AS u (g, o))
	SELECT coalesce(array_agg(tsquery_phrase(a.g, b.g, 1) || tsquery_phrase(b.g, a.g, 1)
	                          || tsquery_phrase(a.g, b.g, 2) || tsquery_phrase(a.g, b.g, 3) ORDER BY a.o), '{}')
	FROM g a JOIN g b ON b.o = a.o + 1);
END
$$;


--
-- Name: near_strict(tsquery[], integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.near_strict(groups tsquery[], drop integer) RETURNS tsquery
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	n int := coalesce(cardinality(groups), 0);
	m int := n - least(greatest(coalesce(drop, 0), 0), 2, greatest(n - 1, 0));
	-- prev[j]: at least j of groups[i+1..n]; cur[j]: at least j of groups[i..n]
	prev tsquery[];
	cur tsquery[];
	i int;
	j int;
BEGIN
	IF n = 0 THEN
		RETURN NULL;
	END IF;
	FOR i IN REVERSE n .. 1 LOOP
		cur := '{}';
		-- only the j a later step reads: i - 1 groups come before this one
		FOR j IN greatest(1, m - i + 1) .. least(m, n - i + 1) LOOP
			cur[j] := CASE WHEN j = 1 THEN groups[i] ELSE groups[i] && prev[j - 1] END;
			IF j <= n - i THEN
				cur[j] := cur[j] || prev[j];
			END IF;
		END LOOP;
		prev := cur;
	END LOOP;
	RETURN prev[m];
END
$$;


--
-- Name: negated_tsquery(jsonb); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.negated_tsquery(words jsonb) RETURNS tsquery
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	w text;
	g tsquery;
	neg tsquery;
BEGIN
	IF jsonb_typeof(words) IS DISTINCT FROM 'array' THEN
		RETURN NULL;
	END IF;
	FOR w IN SELECT jsonb_array_elements_text(words) LOOP
		g := brain.words_tsquery(w);
		IF g IS NOT NULL THEN
			neg := CASE WHEN neg IS NULL THEN g ELSE neg || g END;
		END IF;
	END LOOP;
	RETURN neg;
END
$$;


--
-- Name: pii_policy; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.pii_policy (
    category text NOT NULL,
    added_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT pii_policy_category_check CHECK ((category = ANY (brain.pii_taxonomy())))
);


--
-- Name: TABLE pii_policy; Type: COMMENT; Schema: brain; Owner: -
--

COMMENT ON TABLE brain.pii_policy IS 'PII categories hidden from pgbrain_agent on top of the floor (credential, payment_card, government_id); only the owner may change it.';


--
-- Name: pii_blocked(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pii_blocked() RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT array_agg(DISTINCT (u.c COLLATE "C") ORDER BY (u.c COLLATE "C")) AS array_agg
    FROM ( SELECT unnest(ARRAY['credential'::text, 'government_id'::text, 'payment_card'::text]) AS unnest
         UNION ALL
          SELECT p.category
            FROM brain.pii_policy p) u(c);
END;


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
    stale boolean DEFAULT false NOT NULL,
    agent_visible boolean DEFAULT false NOT NULL,
    CONSTRAINT page_pii_categories_check CHECK (brain.pii_categories_valid(categories)),
    CONSTRAINT page_pii_origin_check CHECK ((origin = ANY (ARRAY['heuristic'::text, 'operator'::text]))),
    CONSTRAINT page_pii_sensitivity_check CHECK ((sensitivity = ANY (ARRAY['none'::text, 'low'::text, 'moderate'::text, 'high'::text])))
);


--
-- Name: page_access(text, text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.page_access(p_source text, p_slug text, OUT page_id bigint, OUT state text, OUT blocked text[]) RETURNS SETOF record
    LANGUAGE sql STABLE SECURITY DEFINER
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN ((s.scope = 'all'::text) OR ((s.scope = 'agent'::text) AND COALESCE(t.agent_visible, false))) THEN p.id
             ELSE NULL::bigint
         END AS "case",
         CASE
             WHEN (t.page_id IS NULL) THEN 'unclassified'::text
             WHEN t.stale THEN 'stale'::text
             WHEN t.agent_visible THEN 'visible'::text
             ELSE 'blocked'::text
         END AS "case",
     ARRAY( SELECT c.c
            FROM unnest(COALESCE(t.categories, '{}'::text[])) c(c)
           WHERE (c.c = ANY (brain.pii_blocked()))
           ORDER BY (c.c COLLATE "C")) AS "array"
    FROM ((brain.pages p
      LEFT JOIN brain.page_pii t ON ((t.page_id = p.id)))
      CROSS JOIN ( SELECT brain.caller_scope() AS scope) s)
   WHERE ((p.source_id = page_access.p_source) AND (p.slug = page_access.p_slug));
END;


--
-- Name: page_pii_agent_visible(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.page_pii_agent_visible() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	NEW.agent_visible := NOT NEW.stale AND NOT (NEW.categories && brain.pii_blocked());
	RETURN NEW;
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
		SET categories = EXCLUDED.categories, origin = 'operator', stale = false, updated_at = now()
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
		SET categories = CASE WHEN t.origin = 'operator'
		                      THEN brain.pii_normalize(t.categories || EXCLUDED.categories)
		                      ELSE EXCLUDED.categories END,
		    stale = false, updated_at = now()
		WHERE t.stale OR (t.origin = 'heuristic' AND t.categories IS DISTINCT FROM EXCLUDED.categories);
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;


--
-- Name: pages_content_changed(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pages_content_changed() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO brain.page_chunks_pending (page_id)
		SELECT n.id FROM new_pages n
		ON CONFLICT (page_id) DO NOTHING;
		RETURN NULL;
	END IF;
	UPDATE brain.page_pii t SET stale = true
	FROM old_pages o JOIN new_pages n ON n.id = o.id
	WHERE t.page_id = n.id AND NOT t.stale
	  AND (o.slug IS DISTINCT FROM n.slug OR o.title IS DISTINCT FROM n.title OR o.body IS DISTINCT FROM n.body);
	INSERT INTO brain.page_chunks_pending (page_id)
	SELECT n.id FROM old_pages o JOIN new_pages n ON n.id = o.id
	WHERE o.body IS DISTINCT FROM n.body OR o.timeline IS DISTINCT FROM n.timeline
	ON CONFLICT (page_id) DO NOTHING;
	RETURN NULL;
END
$$;


--
-- Name: pages_pii_categories(bigint[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pages_pii_categories(page_ids bigint[]) RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT COALESCE(array_agg(DISTINCT (c.c COLLATE "C") ORDER BY (c.c COLLATE "C")), '{}'::text[]) AS "coalesce"
    FROM brain.page_pii p,
     LATERAL unnest(p.categories) c(c)
   WHERE (p.page_id = ANY (pages_pii_categories.page_ids));
END;


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
-- Name: parse_query(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.parse_query(q text, OUT terms text[], OUT strict_q tsquery, OUT filter_q tsquery, OUT groups tsquery[], OUT info jsonb) RETURNS record
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $_$
DECLARE
	cfg CONSTANT regconfig := 'brain.english_unaccent'::regconfig;
	tok text;
	comps tsquery[] := '{}';
	g tsquery;
	tok_groups tsquery[];
	phrases text[] := '{}';
	negated text[] := '{}';
	pending_or boolean := false;
	n_or int := 0;
	r record;
	comp_lex text;
	comp_tok text;
	parts tsquery;
	slashed tsquery;
	joined text[];
	first_group boolean;
	b record;
	cut_info jsonb;
	-- Words the cut counts as one ("a·b·c", "x→y", emoji between words)
	-- can be many parser words; past this many word groups, further plain
	-- words are not read (a query of 32 distinct words has at most 32
	-- groups, and a CJK run of 32 characters 31 bigrams).
	max_groups CONSTANT int := 64;
	groups_capped boolean := false;
BEGIN
	terms := '{}';
	groups := '{}';
	IF q IS NULL THEN
		info := jsonb_build_object('terms', '[]'::jsonb, 'phrases', '[]'::jsonb, 'negated', '[]'::jsonb, 'or_groups', 0, 'strict', NULL, 'cut', NULL);
		RETURN;
	END IF;
	b := brain.query_bound(q);
	IF b.cut THEN
		-- The kept part's own word count, by the same definition of a word.
		cut_info := jsonb_build_object('words_total', b.words, 'words_kept', (brain.query_bound(b.kept)).words, 'chars_kept', length(b.kept));
		q := b.kept;
	END IF;
	FOR tok IN
		-- (cjk_bigrams only for CJK text: an SQL function with a subquery,
		-- it is planned again on every execution of this statement; curly
		-- quotes are quotes, and Greek final sigma is σ, as for pages in
		-- brain.text_tsvector)
		SELECT m[1] FROM regexp_matches(translate(
			CASE WHEN q ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]' THEN brain.cjk_bigrams(q) ELSE q END,
			'“”„«»ς', '"""""σ'), '("[^"]*"?|[^\s"]+)', 'g') AS m
	LOOP
		IF left(tok, 1) = '"' THEN
			-- Checked first: phraseto_tsquery of stop words alone raises a NOTICE.
			g := CASE WHEN to_tsvector(cfg, btrim(tok, '"')) <> ''::tsvector THEN phraseto_tsquery(cfg, btrim(tok, '"')) END;
			IF g IS NOT NULL THEN
				phrases := phrases || btrim(tok, '"');
				filter_q := CASE WHEN filter_q IS NULL THEN g ELSE filter_q && g END;
				terms := terms || brain.tsquery_terms(g);
			END IF;
			pending_or := false;
			CONTINUE;
		END IF;
		IF tok = 'OR' THEN
			pending_or := cardinality(comps) > 0;
			CONTINUE;
		END IF;
		IF tok ~ '^-\w' AND tok !~ '^-\w[[:punct:]]*$' AND tok !~ '^-[0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\uff10-\uff19]+([.,][0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\uff10-\uff19]+)*[[:punct:]]*$' THEN
			g := brain.words_tsquery(substr(tok, 2));
			IF g IS NOT NULL THEN
				negated := negated || substr(tok, 2);
				filter_q := CASE WHEN filter_q IS NULL THEN !!g ELSE filter_q && !!g END;
			END IF;
			pending_or := false;
			CONTINUE;
		END IF;
		-- Plain word(s): one group per parser word; a hyphenated word and
		-- its parts (which ts_debug lists right after it) form one group.
		IF cardinality(comps) >= max_groups THEN
			groups_capped := true;
			pending_or := false;
			CONTINUE;
		END IF;
		tok_groups := '{}';
		comp_lex := NULL;
		parts := NULL;
		-- ts_parse gives the parser's tokens (ts_token_type('default'):
		-- 15-17 hyphenated words, 9-11 their parts, 12 blanks); lexemes come
		-- from to_tsvector (ts_debug is twenty times slower and does not
		-- pass unaccent's output on to the stemmer).
		FOR r IN SELECT d.tokid, d.token FROM ts_parse('default', tok) d WHERE d.tokid <> 12 LOOP
			IF r.tokid IN (15, 16, 17) THEN
				IF comp_tok IS NOT NULL THEN
					tok_groups := tok_groups || brain.parse_query_compound(comp_lex, comp_tok, parts);
				END IF;
				comp_tok := r.token;
				SELECT u.lexeme INTO comp_lex FROM unnest(to_tsvector(cfg, r.token)) u WHERE 1 = ANY (u.positions) LIMIT 1;
				parts := NULL;
				CONTINUE;
			END IF;
			IF r.tokid IN (9, 10, 11) AND comp_tok IS NOT NULL THEN
				g := brain.words_tsquery(r.token);
				IF g IS NOT NULL THEN
					parts := CASE WHEN parts IS NULL THEN g ELSE parts && g END;
				END IF;
				CONTINUE;
			END IF;
			IF comp_tok IS NOT NULL THEN
				tok_groups := tok_groups || brain.parse_query_compound(comp_lex, comp_tok, parts);
				comp_tok := NULL;
			END IF;
			g := brain.words_tsquery(r.token);
			-- A slashed word (the parser's file token: "PGP/MIME",
			-- "Java/J2EE", "/g722") is one group: itself, or all its parts,
			-- as a hyphenated word is.
			IF r.tokid = 19 THEN
				slashed := brain.words_tsquery(translate(r.token, '/', ' '));
				IF slashed IS NOT NULL AND slashed IS DISTINCT FROM g THEN
					g := CASE WHEN g IS NULL THEN slashed ELSE g || slashed END;
				END IF;
			END IF;
			IF g IS NOT NULL THEN
				tok_groups := tok_groups || g;
			END IF;
		END LOOP;
		IF comp_tok IS NOT NULL THEN
			tok_groups := tok_groups || brain.parse_query_compound(comp_lex, comp_tok, parts);
			comp_tok := NULL;
		END IF;
		first_group := true;
		FOREACH g IN ARRAY tok_groups LOOP
			CONTINUE WHEN g IS NULL OR numnode(g) = 0;
			IF first_group AND pending_or THEN
				comps[cardinality(comps)] := comps[cardinality(comps)] || g;
				n_or := n_or + 1;
				terms := terms || brain.tsquery_terms(g);
			ELSIF g = ANY (comps) THEN
				NULL; -- a repeated word adds nothing to a bag of words
			ELSIF cardinality(comps) >= max_groups THEN
				groups_capped := true;
			ELSE
				comps := comps || g;
				terms := terms || brain.tsquery_terms(g);
			END IF;
			first_group := false;
		END LOOP;
		pending_or := false;
	END LOOP;
	SELECT coalesce(array_agg(DISTINCT t ORDER BY t), '{}') INTO terms FROM unnest(terms) t;
	groups := comps;
	IF cardinality(terms) > 0 THEN
		FOREACH g IN ARRAY comps LOOP
			strict_q := CASE WHEN strict_q IS NULL THEN g ELSE strict_q && g END;
		END LOOP;
		IF filter_q IS NOT NULL THEN
			strict_q := CASE WHEN strict_q IS NULL THEN filter_q ELSE strict_q && filter_q END;
		END IF;
	END IF;
	IF groups_capped THEN
		cut_info := coalesce(cut_info, jsonb_build_object('words_total', b.words, 'words_kept', b.words, 'chars_kept', length(q)))
			|| jsonb_build_object('groups_kept', max_groups);
	END IF;
	info := jsonb_build_object('terms', to_jsonb(terms), 'phrases', to_jsonb(phrases),
		'negated', to_jsonb(negated), 'or_groups', n_or, 'strict', strict_q::text, 'cut', cut_info);
END
$_$;


--
-- Name: parse_query_compound(text, text, tsquery); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.parse_query_compound(lexeme text, token text, parts tsquery) RETURNS tsquery
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	g tsquery;
	j tsquery := brain.words_tsquery(replace(token, '-', ''));
BEGIN
	IF lexeme IS NOT NULL THEN
		g := brain.lexeme_tsquery(lexeme);
	END IF;
	IF j IS NOT NULL THEN
		g := CASE WHEN g IS NULL THEN j ELSE g || j END;
	END IF;
	IF parts IS NOT NULL THEN
		g := CASE WHEN g IS NULL THEN parts ELSE g || parts END;
	END IF;
	RETURN g;
END
$$;


--
-- Name: pii_policy_changed(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pii_policy_changed() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	blocked text[] := brain.pii_blocked();
BEGIN
	UPDATE brain.page_pii t SET agent_visible = NOT t.stale AND NOT (t.categories && blocked)
	WHERE t.agent_visible IS DISTINCT FROM (NOT t.stale AND NOT (t.categories && blocked));
	RETURN NULL;
END
$$;


--
-- Name: query(text, integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.query(q text, lim integer DEFAULT 10) RETURNS TABLE(slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index integer, chunk_source text, title text, type text, score double precision, keyword_rank integer, vector_rank integer, snippet text)
    LANGUAGE plpgsql ROWS 10
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	RETURN QUERY
	SELECT s.slug, s.source_id, s.page_id, s.chunk_id, s.chunk_index, s.chunk_source, s.title, s.type,
	       s.score, s.keyword_rank, s.vector_rank, s.snippet
	FROM brain.search(q, lim => lim) s
	WHERE s.chunk_id IS NOT NULL;
END
$$;


--
-- Name: query_bound(text, integer, integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.query_bound(q text, max_words integer DEFAULT 32, max_chars integer DEFAULT 4096, OUT kept text, OUT words integer, OUT cut boolean) RETURNS record
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	WITH toks AS (
		SELECT m[1] || m[2] AS piece, lower(m[2]) AS word, t.ord
		FROM regexp_matches(left(q, 2 * greatest(max_chars, 1)), '([\s!-/:-@\[-`{-~\u2000-\u206f\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\uffe0-\uffee]*)([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]|[^\s!-/:-@\[-`{-~\u2000-\u206f\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\uffe0-\uffee\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+)', 'g') WITH ORDINALITY AS t (m, ord)
	), firsts AS (
		SELECT min(toks.ord) AS first FROM toks GROUP BY toks.word
	), stop AS (
		SELECT least(
			coalesce((SELECT f.first FROM firsts f ORDER BY f.first OFFSET greatest(max_words, 1) LIMIT 1), 9223372036854775807),
			CASE WHEN (SELECT count(*) FROM toks) > 4 * greatest(max_words, 1) THEN 4 * greatest(max_words, 1) + 1 ELSE 9223372036854775807 END) AS at_ord
	), k AS (
		SELECT CASE WHEN stop.at_ord = 9223372036854775807 AND length(q) <= 2 * greatest(max_chars, 1) THEN q
		            ELSE coalesce((SELECT string_agg(toks.piece, '' ORDER BY toks.ord) FROM toks WHERE toks.ord < stop.at_ord), '') END AS txt
		FROM stop
	)
	SELECT left(k.txt, greatest(max_chars, 1)),
	       (SELECT count(*)::int FROM firsts),
	       q IS DISTINCT FROM left(k.txt, greatest(max_chars, 1))
	INTO kept, words, cut
	FROM k;
END
$$;


--
-- Name: query_initials(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.query_initials(q text) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $_$
DECLARE
	tok text;
	w text;
	-- Initials, '|' between runs, '.' where a lower-case word sits inside
	-- a run, '*' before the initial of a first word that starts sentences.
	runs text := '';
	piece text;
	part text;
	variants text[];
	g tsquery;
	res text[] := '{}';
BEGIN
	-- Most queries have fewer than three capitalised words: no run (the
	-- bound below reads at most the first 8,192 characters too).
	IF q IS NULL OR regexp_count(left(q, 8192), '(^|[\s(\[{"“„«''‘])[[:upper:]]') < 3 THEN
		RETURN res;
	END IF;
	FOREACH tok IN ARRAY regexp_split_to_array(btrim((brain.query_bound(q)).kept), '\s+') LOOP
		IF tok ~ '^[(\[{"“„«''‘]' THEN
			runs := runs || '|';
		END IF;
		w := regexp_replace(tok, '^[(\[{"“„«''‘]+|[)\]}"”»''’,;:.!?]+$', '', 'g');
		IF w ~ '^[[:upper:]][[:alnum:]]*$' AND w <> 'OR' THEN
			IF right(runs, 1) IN ('', '|') AND w IN ('The', 'A', 'An', 'This', 'That', 'These', 'Those', 'My', 'Our', 'Your',
			                                         'How', 'What', 'Which', 'Where', 'Who', 'Why', 'When', 'Is', 'Are',
			                                         'Do', 'Does', 'Can', 'I', 'We', 'You') THEN
				runs := runs || '*';
			END IF;
			runs := runs || left(w, 1);
		ELSIF w IN ('of', 'for', 'and', 'the', 'to', 'in', 'on', 'a', 'an', 'with') AND right(runs, 1) NOT IN ('', '|', '.') THEN
			runs := runs || '.';
		ELSE
			runs := runs || '|';
		END IF;
		IF tok ~ '[)\]}"”»''’,;:.!?]$' THEN
			runs := runs || '|';
		END IF;
	END LOOP;
	FOREACH piece IN ARRAY string_to_array(runs, '|') LOOP
		piece := rtrim(piece, '.');
		variants := ARRAY[replace(replace(piece, '.', ''), '*', '')];
		IF left(piece, 1) = '*' THEN
			variants := variants || replace(substr(piece, 3), '.', '');
		END IF;
		IF strpos(piece, '.') > 0 THEN
			FOREACH part IN ARRAY string_to_array(piece, '.') LOOP
				variants := variants || replace(part, '*', '');
				IF left(part, 1) = '*' THEN
					variants := variants || substr(part, 3);
				END IF;
			END LOOP;
		END IF;
		FOREACH part IN ARRAY variants LOOP
			CONTINUE WHEN char_length(part) < 3;
			g := brain.words_tsquery(lower(part));
			IF g IS NOT NULL THEN
				res := res || brain.tsquery_terms(g);
			END IF;
		END LOOP;
	END LOOP;
	RETURN ARRAY(SELECT DISTINCT x FROM unnest(res) x ORDER BY 1);
END
$_$;


--
-- Name: search(text, public.vector, integer, text, text[], integer, double precision, double precision, double precision, double precision, boolean, boolean, boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.search(q text, qvec public.vector DEFAULT NULL::public.vector, lim integer DEFAULT 10, detail text DEFAULT NULL::text, source_ids text[] DEFAULT NULL::text[], per_page integer DEFAULT 1, keyword_weight double precision DEFAULT NULL::double precision, vector_weight double precision DEFAULT NULL::double precision, rrf_k double precision DEFAULT NULL::double precision, type_share double precision DEFAULT NULL::double precision, snippets boolean DEFAULT true, embed boolean DEFAULT true, vector_fill_only boolean DEFAULT NULL::boolean) RETURNS TABLE(slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index integer, chunk_source text, title text, type text, score double precision, keyword_rank integer, vector_rank integer, snippet text, meta jsonb)
    LANGUAGE plpgsql ROWS 30
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $_$
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
$_$;


--
-- Name: search_expanded(text, text[], public.vector, public.vector[], integer, text, text[], integer, double precision, double precision, double precision, double precision, boolean, boolean, boolean, double precision); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.search_expanded(q text, variants text[], qvec public.vector DEFAULT NULL::public.vector, variant_vecs public.vector[] DEFAULT NULL::public.vector[], lim integer DEFAULT 10, detail text DEFAULT NULL::text, source_ids text[] DEFAULT NULL::text[], per_page integer DEFAULT 1, keyword_weight double precision DEFAULT NULL::double precision, vector_weight double precision DEFAULT NULL::double precision, rrf_k double precision DEFAULT NULL::double precision, type_share double precision DEFAULT NULL::double precision, snippets boolean DEFAULT true, embed boolean DEFAULT true, vector_fill_only boolean DEFAULT NULL::boolean, variant_weight double precision DEFAULT 0.5) RETURNS TABLE(slug text, source_id text, page_id bigint, chunk_id bigint, chunk_index integer, chunk_source text, title text, type text, score double precision, keyword_rank integer, vector_rank integer, snippet text, meta jsonb)
    LANGUAGE plpgsql ROWS 30
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $_$
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
$_$;


--
-- Name: search_setting(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.search_setting(name text) RETURNS double precision
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	v text := brain.search_settings() ->> name;
BEGIN
	IF v IS NULL THEN
		RAISE EXCEPTION 'unknown search setting %', quote_literal(name)
			USING HINT = 'docs/retrieval.md lists the settings brain.config accepts as search.<name>';
	END IF;
	RETURN v::float8;
END
$$;


--
-- Name: search_settings(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.search_settings() RETURNS jsonb
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $_$
DECLARE
	is_local boolean;
	stored jsonb;
	defaults jsonb;
	res jsonb;
	o record;
	problem text;
	num float8;
BEGIN
	-- brain.config read once, the embedder with the overrides (brain.embedder()
	-- is an SQL function, planned again at every call)
	SELECT coalesce(max(c.value) FILTER (WHERE c.key = 'embedder'), 'local') = 'local',
	       coalesce(jsonb_object_agg(substr(c.key, 8), c.value) FILTER (WHERE c.key <> 'embedder'), '{}')
	INTO is_local, stored
	FROM brain.config c WHERE c.key = 'embedder' OR starts_with(c.key, 'search.');
	defaults := jsonb_build_object(
		'keyword_weight', 1.0,
		'vector_weight', CASE WHEN is_local THEN 0.25 ELSE 1.0 END,
		'rrf_k', CASE WHEN is_local THEN 10 ELSE 60 END,
		'bm25_k1', 1.2,
		'bm25_b', 0.75,
		'title_weight', 2.0,
		'timeline_weight', 0.5,
		'keyword_candidates', 400,
		'keyword_candidates_max', 0,
		'keyword_rounds', 0,
		'strict_bonus', 0.1,
		'coverage_weight', 0.5,
		'lead_weight', 0.3,
		'lead_words', 15,
		'title_affinity', 0.5,
		'title_coverage', 0.3,
		'title_unexplained', 0.06,
		'title_depth', 50,
		'title_names', 20,
		'title_exact', 1.0,
		'proximity', 0.2,
		'initials', 1,
		'vector_fill_only', CASE WHEN is_local THEN 1 ELSE 0 END,
		'type_share', 1.0);
	res := defaults;
	FOR o IN SELECT x.key AS name, x.value FROM jsonb_each_text(stored) x ORDER BY x.key LOOP
		CONTINUE WHEN NOT defaults ? o.name;
		-- Checked before the cast, so a typo a DBA stored names itself
		-- instead of failing every search with a bare cast error.
		IF o.value ~ '^\s*[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?\s*$' THEN
			BEGIN
				-- (a block with EXCEPTION costs a subtransaction: entered
				-- only for the overrides a DBA stored)
				num := o.value::float8;
				-- Ranges where a value would break the formulas (a
				-- negative k1 divides by zero) or their meaning; the
				-- other knobs are clamped where they are read.
				problem := CASE
					WHEN o.name IN ('bm25_k1', 'keyword_weight', 'vector_weight', 'title_weight', 'timeline_weight', 'title_exact', 'lead_weight') AND num < 0
						THEN 'below 0: it must be 0 or more'
					WHEN o.name = 'bm25_b' AND (num < 0 OR num > 1) THEN 'out of range: it must be from 0 to 1'
					WHEN o.name IN ('rrf_k', 'type_share') AND num <= 0 THEN 'not above 0: it must be more than 0'
				END;
				IF problem IS NULL THEN
					res := res || jsonb_build_object(o.name, num);
					CONTINUE;
				END IF;
			EXCEPTION WHEN numeric_value_out_of_range THEN
				problem := 'out of range for a number'; -- "1e999" passes the check but not the cast
			END;
		ELSE
			problem := 'not a number';
		END IF;
		RAISE EXCEPTION 'brain.config key search.% holds %, which is %', o.name, quote_literal(o.value), problem
			USING ERRCODE = 'invalid_parameter_value',
			      HINT = format('store a number (the default is %s), or delete the row to use the default: DELETE FROM brain.config WHERE key = %L',
			                    defaults ->> o.name, 'search.' || o.name);
	END LOOP;
	RETURN res;
END
$_$;


--
-- Name: settle_text_indexes(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.settle_text_indexes() RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	who name := brain.caller_role();
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles a WHERE a.rolname = who
	               AND has_table_privilege(a.oid, 'brain.chunks'::regclass, 'INSERT')) THEN
		RAISE EXCEPTION 'permission denied to settle the brain''s indexes (role %)', who
			USING ERRCODE = '42501', HINT = 'only roles that write pages (pgbrain_writer, pgbrain_owner) run it';
	END IF;
	RETURN (SELECT coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0)
	        FROM pg_catalog.pg_index i
	        JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
	        JOIN pg_catalog.pg_am a ON a.oid = c.relam
	        WHERE a.amname = 'gin' AND i.indisvalid
	          AND i.indrelid IN ('brain.chunks'::regclass, 'brain.pages'::regclass));
END
$$;


--
-- Name: setup_roles(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.setup_roles() RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	r text;
	missing text[] := '{}';
	may_create boolean;
	t text;
BEGIN
	-- Two commands migrating one database at once would deadlock on the
	-- grants: one at a time (key pair 'pgbr', 13).
	PERFORM pg_advisory_xact_lock(1885823602, 13);
	SELECT rolsuper OR rolcreaterole INTO may_create FROM pg_roles WHERE rolname = current_user;
	FOREACH r IN ARRAY ARRAY['pgbrain_owner', 'pgbrain_writer', 'pgbrain_reader', 'pgbrain_agent',
	                         'pgbrain_auditor', 'pgbrain_audit_writer'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			IF may_create THEN
				BEGIN
					EXECUTE format('CREATE ROLE %I NOLOGIN', r);
				EXCEPTION WHEN duplicate_object OR unique_violation THEN
					NULL; -- created meanwhile by a migration of another database
				END;
			ELSE
				missing := missing || r;
			END IF;
		END IF;
	END LOOP;
	IF cardinality(missing) > 0 THEN
		RAISE WARNING 'pgbrain roles % do not exist and role % may not create them', array_to_string(missing, ', '), current_user
			USING HINT = 'the brain works, but every pgbrain command runs as ' || current_user
			          || ', serve refuses to start, and no other role sees pages or chunks; have a superuser run: '
			          || 'CREATE ROLE ' || array_to_string(missing, ' NOLOGIN; CREATE ROLE ') || ' NOLOGIN; '
			          || 'GRANT ' || array_to_string(missing, ', ') || ' TO ' || quote_ident(current_user)
			          || ' WITH ADMIN OPTION; then run pgbrain migrate (or SELECT brain.setup_roles()) again';
		RETURN 'missing: ' || array_to_string(missing, ', ');
	END IF;

	-- The migrating role may act as each of them (SET ROLE), which is how
	-- the CLI drops to the least role a command needs.
	FOREACH r IN ARRAY ARRAY['pgbrain_owner', 'pgbrain_writer', 'pgbrain_reader', 'pgbrain_agent', 'pgbrain_auditor'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_auth_members m
		               WHERE m.roleid = to_regrole(r) AND m.member = to_regrole(current_user::text)) THEN
			BEGIN
				EXECUTE format('GRANT %I TO %I', r, current_user);
			EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
				RAISE WARNING 'role % cannot be granted % (SET ROLE % will fail): %', current_user, r, r, SQLERRM;
			END;
		END IF;
	END LOOP;
	IF NOT EXISTS (SELECT 1 FROM pg_auth_members m
	               WHERE m.roleid = 'pgbrain_audit_writer'::regrole AND m.member = 'pgbrain_agent'::regrole) THEN
		BEGIN
			GRANT pgbrain_audit_writer TO pgbrain_agent;
		EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
			RAISE WARNING 'role % cannot grant pgbrain_audit_writer to pgbrain_agent, so serve cannot write audit rows: %', current_user, SQLERRM;
		END;
	END IF;

	GRANT USAGE ON SCHEMA brain TO pgbrain_owner, pgbrain_writer, pgbrain_reader, pgbrain_agent, pgbrain_auditor;
	IF to_regclass('public.pgbrain_schema_version') IS NOT NULL THEN
		GRANT SELECT ON public.pgbrain_schema_version TO pgbrain_owner, pgbrain_writer, pgbrain_reader, pgbrain_agent, pgbrain_auditor;
	END IF;
	GRANT SELECT ON brain.config TO pgbrain_owner, pgbrain_writer, pgbrain_reader, pgbrain_agent, pgbrain_auditor;

	-- owner: everything (the audit log stays append-only through its triggers).
	GRANT ALL ON ALL TABLES IN SCHEMA brain TO pgbrain_owner;
	GRANT ALL ON ALL SEQUENCES IN SCHEMA brain TO pgbrain_owner;
	REVOKE UPDATE, DELETE, TRUNCATE ON brain.audit_log FROM pgbrain_owner;

	-- writer: pages, chunks, sources and their derived rows.
	GRANT SELECT, INSERT, UPDATE, DELETE ON brain.pages, brain.chunks, brain.sources, brain.page_pii,
		brain.term_stats, brain.corpus_stats, brain.page_chunks_pending, brain.vector_index_state,
		brain.embed_runs TO pgbrain_writer;
	GRANT SELECT ON brain.source_boosts, brain.pii_policy TO pgbrain_writer;
	GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA brain TO pgbrain_writer;
	-- the folders imports read (local paths, which can name a person): the
	-- writer that imports, no reader, no agent
	GRANT SELECT, INSERT, UPDATE, DELETE ON brain.import_folders TO pgbrain_writer;

	-- reader: read the brain, capture its own queries, export captures.
	GRANT SELECT ON brain.pages, brain.chunks, brain.sources, brain.page_pii, brain.term_stats,
		brain.corpus_stats, brain.page_chunks_pending, brain.vector_index_state, brain.embed_runs,
		brain.source_boosts, brain.pii_policy, brain.eval_candidates, brain.eval_capture_failures TO pgbrain_reader;
	GRANT INSERT ON brain.eval_candidates, brain.eval_capture_failures TO pgbrain_reader;
	-- Views of the repeatable tier (functions/): a change of its columns
	-- drops and re-creates one, losing its grants, and migrate applies
	-- that tier before calling this again, so they are granted here.
	IF to_regclass('brain.eval_export') IS NOT NULL THEN
		GRANT SELECT ON brain.eval_export TO pgbrain_reader;
	END IF;

	-- agent: pages and chunks through row security, no term statistics
	-- (their lexemes would spell out blocked pages), capture, audit,
	-- bearer tokens of serve --http.
	GRANT SELECT ON brain.pages, brain.chunks, brain.sources, brain.page_pii, brain.source_boosts,
		brain.vector_index_state, brain.pii_policy TO pgbrain_agent;
	GRANT INSERT ON brain.eval_candidates, brain.eval_capture_failures TO pgbrain_agent;
	GRANT SELECT ON brain.mcp_tokens TO pgbrain_agent;

	-- reader and agent: the query-expansion cache (014) that query --expand,
	-- eval replay and the MCP query tool's expand read and fill.
	GRANT SELECT, INSERT, UPDATE ON brain.query_expansions TO pgbrain_reader, pgbrain_agent;

	FOR t IN SELECT c.relname FROM pg_class c
	         WHERE c.relnamespace = 'brain'::regnamespace AND c.relkind = 'S'
	           AND c.relname IN ('eval_candidates_id_seq', 'eval_capture_failures_id_seq') LOOP
		EXECUTE format('GRANT USAGE ON SEQUENCE brain.%I TO pgbrain_reader, pgbrain_agent', t);
	END LOOP;

	-- auditor: the audit log (004) and the classification it refers to.
	GRANT SELECT ON brain.audit_log, brain.page_pii TO pgbrain_auditor;

	-- Policies are written once (a later change is a new migration):
	-- rewriting them would lock both tables on every migrate.
	IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = 'brain' AND policyname = 'pages_agent') THEN
		CREATE POLICY pages_trusted ON brain.pages TO pgbrain_owner, pgbrain_writer, pgbrain_reader
			USING (true) WITH CHECK (true);
		CREATE POLICY chunks_trusted ON brain.chunks TO pgbrain_owner, pgbrain_writer, pgbrain_reader
			USING (true) WITH CHECK (true);
		CREATE POLICY pages_agent ON brain.pages FOR SELECT TO pgbrain_agent
			USING (EXISTS (SELECT 1 FROM brain.page_pii t WHERE t.page_id = pages.id AND t.agent_visible));
		CREATE POLICY chunks_agent ON brain.chunks FOR SELECT TO pgbrain_agent
			USING (EXISTS (SELECT 1 FROM brain.page_pii t WHERE t.page_id = chunks.page_id AND t.agent_visible));
	END IF;
	-- The classifications: an agent reads (through the policies above)
	-- only the rows of pages it may see, so that the ids and categories
	-- of hidden pages are not listed to it.
	IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = 'brain' AND policyname = 'page_pii_agent') THEN
		CREATE POLICY page_pii_trusted ON brain.page_pii TO pgbrain_owner, pgbrain_writer, pgbrain_reader, pgbrain_auditor
			USING (true) WITH CHECK (true);
		CREATE POLICY page_pii_agent ON brain.page_pii FOR SELECT TO pgbrain_agent
			USING (agent_visible);
	END IF;

	-- Role settings are shared by every database of the cluster: written
	-- once, and never changed if an operator set their own.
	FOREACH r IN ARRAY ARRAY['pgbrain_agent', 'pgbrain_reader'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_db_role_setting s
		               WHERE s.setrole = r::regrole AND s.setdatabase = 0
		                 AND EXISTS (SELECT 1 FROM unnest(s.setconfig) c WHERE c LIKE 'statement\_timeout=%')) THEN
			BEGIN
				EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', r, '30s');
			EXCEPTION WHEN insufficient_privilege OR object_not_in_prerequisite_state THEN
				NULL; -- may not alter them; the CLI sets its own anyway
			END;
		END IF;
	END LOOP;
	RETURN 'ready';
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
-- Name: title_exact_chunks(text, text[], boolean, tsquery, boolean); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.title_exact_chunks(qn text, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false, filt tsquery DEFAULT NULL::tsquery, visible_only boolean DEFAULT false) RETURNS bigint[]
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    AS $_$
DECLARE
	pages bigint[];
	forms text[];
BEGIN
	IF coalesce(qn, '') = '' OR length(qn) > 1000 THEN
		RETURN '{}';
	END IF;
	-- (lower() keeps ς and reads Σ as σ: a title typed in lower case ends
	-- its words with ς, one in capitals with σ)
	forms := ARRAY(SELECT DISTINCT f FROM unnest(ARRAY[qn,
		regexp_replace(qn, 'σ(?=$|[^[:alnum:]])', 'ς', 'g')]) AS b (f0),
		LATERAL unnest(ARRAY[f0, '"' || f0 || '"',
			f0 || '?', f0 || '!', f0 || '.', f0 || ':', f0 || '？', f0 || '！', f0 || '。']) AS v (f));
	-- (two statements, so that the owner's plan holds no agent filter)
	IF coalesce(visible_only, false) THEN
		pages := ARRAY(
			SELECT pg.id FROM brain.pages pg
			WHERE lower(pg.title) = ANY (forms)
			  AND (source_ids IS NULL OR pg.source_id = ANY (source_ids))
			  AND EXISTS (SELECT 1 FROM brain.page_pii t WHERE t.page_id = pg.id AND t.agent_visible)
			LIMIT 21);
	ELSE
		pages := ARRAY(
			SELECT pg.id FROM brain.pages pg
			WHERE lower(pg.title) = ANY (forms)
			  AND (source_ids IS NULL OR pg.source_id = ANY (source_ids))
			LIMIT 21);
	END IF;
	IF cardinality(pages) > 20 THEN
		RETURN '{}';
	END IF;
	RETURN ARRAY(
		SELECT c.id
		FROM unnest(pages) AS u (pid)
		CROSS JOIN LATERAL (
			SELECT c.id FROM brain.chunks c
			WHERE c.page_id = u.pid
			  AND (NOT coalesce(compiled_only, false) OR c.chunk_source = 'compiled_truth')
			  AND (filt IS NULL OR c.tsv @@ filt)
			ORDER BY c.chunk_index LIMIT 1) c
		ORDER BY c.id);
END
$_$;


--
-- Name: title_key(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.title_key(t text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
 SELECT translate(lower(btrim(regexp_replace(btrim(regexp_replace(t, '[\s\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]+'::text, ' '::text, 'g'::text), ' "''“”„«»「」『』'::text), '[?!.,;:？！。，；：、]+$'::text, ''::text), ' "''“”„«»「」『』'::text)), 'ς'::text, 'σ'::text) AS translate;
END;


--
-- Name: title_name_chunks(text[], integer, text[], boolean, tsquery); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.title_name_chunks(lexemes text[], cap integer, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false, filt tsquery DEFAULT NULL::tsquery) RETURNS bigint[]
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    AS $$
BEGIN
	IF coalesce(cap, 0) < 1 OR cardinality(lexemes) IS NULL THEN
		RETURN '{}';
	END IF;
	cap := least(cap, 1000);
	RETURN ARRAY(
		WITH t AS MATERIALIZED (
			SELECT ARRAY(
				-- LIKE's own characters in a lexeme ("a_b") stand for themselves
				SELECT pg.id FROM brain.pages pg
				WHERE lower(pg.title) LIKE '%' || replace(replace(replace(l.l, '\', '\\'), '%', '\%'), '_', '\_') || '%'
				  AND (source_ids IS NULL OR pg.source_id = ANY (source_ids))
				LIMIT cap + 1) AS pages
			-- three letters or digits in a row: fewer give the trigram
			-- index nothing to look up, and it would read every title
			FROM (SELECT DISTINCT x FROM unnest(lexemes) x WHERE x ~ '[[:alnum:]]{3}') AS l (l))
		SELECT DISTINCT c.id
		FROM t
		CROSS JOIN LATERAL unnest(t.pages) AS u (pid)
		CROSS JOIN LATERAL (
			SELECT c.id FROM brain.chunks c
			WHERE c.page_id = u.pid
			  AND (NOT coalesce(compiled_only, false) OR c.chunk_source = 'compiled_truth')
			  AND (filt IS NULL OR c.tsv @@ filt)
			ORDER BY c.chunk_index LIMIT 1) c
		WHERE cardinality(t.pages) <= cap
		ORDER BY c.id);
END
$$;


--
-- Name: title_scores(bigint[], text[], double precision[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.title_scores(ids bigint[], lexemes text[], idfs double precision[]) RETURNS TABLE(id bigint, affinity double precision, explained double precision, unexplained integer)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	RETURN QUERY
	WITH w AS (
		-- (computed when the page was written, migration 027)
		SELECT c.id, x AS w
		FROM brain.chunks c JOIN brain.pages pg ON pg.id = c.page_id, unnest(pg.title_words) x
		WHERE c.id = ANY (ids)),
	m AS (
		SELECT w.id, w.w, i.lexeme, i.idf
		-- (every test but "the lexeme begins with the word" needs the
		-- lexeme inside the word: strpos first rules out most pairs)
		FROM w JOIN unnest(lexemes, idfs) AS i (lexeme, idf) ON length(i.lexeme) >= 2 AND (
			(strpos(w.w, i.lexeme) > 0 AND (w.w = i.lexeme
				OR length(i.lexeme) >= 4
				OR (length(i.lexeme) >= 3 AND (starts_with(w.w, i.lexeme) OR right(w.w, length(i.lexeme)) = i.lexeme))))
			OR (length(w.w) >= 3 AND starts_with(i.lexeme, w.w))))
	SELECT x.id, coalesce(a.affinity, 0)::float8, coalesce(k.n::float8 / nullif(nw.n, 0), 0)::float8,
	       greatest(coalesce(nw.n, 0) - coalesce(k.n, 0), 0)::int
	FROM (SELECT DISTINCT u.id FROM unnest(ids) AS u (id)) x
	LEFT JOIN (
		SELECT d.id, sum(d.idf) AS affinity
		FROM (SELECT DISTINCT m.id, m.lexeme, m.idf FROM m) d GROUP BY d.id) a ON a.id = x.id
	LEFT JOIN (SELECT m.id, count(DISTINCT m.w) AS n FROM m GROUP BY m.id) k ON k.id = x.id
	LEFT JOIN (SELECT w.id, count(*) AS n FROM w GROUP BY w.id) nw ON nw.id = x.id;
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
-- Name: vector_arm(public.vector, integer, text[], boolean, integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_arm(qvec public.vector, lim integer DEFAULT 10, source_ids text[] DEFAULT NULL::text[], compiled_only boolean DEFAULT false, withheld_within integer DEFAULT NULL::integer) RETURNS TABLE(chunk_id bigint, page_id bigint, distance double precision, vector_rank integer, meta jsonb)
    LANGUAGE plpgsql SECURITY DEFINER ROWS 30
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	only_compiled boolean := coalesce(compiled_only, false);
	scope text := brain.caller_scope();
	r_ids bigint[];
	r_pids bigint[];
	r_dists float8[];
	shown boolean[];
	hidden bigint[];
	wh jsonb := jsonb_build_object('pages', 0, 'unclassified', 0, 'categories', '[]'::jsonb);
BEGIN
	IF qvec IS NULL THEN
		RETURN;
	END IF;
	IF NOT coalesce((SELECT i.indisvalid AND i.indisready FROM pg_catalog.pg_index i
			WHERE i.indexrelid = to_regclass('brain.chunks_embedding_hnsw')), false)
	   AND coalesce(current_setting('brain.vector_scan', true), '') <> 'exact' THEN
		RAISE NOTICE 'the vector index is suspended or being rebuilt: searching by keyword only (see pgbrain doctor)';
		RETURN;
	END IF;
	lim := least(greatest(coalesce(lim, 10), 1), 1000);
	PERFORM set_config('hnsw.ef_search', greatest(lim, 80)::text, true);
	PERFORM set_config('hnsw.iterative_scan', 'strict_order', true);
	WITH nn AS MATERIALIZED (
		SELECT c.id, c.page_id, c.embedding <=> qvec AS d
		FROM brain.chunks c
		WHERE (NOT only_compiled OR c.chunk_source = 'compiled_truth')
		  AND (source_ids IS NULL OR EXISTS (
			SELECT 1 FROM brain.pages p WHERE p.id = c.page_id AND p.source_id = ANY (source_ids)))
		ORDER BY c.embedding <=> qvec
		LIMIT lim
	)
	SELECT coalesce(array_agg(nn.id ORDER BY nn.d, nn.id), '{}'), coalesce(array_agg(nn.page_id ORDER BY nn.d, nn.id), '{}'),
	       coalesce(array_agg(nn.d ORDER BY nn.d, nn.id), '{}')
	INTO r_ids, r_pids, r_dists
	FROM nn
	WHERE nn.d IS NOT NULL;
	IF scope = 'all' THEN
		RETURN QUERY SELECT u.id, u.pid, u.d, u.r::int, NULL::jsonb
			FROM unnest(r_ids, r_pids, r_dists) WITH ORDINALITY AS u (id, pid, d, r) ORDER BY u.r;
	ELSE
		shown := ARRAY(SELECT scope = 'agent' AND coalesce((SELECT t.agent_visible FROM brain.page_pii t WHERE t.page_id = u.pid), false)
		               FROM unnest(r_pids) WITH ORDINALITY AS u (pid, o) ORDER BY u.o);
		RETURN QUERY SELECT u.id, u.pid, u.d, (row_number() OVER (ORDER BY u.r))::int, NULL::jsonb
			FROM unnest(r_ids, r_pids, r_dists, shown) WITH ORDINALITY AS u (id, pid, d, ok, r)
			WHERE u.ok ORDER BY u.r;
		hidden := ARRAY(SELECT u.pid FROM unnest(r_pids, shown) WITH ORDINALITY AS u (pid, ok, r)
		                WHERE NOT u.ok AND u.r <= coalesce(withheld_within, lim));
		IF cardinality(hidden) > 0 THEN
			wh := brain.withheld_of(hidden);
		END IF;
	END IF;
	RETURN QUERY SELECT NULL::bigint, NULL::bigint, NULL::float8, NULL::int, jsonb_build_object('withheld', wh);
END
$$;


--
-- Name: vector_index_status(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_status() RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	RETURN (SELECT CASE
		WHEN coalesce(i.valid, false) THEN 'ready'
		WHEN coalesce(current_setting('brain.vector_scan', true), '') = 'exact' THEN 'exact'
		WHEN i.valid IS NOT NULL AND s.state IS DISTINCT FROM 'rebuilding' THEN 'invalid'
		WHEN s.state IS NOT NULL THEN s.state
		ELSE 'missing'
	END
	FROM (SELECT (SELECT x.indisvalid AND x.indisready FROM pg_catalog.pg_index x
			WHERE x.indexrelid = to_regclass('brain.chunks_embedding_hnsw')) AS valid) i,
	     (SELECT (SELECT state FROM brain.vector_index_state
			WHERE index_name = 'chunks_embedding_hnsw') AS state) s);
END
$$;


--
-- Name: vector_index_ready(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_ready() RETURNS boolean
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 SELECT (brain.vector_index_status() = ANY (ARRAY['ready'::text, 'exact'::text]));
END;


--
-- Name: vector_index_resume(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_resume() RETURNS void
    LANGUAGE sql
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
	CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding vector_cosine_ops)
		WITH (m = 12, ef_construction = 40);
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
    LANGUAGE sql ROWS 30
    BEGIN ATOMIC
 SELECT v.chunk_id,
     v.page_id,
     v.distance,
     v.vector_rank
    FROM brain.vector_arm(vector_search.qvec, vector_search.lim, vector_search.source_ids, vector_search.compiled_only) v(chunk_id, page_id, distance, vector_rank, meta)
   WHERE (v.chunk_id IS NOT NULL)
   ORDER BY v.vector_rank;
END;


--
-- Name: withheld_of(bigint[]); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.withheld_of(page_ids bigint[]) RETURNS jsonb
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 SELECT jsonb_build_object('pages', count(DISTINCT u.pid), 'unclassified', count(DISTINCT u.pid) FILTER (WHERE (NOT (EXISTS ( SELECT 1
            FROM brain.page_pii t
           WHERE ((t.page_id = u.pid) AND (NOT t.stale)))))), 'categories', to_jsonb(ARRAY( SELECT DISTINCT (c.c COLLATE "C") AS c
            FROM brain.page_pii t,
             LATERAL unnest(t.categories) c(c)
           WHERE ((t.page_id = ANY (withheld_of.page_ids)) AND (c.c = ANY (brain.pii_blocked())))
           ORDER BY (c.c COLLATE "C")))) AS jsonb_build_object
    FROM unnest(COALESCE(withheld_of.page_ids, '{}'::bigint[])) u(pid);
END;


--
-- Name: without_negated(bigint[], tsquery); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.without_negated(ids bigint[], neg tsquery) RETURNS bigint[]
    LANGUAGE plpgsql STABLE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
BEGIN
	IF neg IS NULL OR cardinality(ids) IS NULL OR cardinality(ids) = 0 THEN
		RETURN coalesce(ids, '{}');
	END IF;
	RETURN ARRAY(
		SELECT u.id FROM unnest(ids) WITH ORDINALITY AS u (id, o)
		JOIN brain.chunks c ON c.id = u.id
		WHERE NOT EXISTS (SELECT 1 FROM brain.chunks c2 WHERE c2.page_id = c.page_id AND c2.tsv @@ neg)
		ORDER BY u.o);
END
$$;


--
-- Name: words_tsquery(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.words_tsquery(t text) RETURNS tsquery
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'brain', 'public', 'pg_temp'
    AS $$
DECLARE
	v tsvector := brain.text_tsvector(t);
BEGIN
	IF v = ''::tsvector THEN
		RETURN NULL;
	END IF;
	RETURN replace(strip(v)::text, ''' ''', ''' & ''')::tsquery;
END
$$;


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
-- Name: import_folders; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.import_folders (
    source_id text NOT NULL,
    path text NOT NULL,
    imported_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT import_folders_path_check CHECK (((length(path) >= 1) AND (length(path) <= 4096)))
);


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
-- Name: page_chunks_pending; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.page_chunks_pending (
    page_id bigint NOT NULL,
    since timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE page_chunks_pending; Type: COMMENT; Schema: brain; Owner: -
--

COMMENT ON TABLE brain.page_chunks_pending IS 'Pages whose chunks do not follow their body yet (written from psql); pgbrain embed --stale rewrites them.';


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
-- Name: query_expansions; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.query_expansions (
    model text NOT NULL,
    prompt_version integer NOT NULL,
    query_sha256 bytea NOT NULL,
    variants text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT query_expansions_model_check CHECK (((length(model) >= 1) AND (length(model) <= 200))),
    CONSTRAINT query_expansions_prompt_version_check CHECK ((prompt_version > 0)),
    CONSTRAINT query_expansions_query_sha256_check CHECK ((length(query_sha256) = 32)),
    CONSTRAINT query_expansions_variants_check CHECK (((cardinality(variants) <= 10) AND (COALESCE(array_ndims(variants), 1) = 1) AND (array_position(variants, NULL::text) IS NULL)))
);


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

INSERT INTO brain.audit_log VALUES (1, '2026-12-08 01:30:57.625873+00', 's-1', '', 'query', 'success', NULL, '{}', 'search', 'a036edbe74eadd8b170718c92f505b9fdf1d1f6b45f9a5daa26395cc39359e30', 1, '\x0000000000000000000000000000000000000000000000000000000000000000', '\xbbaea1d68835704005c430f39bf377e3c7988f5512fa8a4840fab4af30f2e4d6');
INSERT INTO brain.audit_log VALUES (2, '2026-12-08 01:30:57.628412+00', 's-1', '', 'get_page', 'refused', 'pii_blocked', '{credential}', 'read', '4966388653f18705c65234b96bb1ecc7bca43d2f476e57484b966f6d614da567', 1, '\xbbaea1d68835704005c430f39bf377e3c7988f5512fa8a4840fab4af30f2e4d6', '\xb706fd61fdad07b068300a03fd41067eef9d7e5f15f770ccb1fe856662627acd');


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

INSERT INTO brain.config VALUES ('embedding_dim', '256', '2026-12-08 01:30:57.374943+00');
INSERT INTO brain.config VALUES ('embedder', 'local', '2026-12-08 01:30:57.374943+00');
INSERT INTO brain.config VALUES ('embed_model', 'hash-tsv-v1', '2026-12-08 01:30:57.374943+00');
INSERT INTO brain.config VALUES ('schema_version', '28', '2026-12-08 01:30:57.374943+00');
INSERT INTO brain.config VALUES ('functions_checksum', '53458f126e2a30cfaa55a313607a654b253e7e6bb638bf8ae40f752ee6ae5515:a11a5a81ae7b8e274c6d97bc368b8b611024dd826719dba20b83c89a9b433372', '2026-12-08 01:30:57.578157+00');


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

INSERT INTO brain.eval_candidates VALUES (1, 'query', 'who keeps the lanterns', '{people/alice-smith}', '{}', '{}', NULL, NULL, NULL, true, false, 4.200, false, NULL, NULL, '2026-12-08 01:30:57.624713+00');


--
-- Data for Name: eval_capture_failures; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.eval_capture_failures VALUES (1, '2026-12-08 01:30:57.608938+00', '2026-12-08 01:30:57.608938+00', 'search', 'db_down', NULL, 'connection refused', NULL);


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
-- Data for Name: import_folders; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: mcp_tokens; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: page_chunks_pending; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: page_pii; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.page_pii VALUES (1, '{contact}', DEFAULT, 'heuristic', '2026-12-08 01:30:57.608938+00', false, true);
INSERT INTO brain.page_pii VALUES (3, '{contact}', DEFAULT, 'heuristic', '2026-12-08 01:30:57.608938+00', false, true);


--
-- Data for Name: pages; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.pages VALUES (1, 'default', 'people/alice-smith', 'Alice Smith', 'page', 'Alice keeps the harbour lanterns lit.', '', '{}', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '2026-12-08 01:30:57.608938+00', '2026-12-08 01:30:57.608938+00', 'put', DEFAULT);
INSERT INTO brain.pages VALUES (2, 'default', 'projects/lantern', 'Lantern project', 'page', 'Brass lanterns, rebuilt every spring.', '2024-03-01: new wicks', '{}', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', '2026-12-08 01:30:57.608938+00', '2026-12-08 01:30:57.608938+00', 'put', DEFAULT);
INSERT INTO brain.pages VALUES (3, 'notes', 'people/alice-smith', 'Alice (notes)', 'page', 'Call Alice about the wicks.', '', '{}', 'cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc', '2026-12-08 01:30:57.608938+00', '2026-12-08 01:30:57.608938+00', 'put', DEFAULT);


--
-- Data for Name: pii_policy; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: query_expansions; Type: TABLE DATA; Schema: brain; Owner: -
--



--
-- Data for Name: source_boosts; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.source_boosts VALUES ('people/', 1.5);


--
-- Data for Name: sources; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.sources VALUES ('default', 'Default source', '2026-12-08 01:30:57.374943+00', '{}');
INSERT INTO brain.sources VALUES ('notes', 'Notes', '2026-12-08 01:30:57.608938+00', '{}');


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

INSERT INTO public.pgbrain_schema_version VALUES (28);


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
-- Name: import_folders import_folders_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.import_folders
    ADD CONSTRAINT import_folders_pkey PRIMARY KEY (source_id, path);


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
-- Name: page_chunks_pending page_chunks_pending_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.page_chunks_pending
    ADD CONSTRAINT page_chunks_pending_pkey PRIMARY KEY (page_id);


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
-- Name: pii_policy pii_policy_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pii_policy
    ADD CONSTRAINT pii_policy_pkey PRIMARY KEY (category);


--
-- Name: query_expansions query_expansions_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.query_expansions
    ADD CONSTRAINT query_expansions_pkey PRIMARY KEY (model, prompt_version, query_sha256);


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

CREATE INDEX chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding public.vector_cosine_ops) WITH (m='12', ef_construction='40');


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
-- Name: pages_title_lower; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX pages_title_lower ON brain.pages USING hash (lower(title));


--
-- Name: pages_title_trgm; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX pages_title_trgm ON brain.pages USING gin (lower(title) public.gin_trgm_ops) WITH (gin_pending_list_limit='256');


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
-- Name: chunks chunks_30_pending_done; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_30_pending_done AFTER INSERT ON brain.chunks REFERENCING NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_pending_done();


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
-- Name: page_pii page_pii_10_agent_visible; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER page_pii_10_agent_visible BEFORE INSERT OR UPDATE ON brain.page_pii FOR EACH ROW EXECUTE FUNCTION brain.page_pii_agent_visible();


--
-- Name: pages pages_10_content_inserted; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER pages_10_content_inserted AFTER INSERT ON brain.pages REFERENCING NEW TABLE AS new_pages FOR EACH STATEMENT EXECUTE FUNCTION brain.pages_content_changed();


--
-- Name: pages pages_10_content_updated; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER pages_10_content_updated AFTER UPDATE ON brain.pages REFERENCING OLD TABLE AS old_pages NEW TABLE AS new_pages FOR EACH STATEMENT EXECUTE FUNCTION brain.pages_content_changed();


--
-- Name: pages pages_title_tsv; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER pages_title_tsv AFTER UPDATE OF title ON brain.pages FOR EACH ROW WHEN ((old.title IS DISTINCT FROM new.title)) EXECUTE FUNCTION brain.pages_refresh_chunk_tsv();


--
-- Name: pii_policy pii_policy_changed; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER pii_policy_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON brain.pii_policy FOR EACH STATEMENT EXECUTE FUNCTION brain.pii_policy_changed();


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
-- Name: import_folders import_folders_source_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.import_folders
    ADD CONSTRAINT import_folders_source_id_fkey FOREIGN KEY (source_id) REFERENCES brain.sources(id) ON DELETE CASCADE;


--
-- Name: page_chunks_pending page_chunks_pending_page_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.page_chunks_pending
    ADD CONSTRAINT page_chunks_pending_page_id_fkey FOREIGN KEY (page_id) REFERENCES brain.pages(id) ON DELETE CASCADE;


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
-- Name: chunks; Type: ROW SECURITY; Schema: brain; Owner: -
--

ALTER TABLE brain.chunks ENABLE ROW LEVEL SECURITY;

--
-- Name: chunks chunks_agent; Type: POLICY; Schema: brain; Owner: -
--

CREATE POLICY chunks_agent ON brain.chunks FOR SELECT TO pgbrain_agent USING ((EXISTS ( SELECT 1
   FROM brain.page_pii t
  WHERE ((t.page_id = chunks.page_id) AND t.agent_visible))));


--
-- Name: chunks chunks_trusted; Type: POLICY; Schema: brain; Owner: -
--

CREATE POLICY chunks_trusted ON brain.chunks TO pgbrain_owner, pgbrain_writer, pgbrain_reader USING (true) WITH CHECK (true);


--
-- Name: page_pii; Type: ROW SECURITY; Schema: brain; Owner: -
--

ALTER TABLE brain.page_pii ENABLE ROW LEVEL SECURITY;

--
-- Name: page_pii page_pii_agent; Type: POLICY; Schema: brain; Owner: -
--

CREATE POLICY page_pii_agent ON brain.page_pii FOR SELECT TO pgbrain_agent USING (agent_visible);


--
-- Name: page_pii page_pii_trusted; Type: POLICY; Schema: brain; Owner: -
--

CREATE POLICY page_pii_trusted ON brain.page_pii TO pgbrain_auditor, pgbrain_owner, pgbrain_writer, pgbrain_reader USING (true) WITH CHECK (true);


--
-- Name: pages; Type: ROW SECURITY; Schema: brain; Owner: -
--

ALTER TABLE brain.pages ENABLE ROW LEVEL SECURITY;

--
-- Name: pages pages_agent; Type: POLICY; Schema: brain; Owner: -
--

CREATE POLICY pages_agent ON brain.pages FOR SELECT TO pgbrain_agent USING ((EXISTS ( SELECT 1
   FROM brain.page_pii t
  WHERE ((t.page_id = pages.id) AND t.agent_visible))));


--
-- Name: pages pages_trusted; Type: POLICY; Schema: brain; Owner: -
--

CREATE POLICY pages_trusted ON brain.pages TO pgbrain_owner, pgbrain_writer, pgbrain_reader USING (true) WITH CHECK (true);


--
-- Name: SCHEMA brain; Type: ACL; Schema: -; Owner: -
--

GRANT USAGE ON SCHEMA brain TO pgbrain_audit_writer;
GRANT USAGE ON SCHEMA brain TO pgbrain_auditor;
GRANT USAGE ON SCHEMA brain TO pgbrain_owner;
GRANT USAGE ON SCHEMA brain TO pgbrain_writer;
GRANT USAGE ON SCHEMA brain TO pgbrain_reader;
GRANT USAGE ON SCHEMA brain TO pgbrain_agent;


--
-- Name: TABLE audit_log; Type: ACL; Schema: brain; Owner: -
--

GRANT SELECT ON TABLE brain.audit_log TO pgbrain_auditor;
GRANT SELECT,INSERT,REFERENCES,TRIGGER ON TABLE brain.audit_log TO pgbrain_owner;


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
-- Name: TABLE chunks; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.chunks TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.chunks TO pgbrain_writer;
GRANT SELECT ON TABLE brain.chunks TO pgbrain_reader;
GRANT SELECT ON TABLE brain.chunks TO pgbrain_agent;


--
-- Name: TABLE eval_contradictions_cache; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.eval_contradictions_cache TO pgbrain_owner;


--
-- Name: TABLE eval_contradictions_dismissed; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.eval_contradictions_dismissed TO pgbrain_owner;


--
-- Name: TABLE pages; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.pages TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.pages TO pgbrain_writer;
GRANT SELECT ON TABLE brain.pages TO pgbrain_reader;
GRANT SELECT ON TABLE brain.pages TO pgbrain_agent;


--
-- Name: TABLE eval_contradiction_findings; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.eval_contradiction_findings TO pgbrain_owner;


--
-- Name: TABLE eval_contradiction_runs; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.eval_contradiction_runs TO pgbrain_owner;


--
-- Name: TABLE config; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.config TO pgbrain_owner;
GRANT SELECT ON TABLE brain.config TO pgbrain_writer;
GRANT SELECT ON TABLE brain.config TO pgbrain_reader;
GRANT SELECT ON TABLE brain.config TO pgbrain_agent;
GRANT SELECT ON TABLE brain.config TO pgbrain_auditor;


--
-- Name: TABLE eval_candidates; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.eval_candidates TO pgbrain_owner;
GRANT SELECT,INSERT ON TABLE brain.eval_candidates TO pgbrain_reader;
GRANT INSERT ON TABLE brain.eval_candidates TO pgbrain_agent;


--
-- Name: TABLE pii_policy; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.pii_policy TO pgbrain_owner;
GRANT SELECT ON TABLE brain.pii_policy TO pgbrain_writer;
GRANT SELECT ON TABLE brain.pii_policy TO pgbrain_reader;
GRANT SELECT ON TABLE brain.pii_policy TO pgbrain_agent;


--
-- Name: TABLE page_pii; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.page_pii TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.page_pii TO pgbrain_writer;
GRANT SELECT ON TABLE brain.page_pii TO pgbrain_reader;
GRANT SELECT ON TABLE brain.page_pii TO pgbrain_agent;
GRANT SELECT ON TABLE brain.page_pii TO pgbrain_auditor;


--
-- Name: SEQUENCE chunks_id_seq; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON SEQUENCE brain.chunks_id_seq TO pgbrain_owner;
GRANT SELECT,USAGE ON SEQUENCE brain.chunks_id_seq TO pgbrain_writer;


--
-- Name: TABLE corpus_stats; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.corpus_stats TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.corpus_stats TO pgbrain_writer;
GRANT SELECT ON TABLE brain.corpus_stats TO pgbrain_reader;


--
-- Name: TABLE embed_runs; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.embed_runs TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.embed_runs TO pgbrain_writer;
GRANT SELECT ON TABLE brain.embed_runs TO pgbrain_reader;


--
-- Name: SEQUENCE embed_runs_id_seq; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON SEQUENCE brain.embed_runs_id_seq TO pgbrain_owner;
GRANT SELECT,USAGE ON SEQUENCE brain.embed_runs_id_seq TO pgbrain_writer;


--
-- Name: SEQUENCE eval_candidates_id_seq; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON SEQUENCE brain.eval_candidates_id_seq TO pgbrain_owner;
GRANT SELECT,USAGE ON SEQUENCE brain.eval_candidates_id_seq TO pgbrain_writer;
GRANT USAGE ON SEQUENCE brain.eval_candidates_id_seq TO pgbrain_reader;
GRANT USAGE ON SEQUENCE brain.eval_candidates_id_seq TO pgbrain_agent;


--
-- Name: TABLE eval_capture_failures; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.eval_capture_failures TO pgbrain_owner;
GRANT SELECT,INSERT ON TABLE brain.eval_capture_failures TO pgbrain_reader;
GRANT INSERT ON TABLE brain.eval_capture_failures TO pgbrain_agent;


--
-- Name: SEQUENCE eval_capture_failures_id_seq; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON SEQUENCE brain.eval_capture_failures_id_seq TO pgbrain_owner;
GRANT SELECT,USAGE ON SEQUENCE brain.eval_capture_failures_id_seq TO pgbrain_writer;
GRANT USAGE ON SEQUENCE brain.eval_capture_failures_id_seq TO pgbrain_reader;
GRANT USAGE ON SEQUENCE brain.eval_capture_failures_id_seq TO pgbrain_agent;


--
-- Name: SEQUENCE eval_contradiction_runs_id_seq; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON SEQUENCE brain.eval_contradiction_runs_id_seq TO pgbrain_owner;
GRANT SELECT,USAGE ON SEQUENCE brain.eval_contradiction_runs_id_seq TO pgbrain_writer;


--
-- Name: TABLE eval_export; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.eval_export TO pgbrain_owner;
GRANT SELECT ON TABLE brain.eval_export TO pgbrain_reader;


--
-- Name: TABLE eval_nightly_runs; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.eval_nightly_runs TO pgbrain_owner;


--
-- Name: SEQUENCE eval_nightly_runs_id_seq; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON SEQUENCE brain.eval_nightly_runs_id_seq TO pgbrain_owner;
GRANT SELECT,USAGE ON SEQUENCE brain.eval_nightly_runs_id_seq TO pgbrain_writer;


--
-- Name: TABLE import_folders; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.import_folders TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.import_folders TO pgbrain_writer;


--
-- Name: TABLE mcp_tokens; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.mcp_tokens TO pgbrain_owner;
GRANT SELECT ON TABLE brain.mcp_tokens TO pgbrain_agent;


--
-- Name: SEQUENCE mcp_tokens_id_seq; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON SEQUENCE brain.mcp_tokens_id_seq TO pgbrain_owner;
GRANT SELECT,USAGE ON SEQUENCE brain.mcp_tokens_id_seq TO pgbrain_writer;


--
-- Name: TABLE page_chunks_pending; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.page_chunks_pending TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.page_chunks_pending TO pgbrain_writer;
GRANT SELECT ON TABLE brain.page_chunks_pending TO pgbrain_reader;


--
-- Name: SEQUENCE pages_id_seq; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON SEQUENCE brain.pages_id_seq TO pgbrain_owner;
GRANT SELECT,USAGE ON SEQUENCE brain.pages_id_seq TO pgbrain_writer;


--
-- Name: TABLE query_expansions; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.query_expansions TO pgbrain_owner;
GRANT SELECT,INSERT,UPDATE ON TABLE brain.query_expansions TO pgbrain_reader;
GRANT SELECT,INSERT,UPDATE ON TABLE brain.query_expansions TO pgbrain_agent;


--
-- Name: TABLE source_boosts; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.source_boosts TO pgbrain_owner;
GRANT SELECT ON TABLE brain.source_boosts TO pgbrain_writer;
GRANT SELECT ON TABLE brain.source_boosts TO pgbrain_reader;
GRANT SELECT ON TABLE brain.source_boosts TO pgbrain_agent;


--
-- Name: TABLE sources; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.sources TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.sources TO pgbrain_writer;
GRANT SELECT ON TABLE brain.sources TO pgbrain_reader;
GRANT SELECT ON TABLE brain.sources TO pgbrain_agent;


--
-- Name: TABLE term_stats; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.term_stats TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.term_stats TO pgbrain_writer;
GRANT SELECT ON TABLE brain.term_stats TO pgbrain_reader;


--
-- Name: TABLE vector_index_state; Type: ACL; Schema: brain; Owner: -
--

GRANT ALL ON TABLE brain.vector_index_state TO pgbrain_owner;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE brain.vector_index_state TO pgbrain_writer;
GRANT SELECT ON TABLE brain.vector_index_state TO pgbrain_reader;
GRANT SELECT ON TABLE brain.vector_index_state TO pgbrain_agent;


--
-- Name: TABLE pgbrain_schema_version; Type: ACL; Schema: public; Owner: -
--

GRANT SELECT ON TABLE public.pgbrain_schema_version TO pgbrain_owner;
GRANT SELECT ON TABLE public.pgbrain_schema_version TO pgbrain_writer;
GRANT SELECT ON TABLE public.pgbrain_schema_version TO pgbrain_reader;
GRANT SELECT ON TABLE public.pgbrain_schema_version TO pgbrain_agent;
GRANT SELECT ON TABLE public.pgbrain_schema_version TO pgbrain_auditor;


--
-- PostgreSQL database dump complete
--


