-- Runs once in a new LongMemEval scratch brain (internal/longmemeval), never
-- in a user's brain: what a scratch brain holds is thrown away after the
-- run, and a question's haystack is a few hundred chunks.
--
-- The HNSW index is dropped: an exact scan ranks a few hundred chunks faster
-- than HNSW does (no index upkeep on every insert) and exactly (HNSW is
-- approximate). So are the GIN indexes on the tsvectors and on the titles'
-- trigrams, and the hash index of titles: matching a few hundred chunks by
-- scan costs less than keeping the index, and the session retrieval never
-- looks titles up. The statement triggers
-- that keep the BM25 term statistics are disabled, and a search fills them
-- just before it runs, for the question's own words (05_bm25_stats.sql): BM25
-- reads the document frequency of the query's lexemes and nothing else, so
-- those rows score exactly as a full brain.term_stats_rebuild() would, for
-- a few hundred lookups instead of one row per distinct word of the
-- haystack. Incremental upkeep costs one upsert per distinct word per batch,
-- and as much again to take it back at the next reset.
--
-- The brain's tables are made UNLOGGED and their foreign keys dropped: a
-- scratch brain needs no crash safety (no WAL), and its only writer is the
-- importer, which writes each chunk with its page in one statement, so
-- checking every chunk's page costs without catching anything. Together
-- that is about 2 ms of an S-size question (3%).

SELECT brain.vector_index_suspend();
DROP INDEX brain.chunks_tsv_gin;
DROP INDEX brain.pages_title_trgm;
DROP INDEX brain.pages_title_lower;
ALTER TABLE brain.chunks DISABLE TRIGGER chunks_term_stats_insert;
ALTER TABLE brain.chunks DISABLE TRIGGER chunks_term_stats_delete;
ALTER TABLE brain.chunks DISABLE TRIGGER chunks_term_stats_update;
ALTER TABLE brain.chunks DISABLE TRIGGER chunks_term_stats_truncate;

DO $do$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT c.conrelid::regclass AS tbl, c.conname FROM pg_constraint c
		WHERE c.contype = 'f' AND c.connamespace = 'brain'::regnamespace
	LOOP
		EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
	END LOOP;
	FOR r IN SELECT k.oid::regclass AS tbl FROM pg_class k
		WHERE k.relnamespace = 'brain'::regnamespace AND k.relkind = 'r' AND k.relpersistence = 'p'
	LOOP
		EXECUTE format('ALTER TABLE %s SET UNLOGGED', r.tbl);
	END LOOP;
END
$do$;
