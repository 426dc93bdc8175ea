-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.chunk_tsv(title, text, chunk_source): the tsvector stored for a chunk.
--
-- Guarantees: the page title is weighted A, compiled-truth text B and
-- timeline text C, so a title match outranks a body match and timeline
-- entries rank below the compiled truth. Text goes through
-- brain.text_tsvector (CJK runs as bigrams, accents folded, english
-- stemming), the same pipeline brain.parse_query reads queries with, and
-- a slashed word also holds its parts (brain.slash_parts, migration 026),
-- as a slashed query word matches its parts; text without a slash (most)
-- skips that call.
CREATE OR REPLACE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT setweight(CASE WHEN strpos(title, '/') = 0 THEN brain.text_tsvector(title)
	                      ELSE brain.slash_parts(brain.text_tsvector(title)) END, 'A')
	    || setweight(CASE WHEN strpos(body, '/') = 0 THEN brain.text_tsvector(body)
	                      ELSE brain.slash_parts(brain.text_tsvector(body)) END,
	                 CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char");
END;
