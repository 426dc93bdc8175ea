-- Superseded by chunks_20_features (triggers/chunks_features.sql), which
-- migration 006 installs in place of this trigger; kept because migration
-- 001 installs it.
--
-- chunks_20_embed_local: when the brain's embedder is 'local', a chunk written
-- without an embedding gets one computed from its tsvector (so psql users who
-- insert chunks by hand get vectors too). Runs after chunks_10_tsv (triggers
-- fire in name order). A writer that wants to defer embedding, such as
-- `pgbrain import --no-embed`, sets `SET LOCAL brain.embed = 'off'`; such
-- chunks stay NULL (stale) until `pgbrain embed --stale`.
CREATE OR REPLACE FUNCTION brain.chunks_embed_local() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	IF NEW.embedding IS NULL
	   AND coalesce(current_setting('brain.embed', true), '') <> 'off'
	   AND brain.embedder() = 'local' THEN
		NEW.embedding := brain.embed_tsvector(NEW.tsv);
	END IF;
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_20_embed_local ON brain.chunks;
CREATE TRIGGER chunks_20_embed_local
	BEFORE INSERT OR UPDATE OF text, chunk_source, embedding ON brain.chunks
	FOR EACH ROW EXECUTE FUNCTION brain.chunks_embed_local();
