-- longmemeval.fingerprint(t): the md5 of table t's rows in a fixed order,
-- so reset() can tell whether a question changed a seeded table.

CREATE FUNCTION longmemeval.fingerprint(t regclass) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
	f text;
BEGIN
	EXECUTE format('SELECT md5(coalesce(string_agg(x::text, E''\n'' ORDER BY x::text), '''')) FROM %s x', t) INTO f;
	RETURN f;
END
$fn$;
