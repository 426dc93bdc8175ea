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

-- brain.embedder(): the name of the brain's configured embedder ('local' or
-- 'openai'), read from brain.config. Triggers and brain.query use it to decide
-- whether vectors can be computed inside the database.
CREATE OR REPLACE FUNCTION brain.embedder() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
	SELECT coalesce((SELECT value FROM brain.config WHERE key = 'embedder'), 'local')
$fn$;
-- brain.tsv_features(doc), brain.embed_tsvector(doc) and
-- brain.embed_local(text): the offline, deterministic "local" embedder,
-- computable in plain SQL.
--
-- Guarantees: the same text always yields the same vector({{.dim}}); the
-- vector is L2-normalised (so cosine distance is meaningful) or NULL when the
-- text has no indexable words. Features are the stemmed lexemes of the
-- english text-search configuration, signed-hashed into {{.dim}} buckets with
-- weight (1 + ln tf), doubled for title (weight A) lexemes. Query and chunk
-- vectors live in the same space because both go through embed_tsvector.
-- tsv_features(doc) returns that vector together with the document's BM25
-- length (brain.tsv_length) from one pass over its lexemes, which is how the
-- chunk trigger computes both; embed_tsvector is its vector, so the two can
-- never disagree.
-- Built on hashtext(), which PostgreSQL keeps stable in practice but does not
-- promise across major versions: after a major upgrade run `pgbrain embed --all`.
CREATE OR REPLACE FUNCTION brain.tsv_features(doc tsvector, OUT doc_len int, OUT embedding vector({{.dim}}))
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	-- float8 arithmetic and plain concatenation: numeric ln() and format()
	-- cost more than the rest of the function together. The sparsevec text
	-- form needs no ordering; its input sorts the indices. A document whose
	-- buckets all cancel out, or that has no lexemes, has no vector.
	SELECT coalesce(sum(n), 0)::int,
	       l2_normalize(('{' || string_agg((b + 1) || ':' || w, ',') FILTER (WHERE w <> 0)
	                     || '}/{{.dim}}')::sparsevec::vector({{.dim}}))
	FROM (
		SELECT b, sum(w) AS w, sum(n) AS n
		FROM (
			SELECT (hashtext(lexeme) & 2147483647) % {{.dim}} AS b,
			       CASE WHEN hashtext('~' || lexeme) & 1 = 0 THEN 1.0::float8 ELSE -1.0::float8 END
			       * (1.0::float8 + ln(coalesce(array_length(positions, 1), 1)::float8))
			       * CASE WHEN 'A' = ANY (weights) THEN 2.0::float8 ELSE 1.0::float8 END AS w,
			       greatest(cardinality(positions), 1) AS n
			FROM unnest(coalesce(doc, ''::tsvector))
		) f
		GROUP BY b
	) g
$fn$;

CREATE OR REPLACE FUNCTION brain.embed_tsvector(doc tsvector) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT (brain.tsv_features(doc)).embedding
$fn$;

