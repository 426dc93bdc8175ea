-- The local embedder as schema version 5 defined it, in numeric
-- arithmetic: migration 6 promises the same vectors from cheaper arithmetic
-- in one pass (TestEmbedLocalKeepsItsFeatures).
CREATE FUNCTION pg_temp.embed_v1(doc tsvector) RETURNS vector(256)
LANGUAGE sql IMMUTABLE AS $fn$
	SELECT l2_normalize(
		format('{%s}/256', string_agg(format('%s:%s', b + 1, w), ',' ORDER BY b))::sparsevec::vector(256))
	FROM (
		SELECT b, sum(w) AS w
		FROM (
			SELECT (hashtext(lexeme) & 2147483647) % 256 AS b,
			       CASE WHEN hashtext('~' || lexeme) & 1 = 0 THEN 1.0 ELSE -1.0 END
			       * (1.0 + ln(coalesce(array_length(positions, 1), 1)))
			       * CASE WHEN 'A' = ANY (weights) THEN 2.0 ELSE 1.0 END AS w
			FROM unnest(coalesce(doc, ''::tsvector))
		) f
		GROUP BY b
	) g
	WHERE w <> 0
	HAVING count(*) > 0
$fn$;
