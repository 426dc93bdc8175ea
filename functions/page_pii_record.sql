-- brain.page_pii_record(page_ids, categories): stores heuristic
-- classifications, categories[i] being the comma-separated list for
-- page_ids[i]. Guarantees: a page an operator has tagged (origin 'operator')
-- is never overwritten; an unchanged classification is not rewritten (its
-- updated_at stays) unless it is stale, and recording makes it current;
-- a stale operator tag becomes current with the heuristic categories added
-- to the operator's (content changed since the operator looked: fail
-- closed, never drop what the operator said); names are normalised and
-- unknown names refused. Returns how many rows were written.
CREATE OR REPLACE FUNCTION brain.page_pii_record(page_ids bigint[], categories text[])
RETURNS bigint
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	n bigint;
BEGIN
	IF cardinality(page_ids) IS DISTINCT FROM cardinality(categories) THEN
		RAISE EXCEPTION 'page_pii_record: % page ids but % category lists',
			cardinality(page_ids), cardinality(categories)
			USING ERRCODE = 'invalid_parameter_value',
			      HINT = 'pass one comma-separated category list per page id';
	END IF;
	INSERT INTO brain.page_pii AS t (page_id, categories, origin, updated_at)
	SELECT u.page_id, brain.pii_normalize(string_to_array(u.csv, ',')), 'heuristic', now()
	FROM unnest(page_ids, categories) AS u (page_id, csv)
	ON CONFLICT (page_id) DO UPDATE
		SET categories = CASE WHEN t.origin = 'operator'
		                      THEN brain.pii_normalize(t.categories || EXCLUDED.categories)
		                      ELSE EXCLUDED.categories END,
		    stale = false, updated_at = now()
		WHERE t.stale OR (t.origin = 'heuristic' AND t.categories IS DISTINCT FROM EXCLUDED.categories);
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$fn$;
