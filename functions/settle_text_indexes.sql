-- brain.settle_text_indexes(): merges the pending lists of the brain's GIN
-- indexes (the chunks' tsvectors, the titles' trigrams) into the indexes,
-- and returns how many pending pages that emptied.
--
-- Guarantees:
-- * Afterwards no search reads a pending list: new index entries wait
--   there until it passes gin_pending_list_limit (4 MB by default), and
--   every GIN scan reads it whole. On a 20,000-page brain, 1,200 chunks
--   left pending (0.9 MB) made a search 60% slower (7.3 → 11.8 ms at
--   p50) until autovacuum merged them; an import ends with up to 4 MB.
-- * Callable by any role that writes pages (an import calls it when it
--   wrote something): SECURITY DEFINER, because merging a pending list
--   needs the index's owner. It changes no data, only where index entries
--   are kept.
CREATE OR REPLACE FUNCTION brain.settle_text_indexes() RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	RETURN gin_clean_pending_list('brain.chunks_tsv_gin'::regclass)
	     + gin_clean_pending_list('brain.pages_title_trgm'::regclass);
END
$fn$;
