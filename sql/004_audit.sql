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

{{ template "functions/pii_taxonomy.sql" . }}
{{ template "functions/pii_categories_valid.sql" . }}
{{ template "functions/pii_normalize.sql" . }}
{{ template "functions/pii_sensitivity.sql" . }}
{{ template "functions/audit_field.sql" . }}
{{ template "functions/audit_fingerprint.sql" . }}

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

{{ template "functions/audit_canonical_row.sql" . }}
{{ template "functions/audit_verify.sql" . }}
{{ template "triggers/audit_log_append_only.sql" . }}
{{ template "triggers/audit_log_chain.sql" . }}

CREATE TABLE brain.page_pii (
	page_id     bigint PRIMARY KEY REFERENCES brain.pages (id) ON DELETE CASCADE,
	categories  text[] NOT NULL DEFAULT '{}' CHECK (brain.pii_categories_valid(categories)),
	sensitivity text NOT NULL GENERATED ALWAYS AS (brain.pii_sensitivity(categories)) STORED
		CHECK (sensitivity IN ('none', 'low', 'moderate', 'high')),
	origin      text NOT NULL DEFAULT 'heuristic' CHECK (origin IN ('heuristic', 'operator')),
	updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX page_pii_categories_gin ON brain.page_pii USING gin (categories);

{{ template "functions/page_pii_record.sql" . }}
{{ template "functions/page_pii_override.sql" . }}
{{ template "functions/page_pii_clear.sql" . }}
{{ template "functions/pages_pii_categories.sql" . }}

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