CREATE OR REPLACE FUNCTION brain.embed_local(t text) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT brain.embed_tsvector(to_tsvector('english'::regconfig, coalesce(t, '')))
$fn$;
-- brain.chunk_tsv(title, text, chunk_source): the tsvector stored for a chunk.
--
-- Guarantees: the page title is weighted A, compiled-truth text B and
-- timeline text C, so a title match outranks a body match and timeline
-- entries rank below the compiled truth. Uses the english configuration, the
-- same one every search function parses queries with.
CREATE OR REPLACE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
	    || setweight(to_tsvector('english'::regconfig, coalesce(body, '')),
	                 CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char")
$fn$;
-- chunks_10_tsv: every chunk's tsvector is computed in the database from its
-- page title and text, on insert and whenever the text or source changes, so
-- no writer (Go, psql, another tool) can store a stale or forged tsvector.
CREATE OR REPLACE FUNCTION brain.chunks_set_tsv() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	NEW.tsv := brain.chunk_tsv(
		(SELECT title FROM brain.pages WHERE id = NEW.page_id), NEW.text, NEW.chunk_source);
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_10_tsv ON brain.chunks;
CREATE TRIGGER chunks_10_tsv
	BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id ON brain.chunks
	FOR EACH ROW EXECUTE FUNCTION brain.chunks_set_tsv();
-- Superseded by chunks_20_features (triggers/chunks_features.sql), which
-- migration 006 installs in place of this trigger; kept because migration
-- 001 installs it.
--
-- chunks_20_embed_local: when the brain's embedder is 'local', a chunk written
-- without an embedding gets one computed from its tsvector (so psql users who
-- insert chunks by hand get vectors too). Runs after chunks_10_tsv (triggers
-- fire in name order). A writer that wants to defer embedding, such as
-- `pgbrain import --no-embed`, sets `SET LOCAL brain.embed = 'off'`; such
-- chunks stay NULL (stale) until `pgbrain embed --stale`.
CREATE OR REPLACE FUNCTION brain.chunks_embed_local() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	IF NEW.embedding IS NULL
	   AND coalesce(current_setting('brain.embed', true), '') <> 'off'
	   AND brain.embedder() = 'local' THEN
		NEW.embedding := brain.embed_tsvector(NEW.tsv);
	END IF;
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_20_embed_local ON brain.chunks;
CREATE TRIGGER chunks_20_embed_local
	BEFORE INSERT OR UPDATE OF text, chunk_source, embedding ON brain.chunks
	FOR EACH ROW EXECUTE FUNCTION brain.chunks_embed_local();
-- pages_title_tsv: a page's title is part of every chunk's tsvector, so a
-- title change recomputes the tsvectors of that page's chunks and marks their
-- embeddings stale (recomputed at once by the local embedder's trigger).
CREATE OR REPLACE FUNCTION brain.pages_refresh_chunk_tsv() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	UPDATE brain.chunks SET tsv = ''::tsvector, embedding = NULL WHERE page_id = NEW.id;
	RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS pages_title_tsv ON brain.pages;
CREATE TRIGGER pages_title_tsv
	AFTER UPDATE OF title ON brain.pages
	FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title)
	EXECUTE FUNCTION brain.pages_refresh_chunk_tsv();
-- brain.import_begin() and brain.import_apply(source_id): the bulk write path.
--
-- A writer calls import_begin() in a transaction, COPYs rows into the
-- session's temporary tables pg_temp.import_pages and pg_temp.import_chunks,
-- then calls import_apply(), which lists the pages it added or changed in
-- pg_temp.import_applied until the transaction ends. A writer may stage the
-- ids it reserved from brain.pages_id_seq and brain.chunks_id_seq, so that
-- concurrent writers still number pages in the import's order; a NULL id
-- takes the next one.
-- Guarantees: pages whose content_hash is unchanged are not touched (no row
-- version, no trigger, no re-embedding); a changed page's chunks are replaced
-- as a whole; new and changed pages are reported separately. Every CHECK
-- on brain.pages and brain.chunks still applies. Staged rows never outlive
-- their transaction.
-- The staging tables compress with lz4 where the server has it: they hold
-- every imported byte once more, and pglz would spend more CPU on them than
-- the COPY itself.
CREATE OR REPLACE FUNCTION brain.import_begin() RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
	BEGIN
		PERFORM set_config('default_toast_compression', 'lz4', true);
	EXCEPTION WHEN invalid_parameter_value THEN
		NULL; -- no lz4 in this server: stage with the default compression
	END;
	-- The staging tables live as long as the session and empty themselves at
	-- every commit: creating and dropping them per batch cost more than a
	-- small import itself. A later change to their columns must rename them,
	-- so that no session keeps using an older shape.
	IF to_regclass('pg_temp.import_pages') IS NULL THEN
		CREATE TEMP TABLE import_pages (
			id bigint, slug text NOT NULL, title text NOT NULL, type text NOT NULL, body text NOT NULL,
			timeline text NOT NULL, frontmatter jsonb NOT NULL, content_hash text NOT NULL
		) ON COMMIT DELETE ROWS;
		CREATE TEMP TABLE import_chunks (
			id bigint, slug text NOT NULL, chunk_index int NOT NULL, chunk_source text NOT NULL,
			text text NOT NULL, embedding vector
		) ON COMMIT DELETE ROWS;
		CREATE TEMP TABLE import_applied (
			id bigint NOT NULL, slug text NOT NULL, inserted boolean NOT NULL
		) ON COMMIT DELETE ROWS;
	ELSE
		-- Normally empty already; this covers a second batch in one transaction.
		DELETE FROM pg_temp.import_pages;
		DELETE FROM pg_temp.import_chunks;
		DELETE FROM pg_temp.import_applied;
	END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.import_apply(p_source text)
RETURNS TABLE (added bigint, updated bigint, unchanged bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
	-- Chunks of changed pages go first, so the title trigger below has nothing
	-- to refresh for rows that are about to be replaced anyway.
	DELETE FROM brain.chunks c
	USING brain.pages p, pg_temp.import_pages s
	WHERE c.page_id = p.id AND p.source_id = p_source AND p.slug = s.slug
	  AND p.content_hash <> s.content_hash;

	WITH up AS (
		INSERT INTO brain.pages AS p (id, source_id, slug, title, type, body, timeline, frontmatter, content_hash)
		SELECT coalesce(s.id, nextval('brain.pages_id_seq')), p_source, s.slug, s.title, s.type, s.body, s.timeline, s.frontmatter, s.content_hash
		FROM pg_temp.import_pages s
		ON CONFLICT (source_id, slug) DO UPDATE
			SET title = EXCLUDED.title, type = EXCLUDED.type, body = EXCLUDED.body,
			    timeline = EXCLUDED.timeline, frontmatter = EXCLUDED.frontmatter,
			    content_hash = EXCLUDED.content_hash, updated_at = now()
			WHERE p.content_hash <> EXCLUDED.content_hash
		RETURNING p.id, p.slug, (p.xmax = 0) AS inserted
	)
	INSERT INTO pg_temp.import_applied (id, slug, inserted)
	SELECT up.id, up.slug, up.inserted FROM up;

	INSERT INTO brain.chunks (id, page_id, chunk_index, chunk_source, text, embedding)
	SELECT coalesce(c.id, nextval('brain.chunks_id_seq')), a.id, c.chunk_index, c.chunk_source, c.text, c.embedding
	FROM pg_temp.import_chunks c
	JOIN pg_temp.import_applied a ON a.slug = c.slug
	ORDER BY a.id, c.chunk_index;

	RETURN QUERY
	SELECT count(*) FILTER (WHERE a.inserted),
	       count(*) FILTER (WHERE NOT a.inserted),
	       (SELECT count(*) FROM pg_temp.import_pages) - count(*)
	FROM pg_temp.import_applied a;
END
$fn$;
-- brain.embed_stale(batch) : fills up to `batch` missing embeddings with the
-- local embedder and returns how many it filled. Only meaningful when the
-- brain's embedder is 'local'; remote embedders are filled by the client.
-- brain.reset_embeddings(): marks every embedding stale (for `embed --all`).
-- brain.embed_local_refresh(): rewrites every stored vector that differs from
-- what brain.embed_tsvector() gives for its chunk today, and returns how many
-- it rewrote; rows that already agree are not touched. Run after a change to
-- the local embedder's arithmetic, so stored vectors and query vectors stay in
-- one space. A no-op unless the brain's embedder is 'local'.
CREATE OR REPLACE FUNCTION brain.embed_stale(batch int) RETURNS bigint
LANGUAGE sql AS $fn$
	WITH todo AS (
		SELECT id FROM brain.chunks WHERE embedding IS NULL ORDER BY id LIMIT batch
	), done AS (
		UPDATE brain.chunks c SET embedding = brain.embed_tsvector(c.tsv)
		FROM todo WHERE c.id = todo.id
		RETURNING 1
	)
	SELECT count(*) FROM done
$fn$;

CREATE OR REPLACE FUNCTION brain.reset_embeddings() RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE n bigint;
BEGIN
	SET LOCAL brain.embed = 'off';
	UPDATE brain.chunks SET embedding = NULL WHERE embedding IS NOT NULL;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.embed_local_refresh() RETURNS bigint
LANGUAGE plpgsql AS $fn$
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
-- brain.vector_index_suspend() / brain.vector_index_resume(): the bulk-load
-- switch for the HNSW index on brain.chunks.embedding.
--
-- Inserting vectors one by one into HNSW costs several times more than
-- building the index once over the loaded rows, so a large import suspends
-- the index and resumes it at the end. resume() is also the single definition
-- of the index (migration 001 calls it). Searches keep working while it is
-- suspended, by sequential scan. Both are idempotent.
CREATE OR REPLACE FUNCTION brain.vector_index_suspend() RETURNS void
LANGUAGE sql AS $fn$
	DROP INDEX IF EXISTS brain.chunks_embedding_hnsw;
$fn$;

CREATE OR REPLACE FUNCTION brain.vector_index_resume() RETURNS void
LANGUAGE sql AS $fn$
	CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding vector_cosine_ops);
$fn$;

SELECT brain.vector_index_resume();
