-- pgbrain schema version 1 as released, with sample rows: written by
-- testdb/cmd/schemadump for the upgrade tests (client/migrate). Never edit.

--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: brain; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA brain;


--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';


--
-- Name: chunk_tsv(text, text, text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
	SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
	    || setweight(to_tsvector('english'::regconfig, coalesce(body, '')),
	                 CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char")
$$;


--
-- Name: chunks_embed_local(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_embed_local() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
	IF NEW.embedding IS NULL
	   AND coalesce(current_setting('brain.embed', true), '') <> 'off'
	   AND brain.embedder() = 'local' THEN
		NEW.embedding := brain.embed_tsvector(NEW.tsv);
	END IF;
	RETURN NEW;
END
$$;


--
-- Name: chunks_set_tsv(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.chunks_set_tsv() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
	NEW.tsv := brain.chunk_tsv(
		(SELECT title FROM brain.pages WHERE id = NEW.page_id), NEW.text, NEW.chunk_source);
	RETURN NEW;
END
$$;


--
-- Name: embed_local(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_local(t text) RETURNS public.vector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
	SELECT brain.embed_tsvector(to_tsvector('english'::regconfig, coalesce(t, '')))
$$;


--
-- Name: embed_stale(integer); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_stale(batch integer) RETURNS bigint
    LANGUAGE sql
    AS $$
	WITH todo AS (
		SELECT id FROM brain.chunks WHERE embedding IS NULL ORDER BY id LIMIT batch
	), done AS (
		UPDATE brain.chunks c SET embedding = brain.embed_tsvector(c.tsv)
		FROM todo WHERE c.id = todo.id
		RETURNING 1
	)
	SELECT count(*) FROM done
$$;


--
-- Name: embed_tsvector(tsvector); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embed_tsvector(doc tsvector) RETURNS public.vector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
	SELECT l2_normalize(
		format('{%s}/256', string_agg(format('%s:%s', b + 1, w), ',' ORDER BY b))::sparsevec::vector(256))
	FROM (
		SELECT b, sum(w) AS w
		FROM (
			SELECT (hashtext(lexeme) & 2147483647) % 256 AS b,
			       CASE WHEN hashtext('~' || lexeme) & 1 = 0 THEN 1.0 ELSE -1.0 END
			       * (1.0 + ln(coalesce(array_length(positions, 1), 1)))
			       * CASE WHEN 'A' = ANY (weights) THEN 2.0 ELSE 1.0 END AS w
			FROM unnest(coalesce(doc, ''::tsvector))
		) f
		GROUP BY b
	) g
	WHERE w <> 0
	HAVING count(*) > 0
$$;


--
-- Name: embedder(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.embedder() RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
	SELECT coalesce((SELECT value FROM brain.config WHERE key = 'embedder'), 'local')
$$;


--
-- Name: import_apply(text); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.import_apply(p_source text) RETURNS TABLE(added bigint, updated bigint, unchanged bigint)
    LANGUAGE plpgsql
    AS $$
BEGIN
	-- Chunks of changed pages go first, so the title trigger below has nothing
	-- to refresh for rows that are about to be replaced anyway.
	DELETE FROM brain.chunks c
	USING brain.pages p, pg_temp.import_pages s
	WHERE c.page_id = p.id AND p.source_id = p_source AND p.slug = s.slug
	  AND p.content_hash <> s.content_hash;

	CREATE TEMP TABLE import_applied ON COMMIT DROP AS
	WITH up AS (
		INSERT INTO brain.pages AS p (source_id, slug, title, type, body, timeline, frontmatter, content_hash)
		SELECT p_source, s.slug, s.title, s.type, s.body, s.timeline, s.frontmatter, s.content_hash
		FROM pg_temp.import_pages s
		ON CONFLICT (source_id, slug) DO UPDATE
			SET title = EXCLUDED.title, type = EXCLUDED.type, body = EXCLUDED.body,
			    timeline = EXCLUDED.timeline, frontmatter = EXCLUDED.frontmatter,
			    content_hash = EXCLUDED.content_hash, updated_at = now()
			WHERE p.content_hash <> EXCLUDED.content_hash
		RETURNING p.id, p.slug, (p.xmax = 0) AS inserted
	)
	SELECT * FROM up;

	INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text, embedding)
	SELECT a.id, c.chunk_index, c.chunk_source, c.text, c.embedding
	FROM pg_temp.import_chunks c
	JOIN pg_temp.import_applied a ON a.slug = c.slug
	ORDER BY a.id, c.chunk_index;

	RETURN QUERY
	SELECT count(*) FILTER (WHERE a.inserted),
	       count(*) FILTER (WHERE NOT a.inserted),
	       (SELECT count(*) FROM pg_temp.import_pages) - count(*)
	FROM pg_temp.import_applied a;
END
$$;


--
-- Name: import_begin(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.import_begin() RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
	CREATE TEMP TABLE import_pages (
		slug text NOT NULL, title text NOT NULL, type text NOT NULL, body text NOT NULL,
		timeline text NOT NULL, frontmatter jsonb NOT NULL, content_hash text NOT NULL
	) ON COMMIT DROP;
	CREATE TEMP TABLE import_chunks (
		slug text NOT NULL, chunk_index int NOT NULL, chunk_source text NOT NULL,
		text text NOT NULL, embedding vector
	) ON COMMIT DROP;
END
$$;


--
-- Name: pages_refresh_chunk_tsv(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.pages_refresh_chunk_tsv() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
	UPDATE brain.chunks SET tsv = ''::tsvector, embedding = NULL WHERE page_id = NEW.id;
	RETURN NULL;
END
$$;


--
-- Name: reset_embeddings(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.reset_embeddings() RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE n bigint;
BEGIN
	SET LOCAL brain.embed = 'off';
	UPDATE brain.chunks SET embedding = NULL WHERE embedding IS NOT NULL;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;


--
-- Name: vector_index_resume(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_resume() RETURNS void
    LANGUAGE sql
    AS $$
	CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding vector_cosine_ops);
$$;


--
-- Name: vector_index_suspend(); Type: FUNCTION; Schema: brain; Owner: -
--

CREATE FUNCTION brain.vector_index_suspend() RETURNS void
    LANGUAGE sql
    AS $$
	DROP INDEX IF EXISTS brain.chunks_embedding_hnsw;
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: chunks; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.chunks (
    id bigint NOT NULL,
    page_id bigint NOT NULL,
    chunk_index integer NOT NULL,
    chunk_source text NOT NULL,
    text text NOT NULL,
    tsv tsvector DEFAULT ''::tsvector NOT NULL,
    embedding public.vector(256),
    CONSTRAINT chunks_chunk_index_check CHECK ((chunk_index >= 0)),
    CONSTRAINT chunks_chunk_source_check CHECK ((chunk_source = ANY (ARRAY['compiled_truth'::text, 'timeline'::text]))),
    CONSTRAINT chunks_text_nonempty CHECK (((btrim(text, ' 	
'::text) <> ''::text) AND (octet_length(text) <= 65536)))
);


--
-- Name: chunks_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.chunks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: chunks_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.chunks_id_seq OWNED BY brain.chunks.id;


--
-- Name: config; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.config (
    key text NOT NULL,
    value text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT config_key_check CHECK ((key ~ '^[a-z][a-z0-9_.]{0,127}$'::text)),
    CONSTRAINT config_value_check CHECK ((octet_length(value) <= 4096))
);


--
-- Name: pages; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.pages (
    id bigint NOT NULL,
    source_id text DEFAULT 'default'::text NOT NULL,
    slug text NOT NULL,
    title text NOT NULL,
    type text DEFAULT 'page'::text NOT NULL,
    body text NOT NULL,
    timeline text DEFAULT ''::text NOT NULL,
    frontmatter jsonb DEFAULT '{}'::jsonb NOT NULL,
    content_hash text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT pages_body_check CHECK ((octet_length(body) <= 10485760)),
    CONSTRAINT pages_content_hash_check CHECK ((content_hash ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT pages_frontmatter_check CHECK ((jsonb_typeof(frontmatter) = 'object'::text)),
    CONSTRAINT pages_slug_shape CHECK (((octet_length(slug) <= 512) AND (slug ~ '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$'::text))),
    CONSTRAINT pages_timeline_check CHECK ((octet_length(timeline) <= 10485760)),
    CONSTRAINT pages_title_check CHECK (((length(title) >= 1) AND (length(title) <= 1000))),
    CONSTRAINT pages_type_check CHECK ((type ~ '^[a-z0-9][a-z0-9_-]{0,63}$'::text))
);


--
-- Name: pages_id_seq; Type: SEQUENCE; Schema: brain; Owner: -
--

CREATE SEQUENCE brain.pages_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: pages_id_seq; Type: SEQUENCE OWNED BY; Schema: brain; Owner: -
--

ALTER SEQUENCE brain.pages_id_seq OWNED BY brain.pages.id;


--
-- Name: source_boosts; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.source_boosts (
    prefix text NOT NULL,
    factor real NOT NULL,
    CONSTRAINT source_boosts_factor_check CHECK (((factor > (0)::double precision) AND (factor <= (10)::double precision))),
    CONSTRAINT source_boosts_prefix_check CHECK (((length(prefix) >= 1) AND (length(prefix) <= 512)))
);


--
-- Name: sources; Type: TABLE; Schema: brain; Owner: -
--

CREATE TABLE brain.sources (
    id text NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    config jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT sources_config_check CHECK ((jsonb_typeof(config) = 'object'::text)),
    CONSTRAINT sources_id_check CHECK ((id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'::text)),
    CONSTRAINT sources_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
);


--
-- Name: pgbrain_schema_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pgbrain_schema_version (
    version integer NOT NULL
);


--
-- Name: chunks id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.chunks ALTER COLUMN id SET DEFAULT nextval('brain.chunks_id_seq'::regclass);


--
-- Name: pages id; Type: DEFAULT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages ALTER COLUMN id SET DEFAULT nextval('brain.pages_id_seq'::regclass);


--
-- Data for Name: chunks; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.chunks VALUES (1, 1, 0, 'compiled_truth', 'Alice keeps the harbour lanterns lit.', '''alic'':1A,3B ''harbour'':6B ''keep'':4B ''lantern'':7B ''lit'':8B ''smith'':2A', '[0,0,0.45329466,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.76749456,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.22664733,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]');
INSERT INTO brain.chunks VALUES (2, 2, 0, 'compiled_truth', 'Brass lanterns, rebuilt every spring.', '''brass'':3B ''everi'':6B ''lantern'':1A,4B ''project'':2A ''rebuilt'':5B ''spring'':7B', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.5696763,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.41093457,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]');
INSERT INTO brain.chunks VALUES (3, 3, 0, 'compiled_truth', 'Call Alice about the wicks.', '''alic'':1A,4B ''call'':3B ''note'':2A ''wick'':7B', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.8102437,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.47854298,0,0,0,0,0,0,0,0.23927149,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.23927149,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]');
INSERT INTO brain.chunks VALUES (4, 2, 1, 'timeline', '2024-03-01: new wicks', '''-01'':5C ''-03'':4C ''2024'':3C ''lantern'':1A ''new'':6C ''project'':2A ''wick'':7C', '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.4472136,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]');


--
-- Data for Name: config; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.config VALUES ('embedding_dim', '256', '2026-11-24 20:36:04.190175+00');
INSERT INTO brain.config VALUES ('embedder', 'local', '2026-11-24 20:36:04.190175+00');
INSERT INTO brain.config VALUES ('embed_model', 'hash-tsv-v1', '2026-11-24 20:36:04.190175+00');
INSERT INTO brain.config VALUES ('schema_version', '1', '2026-11-24 20:36:04.190175+00');


--
-- Data for Name: pages; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.pages VALUES (1, 'default', 'people/alice-smith', 'Alice Smith', 'page', 'Alice keeps the harbour lanterns lit.', '', '{}', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '2026-11-24 20:36:04.250066+00', '2026-11-24 20:36:04.250066+00');
INSERT INTO brain.pages VALUES (2, 'default', 'projects/lantern', 'Lantern project', 'page', 'Brass lanterns, rebuilt every spring.', '2024-03-01: new wicks', '{}', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', '2026-11-24 20:36:04.250066+00', '2026-11-24 20:36:04.250066+00');
INSERT INTO brain.pages VALUES (3, 'notes', 'people/alice-smith', 'Alice (notes)', 'page', 'Call Alice about the wicks.', '', '{}', 'cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc', '2026-11-24 20:36:04.250066+00', '2026-11-24 20:36:04.250066+00');


--
-- Data for Name: source_boosts; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.source_boosts VALUES ('people/', 1.5);


--
-- Data for Name: sources; Type: TABLE DATA; Schema: brain; Owner: -
--

INSERT INTO brain.sources VALUES ('default', 'Default source', '2026-11-24 20:36:04.190175+00', '{}');
INSERT INTO brain.sources VALUES ('notes', 'Notes', '2026-11-24 20:36:04.250066+00', '{}');


--
-- Data for Name: pgbrain_schema_version; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.pgbrain_schema_version VALUES (1);


--
-- Name: chunks_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.chunks_id_seq', 4, true);


--
-- Name: pages_id_seq; Type: SEQUENCE SET; Schema: brain; Owner: -
--

SELECT pg_catalog.setval('brain.pages_id_seq', 3, true);


--
-- Name: chunks chunks_page_id_chunk_index_key; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.chunks
    ADD CONSTRAINT chunks_page_id_chunk_index_key UNIQUE (page_id, chunk_index);


--
-- Name: chunks chunks_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.chunks
    ADD CONSTRAINT chunks_pkey PRIMARY KEY (id);


--
-- Name: config config_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.config
    ADD CONSTRAINT config_pkey PRIMARY KEY (key);


--
-- Name: pages pages_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages
    ADD CONSTRAINT pages_pkey PRIMARY KEY (id);


--
-- Name: pages pages_source_id_slug_key; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages
    ADD CONSTRAINT pages_source_id_slug_key UNIQUE (source_id, slug);


--
-- Name: source_boosts source_boosts_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.source_boosts
    ADD CONSTRAINT source_boosts_pkey PRIMARY KEY (prefix);


--
-- Name: sources sources_pkey; Type: CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.sources
    ADD CONSTRAINT sources_pkey PRIMARY KEY (id);


--
-- Name: chunks_embedding_hnsw; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX chunks_embedding_hnsw ON brain.chunks USING hnsw (embedding public.vector_cosine_ops);


--
-- Name: chunks_stale_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX chunks_stale_idx ON brain.chunks USING btree (id) WHERE (embedding IS NULL);


--
-- Name: chunks_tsv_gin; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX chunks_tsv_gin ON brain.chunks USING gin (tsv);


--
-- Name: pages_type_idx; Type: INDEX; Schema: brain; Owner: -
--

CREATE INDEX pages_type_idx ON brain.pages USING btree (type);


--
-- Name: chunks chunks_10_tsv; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_10_tsv BEFORE INSERT OR UPDATE OF text, chunk_source, tsv, page_id ON brain.chunks FOR EACH ROW EXECUTE FUNCTION brain.chunks_set_tsv();


--
-- Name: chunks chunks_20_embed_local; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER chunks_20_embed_local BEFORE INSERT OR UPDATE OF text, chunk_source, embedding ON brain.chunks FOR EACH ROW EXECUTE FUNCTION brain.chunks_embed_local();


--
-- Name: pages pages_title_tsv; Type: TRIGGER; Schema: brain; Owner: -
--

CREATE TRIGGER pages_title_tsv AFTER UPDATE OF title ON brain.pages FOR EACH ROW WHEN ((old.title IS DISTINCT FROM new.title)) EXECUTE FUNCTION brain.pages_refresh_chunk_tsv();


--
-- Name: chunks chunks_page_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.chunks
    ADD CONSTRAINT chunks_page_id_fkey FOREIGN KEY (page_id) REFERENCES brain.pages(id) ON DELETE CASCADE;


--
-- Name: pages pages_source_id_fkey; Type: FK CONSTRAINT; Schema: brain; Owner: -
--

ALTER TABLE ONLY brain.pages
    ADD CONSTRAINT pages_source_id_fkey FOREIGN KEY (source_id) REFERENCES brain.sources(id);


--
-- PostgreSQL database dump complete
--


