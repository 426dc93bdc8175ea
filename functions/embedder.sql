-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.embedder(): the name of the brain's configured embedder ('local' or
-- 'openai'), read from brain.config. Triggers and brain.query use it to decide
-- whether vectors can be computed inside the database.
CREATE OR REPLACE FUNCTION brain.embedder() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT coalesce((SELECT value FROM brain.config WHERE key = 'embedder'), 'local');
END;
