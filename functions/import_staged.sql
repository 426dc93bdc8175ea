-- brain.import_begin() and brain.import_apply(source_id, origin): the bulk
-- write path.
--
-- A writer calls import_begin() in a transaction, COPYs rows into the
-- session's temporary tables pg_temp.import_pages and pg_temp.import_chunks,
-- then calls import_apply(), which lists the pages it added or changed in
-- pg_temp.import_applied until the transaction ends. A writer may stage the
-- ids it reserved from brain.pages_id_seq and brain.chunks_id_seq, so that
-- concurrent writers still number pages in the import's order; a NULL id
-- takes the next one.
-- Guarantees: pages whose content_hash is unchanged are not touched (no row
-- version, no trigger, no re-embedding; a put may set their origin, below);
-- a changed page's chunks are replaced as a whole; new and changed pages are
-- reported separately, and so are unchanged pages a put made 'put'
-- (marked_put) and, by slug, 'put' pages a file import overwrote
-- (overwrote_put); a new or
-- changed page takes the given origin ('file' for an import of a directory,
-- 'put' for a single page written by name: only 'file' pages are pruned);
-- a page written by name is 'put' afterwards even when its content was
-- unchanged. The source's row is locked (FOR KEY SHARE) before anything
-- else, so an import and a source removal queue in one order; a source
-- that does not exist raises no_data_found. Every CHECK
-- on brain.pages and brain.chunks still applies. Staged rows never outlive
-- their transaction.
-- The staging tables compress with lz4 where the server has it: they hold
-- every imported byte once more, and pglz would spend more CPU on them than
-- the COPY itself.
CREATE OR REPLACE FUNCTION brain.import_begin() RETURNS void
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
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
		-- Stored like brain.chunks (migration 019): a chunk's text that was
		-- compressed here would be copied into brain.chunks compressed.
		CREATE TEMP TABLE import_chunks (
			id bigint, slug text NOT NULL, chunk_index int NOT NULL, chunk_source text NOT NULL,
			text text NOT NULL, embedding vector
		) WITH (toast_tuple_target = 8160) ON COMMIT DELETE ROWS;
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

DROP FUNCTION IF EXISTS brain.import_apply(text);
DROP FUNCTION IF EXISTS brain.import_apply(text, text);
CREATE OR REPLACE FUNCTION brain.import_apply(p_source text, p_origin text DEFAULT 'file')
RETURNS TABLE (added bigint, updated bigint, unchanged bigint, marked_put bigint, overwrote_put text[])
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	n_marked bigint := 0;
	put_over text[] := '{}';
BEGIN
	-- The source's row first, before any page or chunk of it: removing a
	-- source locks that row first too (brain.RemoveSource), so the two
	-- queue instead of deadlocking (each holding what the other waits for:
	-- the removal a page's chunks, the import the row a new page refers
	-- to). A source removed meanwhile ends the import with a clear error.
	PERFORM FROM brain.sources WHERE id = p_source FOR KEY SHARE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'source "%" does not exist (removed while this import ran?): create it with ''pgbrain sources add %'' and import again',
			p_source, p_source USING ERRCODE = 'no_data_found';
	END IF;

	-- Pages written by name (put, psql) whose content a file import is about
	-- to replace: named, so the edit is not lost without a word.
	IF p_origin = 'file' THEN
		SELECT coalesce(array_agg(p.slug ORDER BY p.slug), '{}') INTO put_over
		FROM pg_temp.import_pages s JOIN brain.pages p ON p.source_id = p_source AND p.slug = s.slug
		WHERE p.origin = 'put' AND p.content_hash <> s.content_hash;
	END IF;

	-- Chunks of changed pages go first, so the title trigger below has nothing
	-- to refresh for rows that are about to be replaced anyway.
	DELETE FROM brain.chunks c
	USING brain.pages p, pg_temp.import_pages s
	WHERE c.page_id = p.id AND p.source_id = p_source AND p.slug = s.slug
	  AND p.content_hash <> s.content_hash;

	WITH up AS (
		INSERT INTO brain.pages AS p (id, source_id, slug, title, type, body, timeline, frontmatter, content_hash, origin)
		SELECT coalesce(s.id, nextval('brain.pages_id_seq')), p_source, s.slug, s.title, s.type, s.body, s.timeline, s.frontmatter, s.content_hash, p_origin
		FROM pg_temp.import_pages s
		ON CONFLICT (source_id, slug) DO UPDATE
			SET title = EXCLUDED.title, type = EXCLUDED.type, body = EXCLUDED.body,
			    timeline = EXCLUDED.timeline, frontmatter = EXCLUDED.frontmatter,
			    content_hash = EXCLUDED.content_hash, origin = EXCLUDED.origin, updated_at = now()
			WHERE p.content_hash <> EXCLUDED.content_hash
		RETURNING p.id, p.slug, (p.xmax = 0) AS inserted
	)
	INSERT INTO pg_temp.import_applied (id, slug, inserted)
	SELECT up.id, up.slug, up.inserted FROM up;

	-- A page written by name stays out of --prune even when its content
	-- equals what an import stored (the upsert above leaves such a page alone).
	IF p_origin = 'put' THEN
		UPDATE brain.pages p SET origin = 'put'
		FROM pg_temp.import_pages s
		WHERE p.source_id = p_source AND p.slug = s.slug AND p.origin <> 'put';
		GET DIAGNOSTICS n_marked = ROW_COUNT;
	END IF;

	INSERT INTO brain.chunks (id, page_id, chunk_index, chunk_source, text, embedding)
	SELECT coalesce(c.id, nextval('brain.chunks_id_seq')), a.id, c.chunk_index, c.chunk_source, c.text, c.embedding
	FROM pg_temp.import_chunks c
	JOIN pg_temp.import_applied a ON a.slug = c.slug
	ORDER BY a.id, c.chunk_index;

	RETURN QUERY
	SELECT count(*) FILTER (WHERE a.inserted),
	       count(*) FILTER (WHERE NOT a.inserted),
	       (SELECT count(*) FROM pg_temp.import_pages) - count(*),
	       n_marked, put_over
	FROM pg_temp.import_applied a;
END
$fn$;
