-- 004_audit: the tamper-evident audit log of tool calls and the PII
-- classification of pages.
--
-- Guarantees: brain.audit_log holds one row per tool call with structural
-- metadata only (no query text, no page content); it is append-only for
-- every role and hash-chained inside the database, so any number of writer
-- processes produce one gapless chain that brain.audit_verify can check
-- with one SQL call. Writers get INSERT on the writable columns only
-- (pgbrain_audit_writer), auditors read-only access (pgbrain_auditor).
-- brain.page_pii holds each page's categories from the closed 12-name
-- taxonomy, with a sensitivity derived from them in the database.

-- brain.pii_taxonomy(): the closed, twelve-name PII taxonomy, sorted (C
-- collation). CHECK constraints on brain.audit_log and brain.page_pii use it,
-- so no other name can ever be stored; the names match client/pii.
CREATE OR REPLACE FUNCTION brain.pii_taxonomy() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT ARRAY['behavioral', 'biometric', 'contact', 'credential',
	             'demographic_protected', 'financial', 'genetic', 'government_id',
	             'health', 'location', 'online_identifier', 'payment_card']::text[]
$fn$;
-- brain.pii_categories_valid(c): true when c is a one-dimensional list of
-- taxonomy names, sorted byte-wise and free of duplicates and NULLs. Used by
-- CHECK constraints: a stored category list has exactly one spelling, which
-- is what makes fingerprints and chain hashes reproducible.
CREATE OR REPLACE FUNCTION brain.pii_categories_valid(c text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT c IS NOT NULL
	   AND coalesce(array_ndims(c), 1) = 1
	   AND coalesce(array_lower(c, 1), 1) = 1
	   AND c <@ brain.pii_taxonomy()
	   AND array_position(c, NULL) IS NULL
	   AND c = ARRAY(SELECT DISTINCT v COLLATE "C" FROM unnest(c) v ORDER BY 1)
$fn$;
-- brain.pii_normalize(c): c trimmed, lower-cased, de-duplicated and sorted
-- byte-wise; NULL becomes the empty list. An unknown name is an error that
-- lists the twelve valid names, so a typo never silently weakens a tag set.
CREATE OR REPLACE FUNCTION brain.pii_normalize(c text[]) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
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
$fn$;
-- brain.pii_sensitivity(c): the sensitivity a category list implies, the
-- highest of its members. high: the refusal floor (credential, payment_card,
-- government_id) and the GDPR Art. 9 special categories (health, genetic,
-- biometric, demographic_protected); moderate: financial, location,
-- behavioral; low: contact, online_identifier; none: no category.
CREATE OR REPLACE FUNCTION brain.pii_sensitivity(c text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT CASE
		WHEN c && ARRAY['credential', 'payment_card', 'government_id', 'health',
		                'genetic', 'biometric', 'demographic_protected']::text[] THEN 'high'
		WHEN c && ARRAY['financial', 'location', 'behavioral']::text[] THEN 'moderate'
		WHEN cardinality(c) > 0 THEN 'low'
		ELSE 'none'
	END
$fn$;
-- brain.audit_field(v): one field of the audit log's hashed byte forms: the
-- 4-byte big-endian length of v's UTF-8 bytes followed by those bytes, or the
-- four bytes ff ff ff ff for NULL. Length prefixes make the concatenation of
-- fields unambiguous ("ab","c" and "a","bc" hash differently). See
-- docs/audit.md.
CREATE OR REPLACE FUNCTION brain.audit_field(v text) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT CASE
		WHEN v IS NULL THEN '\xffffffff'::bytea
		ELSE int4send(octet_length(convert_to(v, 'UTF8'))) || convert_to(v, 'UTF8')
	END
$fn$;
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
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT encode(sha256(
		brain.audit_field('pgbrain.audit.fingerprint.v1')
		|| brain.audit_field(tool)
		|| brain.audit_field(status)
		|| brain.audit_field(refusal_reason)
		|| brain.audit_field(array_to_string(brain.pii_normalize(pii_categories), ','))
		|| brain.audit_field(cost_class)), 'hex')
$fn$;

CREATE TABLE brain.audit_log (
	-- id, occurred_at, prev_hash, fingerprint, fingerprint_version and
	-- chain_hash are always set by the audit_log_10_chain trigger.
	id                  bigint PRIMARY KEY CHECK (id > 0),
	occurred_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
	session_id          text NOT NULL CHECK (octet_length(session_id) BETWEEN 1 AND 128
	                                         AND session_id ~ '^[A-Za-z0-9._:-]+$'),
	caller              text NOT NULL DEFAULT '' CHECK (octet_length(caller) <= 256
	                                                    AND caller !~ '[[:cntrl:]]'),
	tool_name           text NOT NULL CHECK (tool_name ~ '^[a-z][a-z0-9_]{0,63}$'),
	status              text NOT NULL CHECK (status IN ('success', 'empty', 'partial', 'degraded', 'error', 'refused')),
	refusal_reason      text CHECK (refusal_reason ~ '^[a-z][a-z0-9_]{0,63}$'),
	pii_categories      text[] NOT NULL DEFAULT '{}' CHECK (brain.pii_categories_valid(pii_categories)),
	cost_class          text NOT NULL CHECK (cost_class ~ '^[a-z][a-z0-9_]{0,31}$'),
	fingerprint         text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
	fingerprint_version smallint NOT NULL DEFAULT 1 CHECK (fingerprint_version = 1),
	prev_hash           bytea NOT NULL CHECK (octet_length(prev_hash) = 32),
	chain_hash          bytea NOT NULL CHECK (octet_length(chain_hash) = 32),
	-- A refusal always says why; nothing else carries a refusal reason.
	CONSTRAINT audit_log_refusal_reason CHECK ((status = 'refused') = (refusal_reason IS NOT NULL))
);

CREATE INDEX audit_log_occurred_at_idx ON brain.audit_log (occurred_at);

COMMENT ON TABLE brain.audit_log IS
	'Append-only, hash-chained log of tool calls; check it with SELECT * FROM brain.audit_verify(true). Byte forms: docs/audit.md.';

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
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
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
		|| brain.audit_field(r.fingerprint_version::text)
$fn$;
-- brain.audit_verify(full, since_id, window_rows): the audit rows whose
-- stored values do not match the chain, one result row per problem, ordered
-- by id; no result means the checked part of the chain is valid.
--   missing_rows         ids are not contiguous (rows were deleted)
--   broken_link          prev_hash is not the previous row's chain_hash
--                        (or the genesis, 32 zero bytes, for row 1)
--   hash_mismatch        chain_hash is not sha256(prev_hash || canonical row)
--   fingerprint_mismatch fingerprint does not match the row's own columns
--   invalid_categories   pii_categories is not a sorted taxonomy list
-- full = true checks every row. Otherwise the rows from since_id on are
-- checked, or without since_id the newest window_rows rows; the first
-- checked row is still linked to its predecessor's stored chain_hash. A
-- coherent rewrite of the whole tail is detectable only against a chain_hash
-- kept outside the database (docs/audit.md).
CREATE OR REPLACE FUNCTION brain.audit_verify(
	full boolean DEFAULT false, since_id bigint DEFAULT NULL, window_rows bigint DEFAULT 10000)
RETURNS TABLE (id bigint, problem text, detail text)
LANGUAGE sql STABLE AS $fn$
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
$fn$;
-- audit_log_00_append_only: brain.audit_log only ever grows. UPDATE
-- (including INSERT ... ON CONFLICT DO UPDATE), DELETE and TRUNCATE are
-- refused for every role, superusers included, and even when no row would
-- be affected. ENABLE ALWAYS keeps it firing under
-- session_replication_role = replica; only the table owner or a superuser
-- can switch it off (ALTER TABLE ... DISABLE TRIGGER), and what they then
-- change is caught by brain.audit_verify.
CREATE OR REPLACE FUNCTION brain.audit_log_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	RAISE EXCEPTION 'brain.audit_log is append-only: % is refused', TG_OP
		USING ERRCODE = 'insufficient_privilege',
		      HINT = 'audit rows are never changed or removed; check the chain with SELECT * FROM brain.audit_verify(true)';
END
$fn$;

DROP TRIGGER IF EXISTS audit_log_00_append_only ON brain.audit_log;
CREATE TRIGGER audit_log_00_append_only
	BEFORE UPDATE OR DELETE OR TRUNCATE ON brain.audit_log
	FOR EACH STATEMENT EXECUTE FUNCTION brain.audit_log_refuse_change();
ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_00_append_only;
-- audit_log_10_chain: every audit row is linked into one hash chain by the
-- database, whoever inserts it. Under a transaction-scoped advisory lock
-- (key pair 1885823602 = 'pgbr', 1), which serialises writers until commit,
-- the trigger reads the newest committed row and sets
--   id          = previous id + 1 (1 for the first row: no gaps)
--   prev_hash   = previous chain_hash (genesis: 32 zero bytes)
--   occurred_at = clock_timestamp() (writers cannot back-date a row)
--   fingerprint = brain.audit_fingerprint(...), fingerprint_version = 1
--   chain_hash  = sha256(prev_hash || brain.audit_canonical_row(row))
-- overriding whatever the writer supplied. The lock is released only after
-- the commit is visible, so the next writer (READ COMMITTED, the default)
-- sees this row; a writer with an older snapshot (REPEATABLE READ) computes a
-- taken id and fails on the primary key instead of forking the chain.
-- SECURITY DEFINER: writers need no SELECT privilege to extend the chain.
-- ENABLE ALWAYS: it fires under session_replication_role = replica as well.
CREATE OR REPLACE FUNCTION brain.audit_log_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
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
$fn$;

DROP TRIGGER IF EXISTS audit_log_10_chain ON brain.audit_log;
CREATE TRIGGER audit_log_10_chain
	BEFORE INSERT ON brain.audit_log
	FOR EACH ROW EXECUTE FUNCTION brain.audit_log_chain();
ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_10_chain;

CREATE TABLE brain.page_pii (
	page_id     bigint PRIMARY KEY REFERENCES brain.pages (id) ON DELETE CASCADE,
	categories  text[] NOT NULL DEFAULT '{}' CHECK (brain.pii_categories_valid(categories)),
	sensitivity text NOT NULL GENERATED ALWAYS AS (brain.pii_sensitivity(categories)) STORED
		CHECK (sensitivity IN ('none', 'low', 'moderate', 'high')),
	origin      text NOT NULL DEFAULT 'heuristic' CHECK (origin IN ('heuristic', 'operator')),
	updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX page_pii_categories_gin ON brain.page_pii USING gin (categories);

-- brain.page_pii_record(page_ids, categories): stores heuristic
-- classifications, categories[i] being the comma-separated list for
-- page_ids[i]. Guarantees: a page an operator has tagged (origin 'operator')
-- is never overwritten; an unchanged classification is not rewritten (its
-- updated_at stays); names are normalised and unknown names refused.
-- Returns how many rows were written.
CREATE OR REPLACE FUNCTION brain.page_pii_record(page_ids bigint[], categories text[])
RETURNS bigint
LANGUAGE plpgsql AS $fn$
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
$fn$;
-- brain.page_pii_override(source_id, slug, categories): an operator's
-- classification of one page (origin 'operator'), which heuristic
-- re-classification on import or put never overwrites. Unknown names and
-- unknown pages are errors naming the input. Returns the stored row.
CREATE OR REPLACE FUNCTION brain.page_pii_override(p_source text, p_slug text, p_categories text[])
RETURNS brain.page_pii
LANGUAGE plpgsql AS $fn$
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
$fn$;
-- brain.page_pii_clear(source_id, slug): drops a page's classification,
-- whatever its origin, so the next heuristic classification (which the
-- caller runs in the same transaction) is stored again. Returns the page id;
-- an unknown page is an error naming it.
CREATE OR REPLACE FUNCTION brain.page_pii_clear(p_source text, p_slug text)
RETURNS bigint
LANGUAGE plpgsql AS $fn$
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
$fn$;
-- brain.pages_pii_categories(page_ids): the sorted union of the PII
-- categories of the given pages, in one query: what a tool call touching
-- those pages records in the audit log and checks against the refusal
-- policy. Pages without a classification contribute nothing.
CREATE OR REPLACE FUNCTION brain.pages_pii_categories(page_ids bigint[]) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
	SELECT coalesce(array_agg(DISTINCT c COLLATE "C" ORDER BY c COLLATE "C"), '{}')
	FROM brain.page_pii p, unnest(p.categories) c
	WHERE p.page_id = ANY (page_ids)
$fn$;

-- Roles are cluster-wide and shared by every database of the cluster, so
-- they are created only when missing; a concurrent migration of another
-- database may create them first, which is fine.
DO $roles$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['pgbrain_audit_writer', 'pgbrain_auditor'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			BEGIN
				EXECUTE format('CREATE ROLE %I NOLOGIN', r);
			EXCEPTION WHEN duplicate_object OR unique_violation THEN
				NULL;
			END;
		END IF;
	END LOOP;
END
$roles$;

REVOKE ALL ON brain.audit_log FROM PUBLIC;
GRANT USAGE ON SCHEMA brain TO pgbrain_audit_writer, pgbrain_auditor;
-- Writers may supply only the call's own columns; the chain columns are the
-- trigger's. No SELECT: a writer cannot read what others recorded.
GRANT INSERT (session_id, caller, tool_name, status, refusal_reason, pii_categories, cost_class)
	ON brain.audit_log TO pgbrain_audit_writer;
GRANT SELECT ON brain.audit_log TO pgbrain_auditor;

UPDATE brain.config SET value = '4' WHERE key = 'schema_version';
