-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.indexed_tsvector(t): the lexemes a page's text is indexed with,
-- before weights.
--
-- Guarantees: brain.text_tsvector(t), and for text holding a slash the
-- parts of its slashed words too (brain.slash_parts); text without one
-- (most) skips that call. The one reading of page text: brain.chunk_tsv
-- (title and text of every chunk), brain.title_words (the stored title
-- words) and brain.embed_local (a query, embedded as pages are) all go
-- through it, so they cannot drift apart.
CREATE OR REPLACE FUNCTION brain.indexed_tsvector(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT CASE WHEN strpos(t, '/') = 0 THEN brain.text_tsvector(t) ELSE brain.slash_parts(brain.text_tsvector(t)) END;
END;
