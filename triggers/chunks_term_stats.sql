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
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
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
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
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
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
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
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
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
