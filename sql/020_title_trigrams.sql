-- 020_title_trigrams: page titles are indexed by their trigrams.
--
-- Guarantees:
-- * The pg_trgm extension is installed (it ships with PostgreSQL's
--   contrib modules and is trusted: a database owner may create it), in
--   the schema of the vector extension unless it is there already.
-- * brain.pages has a GIN trigram index on lower(title), so a search can
--   find the pages whose title holds a query word inside a longer word
--   (`maa` in "libmaa-dev", `quickaddon` in "libkf5quickaddons5",
--   `queue` in "node-dequeue") without reading every title. Names are
--   written joined and affixed; the full-text index holds the title's
--   words whole and finds none of these (brain.title_name_chunks).
-- * Its pending list (new titles not yet merged into the index, which
--   every lookup reads whole) holds at most 256 kB, not the server's 4 MB:
--   a lookup on a brain during or just after an import read up to 4 MB,
--   5 ms a query on 20,000 pages; inserting 20,000 titles costs 0.14 s
--   instead of 0.09 (0.46 s with no pending list at all).

CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA {{.vector_schema}};

DO $do$
DECLARE
	s text;
BEGIN
	SELECT n.nspname INTO s FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
	WHERE e.extname = 'pg_trgm';
	EXECUTE format('CREATE INDEX pages_title_trgm ON brain.pages USING gin (lower(title) %I.gin_trgm_ops)'
		' WITH (gin_pending_list_limit = 256)', s);
END
$do$;

UPDATE brain.config SET value = '20' WHERE key = 'schema_version';
