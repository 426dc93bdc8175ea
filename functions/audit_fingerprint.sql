-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.audit_fingerprint(tool, status, refusal_reason, pii_categories,
-- cost_class): fingerprint version 1 of a tool call, lower-case hex of
--   sha256(F('pgbrain.audit.fingerprint.v1') || F(tool) || F(status)
--          || F(refusal_reason) || F(categories joined by ',') || F(cost_class))
-- where F is brain.audit_field and the categories are normalised (sorted,
-- distinct). Structural metadata only: no query text, page content or ids,
-- so it can leave the database (as the OTel gen_ai.tool.call.id) safely.
-- internal/audit.Fingerprint computes the same value in Go.
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
