-- 019_chunks_stored_plain: a chunk row up to 8,160 bytes is stored as it
-- is: no compression, nothing out of line.
--
-- Guarantees:
-- * brain.chunks has toast_tuple_target 8160: a row is compressed or moved
--   to the TOAST table only when it is larger than that (a long chunk).
--   Before, every row over about 2 KB (text, tsvector and a 256-dimension
--   embedding make most rows of a prose brain that large) had its text and
--   tsvector compressed and its embedding moved out of line, so every
--   search decompressed the tsvector of each candidate it ranked, several
--   times: the ts_rank cut took 8.0 ms a query on a 220,000-page brain
--   against 3.9 with rows stored plain (docs/performance.md).
-- * Rows are not rewritten here: a chunk takes the new form when it is
--   next written whole (an import of its page with changes). Rewriting them
--   all would update every index of every chunk, the HNSW index too: more
--   than ten minutes for 900,000 chunks, under a lock. docs/performance.md
--   ("Chunk rows stored plain") has the statement that rewrites them, for
--   a DBA who wants the speed now.

ALTER TABLE brain.chunks SET (toast_tuple_target = 8160);

UPDATE brain.config SET value = '19' WHERE key = 'schema_version';
