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
