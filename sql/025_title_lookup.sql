-- 025_title_lookup: a page is found by its whole title in one probe.
--
-- Guarantees:
-- * brain.pages has a hash index on lower(title) (pages_title_lower),
--   which brain.title_exact_chunks uses to find the pages titled with a
--   query: the trigram index answered that equality too, but a long query
--   has many trigrams to intersect (0.2 ms a query on 20,000 Debian
--   titles). A hash index, unlike a b-tree, takes a title of any length
--   (up to the 1,000 characters brain.pages allows, which can be more
--   bytes than a b-tree entry holds).
-- * Building it reads every title once; writers wait meanwhile.

CREATE INDEX IF NOT EXISTS pages_title_lower ON brain.pages USING hash (lower(title));

UPDATE brain.config SET value = '25' WHERE key = 'schema_version';
