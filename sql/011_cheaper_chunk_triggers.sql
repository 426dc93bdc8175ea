-- 011_cheaper_chunk_triggers: the same tsvectors, lengths and vectors for
-- less work per chunk.
--
-- Guarantees: every stored value is computed exactly as before (no row is
-- rewritten). brain.text_tsvector calls brain.cjk_bigrams only for text
-- holding Chinese or Japanese characters; chunks_10_tsv reads the page title
-- in a statement of its own, so the tsvector is a simple plpgsql expression;
-- chunks_20_features checks whether embedding is deferred before it reads
-- the brain's embedder.

CREATE OR REPLACE FUNCTION brain.text_tsvector(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	-- cjk_bigrams holds a subquery, so it is never inlined and costs a call
	-- with its own plan; text without CJK characters (most) skips it.
	SELECT to_tsvector('brain.english_unaccent'::regconfig,
		CASE WHEN t ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]' THEN brain.cjk_bigrams(t)
		     ELSE coalesce(t, '') END);
END;

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

UPDATE brain.config SET value = '11' WHERE key = 'schema_version';
