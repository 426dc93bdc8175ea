-- brain.page_pii_override(source_id, slug, categories): an operator's
-- classification of one page (origin 'operator'), which heuristic
-- re-classification on import or put never overwrites; it is current (not
-- stale) until the page's slug, title or body changes. Unknown names and
-- unknown pages are errors naming the input. Returns the stored row.
CREATE OR REPLACE FUNCTION brain.page_pii_override(p_source text, p_slug text, p_categories text[])
RETURNS brain.page_pii
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	pid bigint;
	out brain.page_pii;
BEGIN
	SELECT id INTO pid FROM brain.pages WHERE source_id = p_source AND slug = p_slug;
	IF pid IS NULL THEN
		RAISE EXCEPTION 'no page % in source %', p_slug, p_source
			USING ERRCODE = 'no_data_found', HINT = 'list pages with: pgbrain list';
	END IF;
	INSERT INTO brain.page_pii AS t (page_id, categories, origin, updated_at)
	VALUES (pid, brain.pii_normalize(p_categories), 'operator', now())
	ON CONFLICT (page_id) DO UPDATE
		SET categories = EXCLUDED.categories, origin = 'operator', stale = false, updated_at = now()
	RETURNING t.* INTO out;
	RETURN out;
END
$fn$;
