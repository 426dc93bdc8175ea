-- 010_mcp_tokens: bearer tokens for `pgbrain serve --http`.
--
-- Guarantees: a token is stored only as the sha256 of its secret (32
-- bytes), so reading this table never yields a usable token; a name belongs
-- to at most one live (unrevoked) token; revoking keeps the row, so the
-- audit log's callers stay explained. role_name is the database role the
-- token's calls will run as once roles per caller exist; until then it is
-- recorded and shown, and serve answers with its own role whatever it says.

CREATE TABLE brain.mcp_tokens (
	id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name         text NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
	token_sha256 bytea NOT NULL UNIQUE CHECK (octet_length(token_sha256) = 32),
	role_name    text CHECK (role_name ~ '^[a-z_][a-z0-9_]{0,62}$'),
	created_at   timestamptz NOT NULL DEFAULT now(),
	revoked_at   timestamptz,
	CHECK (revoked_at IS NULL OR revoked_at >= created_at)
);

CREATE UNIQUE INDEX mcp_tokens_live_name ON brain.mcp_tokens (name) WHERE revoked_at IS NULL;

UPDATE brain.config SET value = '10' WHERE key = 'schema_version';
