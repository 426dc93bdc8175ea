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
