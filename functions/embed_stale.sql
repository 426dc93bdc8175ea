-- brain.embed_stale(batch) : fills up to `batch` missing embeddings with the
-- local embedder and returns how many it filled. Only meaningful when the
-- brain's embedder is 'local'; remote embedders are filled by the client.
-- A chunk without lexemes has no local vector (brain.missing_embeddings):
-- it is not picked, so it neither counts as filled nor keeps the chunks
-- after it from being reached.
-- brain.reset_embeddings(), which cleared every vector at once, is dropped:
-- `embed --all` now swaps vectors page batch by page batch (internal/embed/refresh).
-- brain.embed_local_refresh(): rewrites every stored vector that differs from
-- what brain.embed_tsvector() gives for its chunk today, and returns how many
-- it rewrote; rows that already agree are not touched. Run after a change to
-- the local embedder's arithmetic, so stored vectors and query vectors stay in
-- one space. A no-op unless the brain's embedder is 'local'.
CREATE OR REPLACE FUNCTION brain.embed_stale(batch int) RETURNS bigint
LANGUAGE sql
BEGIN ATOMIC
	WITH todo AS (
		SELECT id FROM brain.chunks WHERE embedding IS NULL AND length(tsv) > 0 ORDER BY id LIMIT batch
	), done AS (
		UPDATE brain.chunks c SET embedding = brain.embed_tsvector(c.tsv)
		FROM todo WHERE c.id = todo.id
		RETURNING c.embedding IS NOT NULL AS filled
	)
	SELECT count(*) FILTER (WHERE done.filled) FROM done;
END;

DROP FUNCTION IF EXISTS brain.reset_embeddings();

CREATE OR REPLACE FUNCTION brain.embed_local_refresh() RETURNS bigint
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE n bigint := 0;
BEGIN
	IF brain.embedder() = 'local' THEN
		-- Each vector is computed once, then compared.
		UPDATE brain.chunks c SET embedding = f.v
		FROM (SELECT id, brain.embed_tsvector(tsv) AS v FROM brain.chunks WHERE embedding IS NOT NULL) f
		WHERE c.id = f.id AND c.embedding IS DISTINCT FROM f.v;
		GET DIAGNOSTICS n = ROW_COUNT;
	END IF;
	RETURN n;
END
$fn$;
