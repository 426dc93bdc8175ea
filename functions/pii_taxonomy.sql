-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.pii_taxonomy(): the closed, twelve-name PII taxonomy, sorted (C
-- collation). CHECK constraints on brain.audit_log and brain.page_pii use it,
-- so no other name can ever be stored; the names match internal/pii.
CREATE OR REPLACE FUNCTION brain.pii_taxonomy() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT ARRAY['behavioral', 'biometric', 'contact', 'credential',
	             'demographic_protected', 'financial', 'genetic', 'government_id',
	             'health', 'location', 'online_identifier', 'payment_card']::text[];
END;
