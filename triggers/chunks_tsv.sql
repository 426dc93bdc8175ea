-- chunks_10_tsv: every chunk's tsvector is computed in the database from its
-- page title and text, on insert and whenever the text or source changes, so
-- no writer (Go, psql, another tool) can store a stale or forged tsvector.
CREATE OR REPLACE FUNCTION brain.chunks_set_tsv() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	NEW.tsv := brain.chunk_tsv(
		(SELECT title FROM brain.pages WHERE id = NEW.page_id), NEW.text, NEW.chunk_source);
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_10_tsv ON brain.chunks;
CREATE TRIGGER chunks_10_tsv
	BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id ON brain.chunks
	FOR EACH ROW EXECUTE FUNCTION brain.chunks_set_tsv();
