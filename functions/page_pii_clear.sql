-- brain.page_pii_clear(source_id, slug): drops a page's classification,
-- whatever its origin, so the next heuristic classification (which the
-- caller runs in the same transaction) is stored again. Returns the page id;
-- an unknown page is an error naming it.
CREATE OR REPLACE FUNCTION brain.page_pii_clear(p_source text, p_slug text)
RETURNS bigint
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	pid bigint;
BEGIN
	SELECT id INTO pid FROM brain.pages WHERE source_id = p_source AND slug = p_slug;
	IF pid IS NULL THEN
		RAISE EXCEPTION 'no page % in source %', p_slug, p_source
			USING ERRCODE = 'no_data_found', HINT = 'list pages with: pgbrain list';
	END IF;
	DELETE FROM brain.page_pii WHERE page_id = pid;
	RETURN pid;
END
$fn$;
