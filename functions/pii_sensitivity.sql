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
