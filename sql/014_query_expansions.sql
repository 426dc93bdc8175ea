-- 014_query_expansions: the cache of query expansions.
--
-- Guarantees:
-- * brain.query_expansions holds, per (chat model, expansion prompt version,
--   query), the rephrasings the model proposed, so that a repeated or
--   replayed expanded query asks the model nothing. The query is named by
--   its sha256 only (the raw text is kept in brain.eval_candidates, scrubbed,
--   when capture is on, and nowhere else); the variants are the model's
--   words, cleaned by the client. A prompt version bump makes every entry
--   stale without deleting it; deleting rows only costs model calls.
-- * At most 10 variants per query, none NULL, in a one-dimensional list
--   (brain.search_expanded cleans them again before it searches).

CREATE TABLE brain.query_expansions (
	model          text NOT NULL CHECK (length(model) BETWEEN 1 AND 200),
	prompt_version int NOT NULL CHECK (prompt_version > 0),
	query_sha256   bytea NOT NULL CHECK (length(query_sha256) = 32),
	variants       text[] NOT NULL CHECK (
		cardinality(variants) <= 10
		AND coalesce(array_ndims(variants), 1) = 1
		AND array_position(variants, NULL) IS NULL),
	created_at     timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (model, prompt_version, query_sha256)
);

UPDATE brain.config SET value = '14' WHERE key = 'schema_version';
