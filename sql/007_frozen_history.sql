-- 007_frozen_history: every function of the brain schema resolves the names
-- it uses the same way whatever search_path its caller has set.
--
-- Guarantees: SQL-language functions that stored data depends on (tsvectors,
-- local vectors, BM25 lengths, audit hashes, the PII CHECK helpers) get
-- SQL-standard bodies, whose names are resolved once, when the function is
-- created, and which the planner can still inline into the queries that call
-- them (a SET clause would forbid that, and costs import time per chunk);
-- they compute exactly what they computed before. Every other function pins
-- its search_path to brain, the schema holding pgvector, then pg_temp (the
-- audit chain trigger keeps its own). From this migration on, the functions
-- and views listed in functions/install.sql are re-applied by every migrate
-- whose copy differs, so they are no longer part of migrations.

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.pii_taxonomy(): the closed, twelve-name PII taxonomy, sorted (C
-- collation). CHECK constraints on brain.audit_log and brain.page_pii use it,
-- so no other name can ever be stored; the names match client/pii.
CREATE OR REPLACE FUNCTION brain.pii_taxonomy() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT ARRAY['behavioral', 'biometric', 'contact', 'credential',
	             'demographic_protected', 'financial', 'genetic', 'government_id',
	             'health', 'location', 'online_identifier', 'payment_card']::text[];
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.pii_categories_valid(c): true when c is a one-dimensional list of
-- taxonomy names, sorted byte-wise and free of duplicates and NULLs. Used by
-- CHECK constraints: a stored category list has exactly one spelling, which
-- is what makes fingerprints and chain hashes reproducible.
CREATE OR REPLACE FUNCTION brain.pii_categories_valid(c text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT c IS NOT NULL
	   AND coalesce(array_ndims(c), 1) = 1
	   AND coalesce(array_lower(c, 1), 1) = 1
	   AND c <@ brain.pii_taxonomy()
	   AND array_position(c, NULL) IS NULL
	   AND c = ARRAY(SELECT DISTINCT v COLLATE "C" FROM unnest(c) v ORDER BY 1);
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.pii_sensitivity(c): the sensitivity a category list implies, the
-- highest of its members. high: the refusal floor (credential, payment_card,
-- government_id) and the GDPR Art. 9 special categories (health, genetic,
-- biometric, demographic_protected); moderate: financial, location,
-- behavioral; low: contact, online_identifier; none: no category.
CREATE OR REPLACE FUNCTION brain.pii_sensitivity(c text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT CASE
		WHEN c && ARRAY['credential', 'payment_card', 'government_id', 'health',
		                'genetic', 'biometric', 'demographic_protected']::text[] THEN 'high'
		WHEN c && ARRAY['financial', 'location', 'behavioral']::text[] THEN 'moderate'
		WHEN cardinality(c) > 0 THEN 'low'
		ELSE 'none'
	END;
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.audit_field(v): one field of the audit log's hashed byte forms: the
-- 4-byte big-endian length of v's UTF-8 bytes followed by those bytes, or the
-- four bytes ff ff ff ff for NULL. Length prefixes make the concatenation of
-- fields unambiguous ("ab","c" and "a","bc" hash differently). See
-- docs/audit.md.
CREATE OR REPLACE FUNCTION brain.audit_field(v text) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT CASE
		WHEN v IS NULL THEN '\xffffffff'::bytea
		ELSE int4send(octet_length(convert_to(v, 'UTF8'))) || convert_to(v, 'UTF8')
	END;
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.audit_canonical_row(r): the documented byte form (version 1) of every
-- hashed column of an audit row, the input of its chain hash:
--   F('pgbrain.audit.row.v1') || F(id) || F(occurred_at) || F(session_id)
--   || F(caller) || F(tool_name) || F(status) || F(refusal_reason)
--   || F(pii_categories joined by ',') || F(cost_class) || F(fingerprint)
--   || F(fingerprint_version)
-- with F = brain.audit_field, id and fingerprint_version in decimal, and
-- occurred_at in UTC as YYYY-MM-DDTHH:MM:SS.ffffffZ. Text forms (not the
-- server's binary ones) keep it independent of TimeZone, DateStyle and
-- PostgreSQL versions, so an auditor can recompute it (docs/audit.md).
CREATE OR REPLACE FUNCTION brain.audit_canonical_row(r brain.audit_log) RETURNS bytea
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT brain.audit_field('pgbrain.audit.row.v1')
		|| brain.audit_field(r.id::text)
		|| brain.audit_field(to_char(r.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
		|| brain.audit_field(r.session_id)
		|| brain.audit_field(r.caller)
		|| brain.audit_field(r.tool_name)
		|| brain.audit_field(r.status)
		|| brain.audit_field(r.refusal_reason)
		|| brain.audit_field(array_to_string(r.pii_categories, ','))
		|| brain.audit_field(r.cost_class)
		|| brain.audit_field(r.fingerprint)
		|| brain.audit_field(r.fingerprint_version::text);
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.audit_fingerprint(tool, status, refusal_reason, pii_categories,
-- cost_class): fingerprint version 1 of a tool call, lower-case hex of
--   sha256(F('pgbrain.audit.fingerprint.v1') || F(tool) || F(status)
--          || F(refusal_reason) || F(categories joined by ',') || F(cost_class))
-- where F is brain.audit_field and the categories are normalised (sorted,
-- distinct). Structural metadata only: no query text, page content or ids,
-- so it can leave the database (as the OTel gen_ai.tool.call.id) safely.
-- client/audit.Fingerprint computes the same value in Go.
CREATE OR REPLACE FUNCTION brain.audit_fingerprint(
	tool text, status text, refusal_reason text, pii_categories text[], cost_class text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT encode(sha256(
		brain.audit_field('pgbrain.audit.fingerprint.v1')
		|| brain.audit_field(tool)
		|| brain.audit_field(status)
		|| brain.audit_field(refusal_reason)
		|| brain.audit_field(array_to_string(brain.pii_normalize(pii_categories), ','))
		|| brain.audit_field(cost_class)), 'hex');
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.embedder(): the name of the brain's configured embedder ('local' or
-- 'openai'), read from brain.config. Triggers and brain.query use it to decide
-- whether vectors can be computed inside the database.
CREATE OR REPLACE FUNCTION brain.embedder() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT coalesce((SELECT value FROM brain.config WHERE key = 'embedder'), 'local');
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.chunk_tsv(title, text, chunk_source): the tsvector stored for a chunk.
--
-- Guarantees: the page title is weighted A, compiled-truth text B and
-- timeline text C, so a title match outranks a body match and timeline
-- entries rank below the compiled truth. Uses the english configuration, the
-- same one every search function parses queries with.
CREATE OR REPLACE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
	    || setweight(to_tsvector('english'::regconfig, coalesce(body, '')),
	                 CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char");
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
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
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	-- greatest() skips NULL: a lexeme without positions counts once.
	SELECT coalesce(sum(greatest(cardinality(positions), 1)), 0)::int
	FROM unnest(coalesce(doc, ''::tsvector));
END;

CREATE OR REPLACE FUNCTION brain.tsquery_terms(q tsquery) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	-- querytree() drops negated operands; lexemes print quoted with '' and \\ escaped.
	SELECT coalesce(array_agg(DISTINCT replace(replace(m[1], '''''', ''''), '\\', '\')), '{}')
	FROM regexp_matches(querytree(q), '''((?:[^'']|'''')*)''', 'g') AS m;
END;

CREATE OR REPLACE FUNCTION brain.term_stats_rebuild() RETURNS void
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	DELETE FROM brain.term_stats;
	INSERT INTO brain.term_stats (lexeme, doc_freq)
	SELECT u.lexeme, count(*) FROM brain.chunks c, unnest(tsvector_to_array(c.tsv)) AS u (lexeme) GROUP BY u.lexeme;
	UPDATE brain.corpus_stats
	SET n_docs = (SELECT count(*) FROM brain.chunks),
	    total_len = (SELECT coalesce(sum(doc_len), 0) FROM brain.chunks);
END
$fn$;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
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
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
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
	) g;
END;

CREATE OR REPLACE FUNCTION brain.embed_tsvector(doc tsvector) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT (brain.tsv_features(doc)).embedding;
END;

CREATE OR REPLACE FUNCTION brain.embed_local(t text) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT brain.embed_tsvector(to_tsvector('english'::regconfig, coalesce(t, '')));
END;

DO $pin$
DECLARE
	f regprocedure;
BEGIN
	FOR f IN
		SELECT p.oid::regprocedure FROM pg_proc p
		WHERE p.pronamespace = 'brain'::regnamespace
		  AND p.prosqlbody IS NULL
		  AND NOT EXISTS (SELECT FROM unnest(p.proconfig) c WHERE c LIKE 'search\_path=%')
		ORDER BY p.oid
	LOOP
		EXECUTE format('ALTER FUNCTION %s SET search_path = brain, {{.vector_schema}}, pg_temp', f);
	END LOOP;
END
$pin$;

UPDATE brain.config SET value = '7' WHERE key = 'schema_version';
