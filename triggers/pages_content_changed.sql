-- pages_10_content_changed (INSERT and UPDATE, one statement at a time):
-- a page whose slug, title or body changed has a stale classification; a
-- new page or a changed body is pending chunking until chunks of the page
-- are inserted (chunks_pending_done). Statement-level with transition
-- tables, so a bulk import pays one join per batch.
CREATE OR REPLACE FUNCTION brain.pages_content_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO brain.page_chunks_pending (page_id)
		SELECT n.id FROM new_pages n
		ON CONFLICT (page_id) DO NOTHING;
		RETURN NULL;
	END IF;
	UPDATE brain.page_pii t SET stale = true
	FROM old_pages o JOIN new_pages n ON n.id = o.id
	WHERE t.page_id = n.id AND NOT t.stale
	  AND (o.slug IS DISTINCT FROM n.slug OR o.title IS DISTINCT FROM n.title OR o.body IS DISTINCT FROM n.body);
	INSERT INTO brain.page_chunks_pending (page_id)
	SELECT n.id FROM old_pages o JOIN new_pages n ON n.id = o.id
	WHERE o.body IS DISTINCT FROM n.body OR o.timeline IS DISTINCT FROM n.timeline
	ON CONFLICT (page_id) DO NOTHING;
	RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS pages_10_content_inserted ON brain.pages;
CREATE TRIGGER pages_10_content_inserted
	AFTER INSERT ON brain.pages
	REFERENCING NEW TABLE AS new_pages
	FOR EACH STATEMENT EXECUTE FUNCTION brain.pages_content_changed();
DROP TRIGGER IF EXISTS pages_10_content_updated ON brain.pages;
CREATE TRIGGER pages_10_content_updated
	AFTER UPDATE ON brain.pages
	REFERENCING OLD TABLE AS old_pages NEW TABLE AS new_pages
	FOR EACH STATEMENT EXECUTE FUNCTION brain.pages_content_changed();
