-- brain.settle_text_indexes(): merges the pending lists of the GIN indexes
-- on brain.chunks and brain.pages (the chunks' tsvectors, the titles'
-- trigrams) into the indexes, and returns how many pending pages that
-- emptied.
--
-- Guarantees:
-- * Afterwards no search reads a pending list: new index entries wait
--   there until it passes gin_pending_list_limit (4 MB by default), and
--   every GIN scan reads it whole. On a 20,000-page brain, 1,200 chunks
--   left pending (0.9 MB) made a search 60% slower (7.3 → 11.8 ms at
--   p50) until autovacuum merged them; an import ends with up to 4 MB.
-- * Whatever GIN indexes those tables have: a brain that dropped one (the
--   LongMemEval scratch brain drops the tsvector index) is settled too.
-- * Only for a caller that may write chunks (INSERT on brain.chunks; the
--   caller is brain.caller_role()): SECURITY DEFINER,
--   because merging a pending list needs the index's owner, and readers
--   and agents have no reason to run it (insufficient_privilege). It
--   changes no data, only where index entries are kept.
CREATE OR REPLACE FUNCTION brain.settle_text_indexes() RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	who name := brain.caller_role();
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles a WHERE a.rolname = who
	               AND has_table_privilege(a.oid, 'brain.chunks'::regclass, 'INSERT')) THEN
		RAISE EXCEPTION 'permission denied to settle the brain''s indexes (role %)', who
			USING ERRCODE = '42501', HINT = 'only roles that write pages (pgbrain_writer, pgbrain_owner) run it';
	END IF;
	RETURN (SELECT coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0)
	        FROM pg_catalog.pg_index i
	        JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
	        JOIN pg_catalog.pg_am a ON a.oid = c.relam
	        WHERE a.amname = 'gin' AND i.indisvalid
	          AND i.indrelid IN ('brain.chunks'::regclass, 'brain.pages'::regclass));
END
$fn$;
