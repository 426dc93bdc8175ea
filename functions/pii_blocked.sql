-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.pii_blocked(): the categories that hide a page from agents: the
-- floor and brain.pii_policy, sorted (C collation).
CREATE OR REPLACE FUNCTION brain.pii_blocked() RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT array_agg(DISTINCT c COLLATE "C" ORDER BY c COLLATE "C")
	FROM (SELECT unnest(ARRAY['credential', 'government_id', 'payment_card']::text[])
	      UNION ALL SELECT p.category FROM brain.pii_policy p) AS u (c);
END;
