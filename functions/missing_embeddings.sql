-- brain.missing_embeddings(): how many chunks lack a vector that the
-- brain's embedder can give them (what `pgbrain embed --stale` fills and
-- doctor reports).
--
-- Guarantees: with the local embedder a chunk whose tsvector holds no
-- lexeme (a page of punctuation only, "!!!") has no vector by definition
-- (brain.embed_local is NULL for it) and is not counted, so the count
-- reaches 0 once `embed --stale` ran; with a remote embedder every chunk
-- without a vector counts, since its text can be sent.
CREATE OR REPLACE FUNCTION brain.missing_embeddings() RETURNS bigint
LANGUAGE sql STABLE
BEGIN ATOMIC
	SELECT count(*) FROM brain.chunks c
	WHERE c.embedding IS NULL AND (brain.embedder() <> 'local' OR length(c.tsv) > 0);
END;
