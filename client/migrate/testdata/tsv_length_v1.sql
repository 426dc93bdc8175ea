-- The BM25 document length as schema version 5 defined it: migration 6
-- promises the same lengths (TestEmbedLocalKeepsItsFeatures).
CREATE FUNCTION pg_temp.tsv_length_v1(doc tsvector) RETURNS int
LANGUAGE sql IMMUTABLE AS $fn$
	SELECT coalesce(sum(coalesce(cardinality(positions), 0) + CASE WHEN positions IS NULL OR cardinality(positions) = 0 THEN 1 ELSE 0 END), 0)::int
	FROM unnest(coalesce(doc, ''::tsvector))
$fn$;
