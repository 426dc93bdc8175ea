-- chunks_10_tsv: every chunk's tsvector is computed in the database from its
-- page title and text, on insert and whenever the text or source changes, so
-- no writer (Go, psql, another tool) can store a stale or forged tsvector.
-- The title is read in a statement of its own so that the tsvector is a
-- simple expression (no subquery), which plpgsql evaluates without starting
-- an executor per row: on a bulk import that halves this trigger's cost.
CREATE OR REPLACE FUNCTION brain.chunks_set_tsv() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	page_title text;
BEGIN
	SELECT p.title INTO page_title FROM brain.pages p WHERE p.id = NEW.page_id;
	NEW.tsv := brain.chunk_tsv(page_title, NEW.text, NEW.chunk_source);
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_10_tsv ON brain.chunks;
CREATE TRIGGER chunks_10_tsv
	BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id ON brain.chunks
	FOR EACH ROW EXECUTE FUNCTION brain.chunks_set_tsv();
