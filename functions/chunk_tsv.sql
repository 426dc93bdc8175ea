-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.chunk_tsv(title, text, chunk_source): the tsvector stored for a chunk.
--
-- Guarantees: the page title is weighted A, compiled-truth text B and
-- timeline text C, so a title match outranks a body match and timeline
-- entries rank below the compiled truth. Uses the english configuration, the
-- same one every search function parses queries with.
CREATE OR REPLACE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
	    || setweight(to_tsvector('english'::regconfig, coalesce(body, '')),
	                 CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char");
END;
