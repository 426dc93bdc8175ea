-- 005_import_speed: cheaper writes for bulk imports.
--
-- Guarantees: the BM25 term-statistics triggers and brain.term_stats_rebuild()
-- are reinstalled in their current form (lexemes read with
-- tsvector_to_array(), upserted in byte order); brain.term_stats.lexeme uses
-- the "C" collation, which only changes the order of the index, not which
-- lexemes are equal; brain.import_begin() stages with lz4; large text columns are compressed with lz4 when the
-- server supports it (pglz, the default, costs several times more CPU per
-- byte written), and stay on the default otherwise. Existing rows keep their
-- compression until they are rewritten.

-- BM25 corpus statistics: brain.tsv_length(tsv), brain.tsquery_terms(q),
-- brain.term_stats_rebuild().
--
-- Guarantees: brain.tsv_length counts every indexed token of a tsvector
-- (positions, or 1 for a position-less lexeme), the document length BM25
-- normalises by. brain.tsquery_terms lists the distinct positive lexemes of a
-- tsquery (negated terms excluded), the terms BM25 sums over.
-- brain.term_stats_rebuild() recomputes brain.term_stats and
-- brain.corpus_stats from brain.chunks from scratch; the statement triggers
-- keep them equal to that result as chunks change.
CREATE OR REPLACE FUNCTION brain.tsv_length(doc tsvector) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	-- greatest() skips NULL: a lexeme without positions counts once.
	SELECT coalesce(sum(greatest(cardinality(positions), 1)), 0)::int
	FROM unnest(coalesce(doc, ''::tsvector))
$fn$;

