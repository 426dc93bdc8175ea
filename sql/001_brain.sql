-- 001_brain: the brain's core tables.
--
-- Guarantees: a page is identified by (source_id, slug); slugs, types, sizes
-- and chunk sources that must never be stored are refused by CHECK
-- constraints; every chunk's tsvector is maintained in SQL by a trigger; the
-- embedding column has the dimension chosen at `pgbrain init` ({{.dim}}).

CREATE EXTENSION IF NOT EXISTS vector;
CREATE SCHEMA IF NOT EXISTS brain;

CREATE TABLE brain.config (
	key        text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_.]{0,127}$'),
	value      text NOT NULL CHECK (octet_length(value) <= 4096),
	updated_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO brain.config (key, value) VALUES
	('embedding_dim', '{{.dim}}'),
	('embedder', '{{.embedder}}'),
	('embed_model', '{{.embed_model}}'),
	('schema_version', '1');

CREATE TABLE brain.sources (
	id         text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
	name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
	created_at timestamptz NOT NULL DEFAULT now(),
	config     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(config) = 'object')
);

INSERT INTO brain.sources (id, name) VALUES ('default', 'Default source');

CREATE TABLE brain.pages (
	id           bigserial PRIMARY KEY,
	source_id    text NOT NULL DEFAULT 'default' REFERENCES brain.sources (id),
	slug         text NOT NULL
		CONSTRAINT pages_slug_shape CHECK (
			octet_length(slug) <= 512
			AND slug ~ '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$'),
	title        text NOT NULL CHECK (length(title) BETWEEN 1 AND 1000),
	type         text NOT NULL DEFAULT 'page' CHECK (type ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
	body         text NOT NULL CHECK (octet_length(body) <= 10485760),
	timeline     text NOT NULL DEFAULT '' CHECK (octet_length(timeline) <= 10485760),
	frontmatter  jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(frontmatter) = 'object'),
	content_hash text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
	created_at   timestamptz NOT NULL DEFAULT now(),
	updated_at   timestamptz NOT NULL DEFAULT now(),
	UNIQUE (source_id, slug)
);

CREATE INDEX pages_type_idx ON brain.pages (type);

CREATE TABLE brain.chunks (
	id           bigserial PRIMARY KEY,
	page_id      bigint NOT NULL REFERENCES brain.pages (id) ON DELETE CASCADE,
	chunk_index  int NOT NULL CHECK (chunk_index >= 0),
	chunk_source text NOT NULL CHECK (chunk_source IN ('compiled_truth', 'timeline')),
	text         text NOT NULL
		CONSTRAINT chunks_text_nonempty CHECK (btrim(text, E' \t\r\n') <> '' AND octet_length(text) <= 65536),
	tsv          tsvector NOT NULL DEFAULT ''::tsvector,
	embedding    vector({{.dim}}),
	UNIQUE (page_id, chunk_index)
);

CREATE INDEX chunks_tsv_gin ON brain.chunks USING gin (tsv);
CREATE INDEX chunks_stale_idx ON brain.chunks (id) WHERE embedding IS NULL;

CREATE TABLE brain.source_boosts (
	prefix text PRIMARY KEY CHECK (length(prefix) BETWEEN 1 AND 512),
	factor real NOT NULL CHECK (factor > 0 AND factor <= 10)
);

{{ template "functions/embedder.sql" . }}
{{ template "functions/embed_local.sql" . }}
{{ template "functions/chunk_tsv.sql" . }}
{{ template "triggers/chunks_tsv.sql" . }}
{{ template "triggers/chunks_embed_local.sql" . }}
{{ template "triggers/pages_title_tsv.sql" . }}
{{ template "functions/import_staged.sql" . }}
{{ template "functions/embed_stale.sql" . }}
{{ template "functions/vector_index.sql" . }}

SELECT brain.vector_index_resume();
