-- brain.chunk_tsv(title, text, chunk_source): the tsvector stored for a chunk.
--
-- Guarantees: the page title is weighted A, compiled-truth text B and
-- timeline text C, so a title match outranks a body match and timeline
-- entries rank below the compiled truth. Text goes through
-- brain.text_tsvector (CJK runs as bigrams, accents folded, english
-- stemming), the same pipeline brain.parse_query reads queries with.
-- plpgsql so that its body, which uses objects of migration 009, is only
-- resolved when called; older migrations still include this file, so a
-- brain built up to an earlier version (tests stage those) gets the english
-- configuration until 009 runs.
CREATE OR REPLACE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
	IF to_regproc('brain.text_tsvector') IS NULL THEN
		RETURN setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
		    || setweight(to_tsvector('english'::regconfig, coalesce(body, '')),
		                 CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char");
	END IF;
	RETURN setweight(brain.text_tsvector(title), 'A')
	    || setweight(brain.text_tsvector(body), CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char");
END
$fn$;
