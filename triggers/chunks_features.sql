-- chunks_20_features: every chunk's BM25 document length (doc_len) is
-- computed in the database from its tsvector, and so is its embedding when
-- the brain's embedder is 'local', both from one pass over the lexemes
-- (brain.tsv_features). Runs after chunks_10_tsv (triggers fire in name
-- order), on insert and whenever the text, source, tsvector, page, embedding
-- or doc_len is written, so no writer can store a doc_len that disagrees with
-- the tsvector.
-- An embedding is stale when a chunk is written without one, or when its
-- tsvector changes while the old vector is left in place. A 'local' brain
-- computes stale embeddings at once, unless the writer deferred embedding
-- with `SET LOCAL brain.embed = 'off'` (as `pgbrain import --no-embed`
-- does); then, as with any other embedder, a stale embedding is left NULL
-- until `pgbrain embed --stale`.
CREATE OR REPLACE FUNCTION brain.chunks_features() RETURNS trigger
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	f record;
	retext boolean := TG_OP = 'INSERT' OR NEW.tsv IS DISTINCT FROM OLD.tsv;
BEGIN
	IF NEW.embedding IS NULL OR (retext AND TG_OP = 'UPDATE' AND NEW.embedding IS NOT DISTINCT FROM OLD.embedding) THEN
		IF coalesce(current_setting('brain.embed', true), '') <> 'off' AND brain.embedder() = 'local' THEN
			f := brain.tsv_features(NEW.tsv);
			NEW.doc_len := f.doc_len;
			NEW.embedding := f.embedding;
			RETURN NEW;
		END IF;
		NEW.embedding := NULL;
	END IF;
	IF retext OR NEW.doc_len IS DISTINCT FROM OLD.doc_len THEN
		NEW.doc_len := brain.tsv_length(NEW.tsv);
	END IF;
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_20_features ON brain.chunks;
CREATE TRIGGER chunks_20_features
	BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id, embedding, doc_len ON brain.chunks
	FOR EACH ROW EXECUTE FUNCTION brain.chunks_features();
