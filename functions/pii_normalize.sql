-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.pii_normalize(c): c trimmed, lower-cased, de-duplicated and sorted
-- byte-wise; NULL becomes the empty list. An unknown name is an error that
-- lists the twelve valid names, so a typo never silently weakens a tag set.
CREATE OR REPLACE FUNCTION brain.pii_normalize(c text[]) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
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
