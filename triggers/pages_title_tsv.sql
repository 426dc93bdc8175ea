-- pages_title_tsv: a page's title is part of every chunk's tsvector, so a
-- title change recomputes the tsvectors of that page's chunks and marks their
-- embeddings stale (recomputed at once by the local embedder's trigger).
CREATE OR REPLACE FUNCTION brain.pages_refresh_chunk_tsv() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	UPDATE brain.chunks SET tsv = ''::tsvector, embedding = NULL WHERE page_id = NEW.id;
	RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS pages_title_tsv ON brain.pages;
CREATE TRIGGER pages_title_tsv
	AFTER UPDATE OF title ON brain.pages
	FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title)
	EXECUTE FUNCTION brain.pages_refresh_chunk_tsv();