CREATE OR REPLACE FUNCTION brain.tsquery_terms(q tsquery) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
	-- querytree() drops negated operands; lexemes print quoted with '' and \\ escaped.
	SELECT coalesce(array_agg(DISTINCT replace(replace(m[1], '''''', ''''), '\\', '\')), '{}')
	FROM regexp_matches(querytree(q), '''((?:[^'']|'''')*)''', 'g') AS m
$fn$;

CREATE OR REPLACE FUNCTION brain.term_stats_rebuild() RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
	DELETE FROM brain.term_stats;
	INSERT INTO brain.term_stats (lexeme, doc_freq)
	SELECT u.lexeme, count(*) FROM brain.chunks c, unnest(tsvector_to_array(c.tsv)) AS u (lexeme) GROUP BY u.lexeme;
	UPDATE brain.corpus_stats
	SET n_docs = (SELECT count(*) FROM brain.chunks),
	    total_len = (SELECT coalesce(sum(doc_len), 0) FROM brain.chunks);
END
$fn$;
-- chunks_term_stats_*: brain.term_stats (document frequency per lexeme) and
-- brain.corpus_stats (chunk count, total length) follow every INSERT, UPDATE,
-- DELETE and TRUNCATE of brain.chunks in the same transaction, so BM25 never
-- ranks with stale statistics. Statement-level triggers with transition tables
-- update each lexeme once per statement, which keeps bulk imports fast.
-- Lexemes come from tsvector_to_array(), which skips building the position
-- arrays unnest(tsvector) would, and are upserted in byte order (COLLATE
-- "C", the collation of term_stats.lexeme since migration 005), so
-- concurrent writers lock rows in the same order and cannot deadlock on each
-- other; corpus_stats is touched last.
CREATE OR REPLACE FUNCTION brain.chunks_stats_insert() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO brain.term_stats AS t (lexeme, doc_freq)
	SELECT u.lexeme COLLATE "C", count(*) FROM new_rows n, unnest(tsvector_to_array(n.tsv)) AS u (lexeme)
	GROUP BY 1 ORDER BY 1
	ON CONFLICT (lexeme) DO UPDATE SET doc_freq = t.doc_freq + EXCLUDED.doc_freq;
	UPDATE brain.corpus_stats s
	SET n_docs = s.n_docs + d.n, total_len = s.total_len + d.len
	FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM new_rows) d
	WHERE d.n > 0;
	RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.chunks_stats_delete() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
	gone text[];
BEGIN
	WITH up AS (
		INSERT INTO brain.term_stats AS t (lexeme, doc_freq)
		SELECT u.lexeme COLLATE "C", -count(*) FROM old_rows o, unnest(tsvector_to_array(o.tsv)) AS u (lexeme)
		GROUP BY 1 ORDER BY 1
		ON CONFLICT (lexeme) DO UPDATE SET doc_freq = t.doc_freq + EXCLUDED.doc_freq
		RETURNING t.lexeme, t.doc_freq
	)
	SELECT array_agg(up.lexeme) INTO gone FROM up WHERE up.doc_freq <= 0;
	-- A separate statement: these rows are already locked by the upsert, so
	-- this adds no lock-order hazard, and it sees the upsert's new versions.
	DELETE FROM brain.term_stats t WHERE t.lexeme = ANY (gone) AND t.doc_freq <= 0;
	UPDATE brain.corpus_stats s
	SET n_docs = s.n_docs - d.n, total_len = s.total_len - d.len
	FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM old_rows) d
	WHERE d.n > 0;
	RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.chunks_stats_update() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
	gone text[];
BEGIN
	-- Only rows whose tsvector changed count; embedding-only updates (the
	-- common case) change no statistics.
	WITH ch AS MATERIALIZED (
		SELECT o.tsv AS old_tsv, n.tsv AS new_tsv, o.doc_len AS old_len, n.doc_len AS new_len
		FROM old_rows o JOIN new_rows n ON n.id = o.id
		WHERE o.tsv IS DISTINCT FROM n.tsv
	), up AS (
		INSERT INTO brain.term_stats AS t (lexeme, doc_freq)
		SELECT x.lexeme, sum(x.delta) FROM (
			SELECT u.lexeme COLLATE "C" AS lexeme, 1 AS delta FROM ch, unnest(tsvector_to_array(ch.new_tsv)) AS u (lexeme)
			UNION ALL
			SELECT u.lexeme COLLATE "C", -1 FROM ch, unnest(tsvector_to_array(ch.old_tsv)) AS u (lexeme)
		) x
		GROUP BY x.lexeme HAVING sum(x.delta) <> 0 ORDER BY x.lexeme
		ON CONFLICT (lexeme) DO UPDATE SET doc_freq = t.doc_freq + EXCLUDED.doc_freq
		RETURNING t.lexeme, t.doc_freq
	), len AS (
		UPDATE brain.corpus_stats s SET total_len = s.total_len + d.len
		FROM (SELECT sum(ch.new_len - ch.old_len) AS len FROM ch) d
		WHERE d.len IS NOT NULL AND d.len <> 0
	)
	SELECT array_agg(up.lexeme) INTO gone FROM up WHERE up.doc_freq <= 0;
	DELETE FROM brain.term_stats t WHERE t.lexeme = ANY (gone) AND t.doc_freq <= 0;
	RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.chunks_stats_truncate() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	DELETE FROM brain.term_stats;
	UPDATE brain.corpus_stats SET n_docs = 0, total_len = 0;
	RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS chunks_term_stats_insert ON brain.chunks;
CREATE TRIGGER chunks_term_stats_insert
	AFTER INSERT ON brain.chunks REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_insert();

DROP TRIGGER IF EXISTS chunks_term_stats_delete ON brain.chunks;
CREATE TRIGGER chunks_term_stats_delete
	AFTER DELETE ON brain.chunks REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_delete();

DROP TRIGGER IF EXISTS chunks_term_stats_update ON brain.chunks;
CREATE TRIGGER chunks_term_stats_update
	AFTER UPDATE ON brain.chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_update();

DROP TRIGGER IF EXISTS chunks_term_stats_truncate ON brain.chunks;
CREATE TRIGGER chunks_term_stats_truncate
	AFTER TRUNCATE ON brain.chunks
	FOR EACH STATEMENT EXECUTE FUNCTION brain.chunks_stats_truncate();
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

ALTER TABLE brain.term_stats ALTER COLUMN lexeme TYPE text COLLATE "C";

DO $lz4$
BEGIN
	PERFORM set_config('default_toast_compression', 'lz4', true);
	ALTER TABLE brain.chunks ALTER COLUMN text SET COMPRESSION lz4;
	ALTER TABLE brain.chunks ALTER COLUMN tsv SET COMPRESSION lz4;
	ALTER TABLE brain.pages ALTER COLUMN body SET COMPRESSION lz4;
	ALTER TABLE brain.pages ALTER COLUMN timeline SET COMPRESSION lz4;
	ALTER TABLE brain.pages ALTER COLUMN frontmatter SET COMPRESSION lz4;
EXCEPTION WHEN invalid_parameter_value OR feature_not_supported THEN
	RAISE NOTICE 'this server has no lz4 support; pages and chunks keep the default compression';
END
$lz4$;

UPDATE brain.config SET value = '5' WHERE key = 'schema_version';
