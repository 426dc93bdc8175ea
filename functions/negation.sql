-- brain.negated_tsquery(words) and brain.without_negated(ids, neg): a
-- -word excludes pages, not only chunks (docs/retrieval.md, "Query
-- grammar").
--
-- Guarantees: negated_tsquery is the OR of the tsqueries of the negated
-- words (brain.parse_query's info -> 'negated', each read like a query word
-- by brain.words_tsquery), NULL when there are none. without_negated keeps,
-- in their order, the chunks of ids whose page holds no chunk matching neg
-- (as the caller sees the page's chunks), and every chunk of ids when neg
-- is NULL. Cost: one look-up of the page's chunks for each id, only when
-- the query has a negation.
CREATE OR REPLACE FUNCTION brain.negated_tsquery(words jsonb) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	w text;
	g tsquery;
	neg tsquery;
BEGIN
	IF jsonb_typeof(words) IS DISTINCT FROM 'array' THEN
		RETURN NULL;
	END IF;
	FOR w IN SELECT jsonb_array_elements_text(words) LOOP
		g := brain.words_tsquery(w);
		IF g IS NOT NULL THEN
			neg := CASE WHEN neg IS NULL THEN g ELSE neg || g END;
		END IF;
	END LOOP;
	RETURN neg;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.without_negated(ids bigint[], neg tsquery) RETURNS bigint[]
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	IF neg IS NULL OR cardinality(ids) IS NULL OR cardinality(ids) = 0 THEN
		RETURN coalesce(ids, '{}');
	END IF;
	RETURN ARRAY(
		SELECT u.id FROM unnest(ids) WITH ORDINALITY AS u (id, o)
		JOIN brain.chunks c ON c.id = u.id
		WHERE NOT EXISTS (SELECT 1 FROM brain.chunks c2 WHERE c2.page_id = c.page_id AND c2.tsv @@ neg)
		ORDER BY u.o);
END
$fn$;
