-- chunks_30_pending_done: chunks written for a page mean its chunking is
-- done.
CREATE OR REPLACE FUNCTION brain.chunks_pending_done() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	DELETE FROM brain.page_chunks_pending d USING (SELECT DISTINCT n.page_id FROM new_chunks n) x
	WHERE d.page_id = x.page_id;
	RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_30_pending_done ON brain.chunks;
CREATE TRIGGER chunks_30_pending_done
	AFTER INSERT ON brain.chunks
	REFERENCING NEW TABLE AS new_chunks
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_pending_done();
