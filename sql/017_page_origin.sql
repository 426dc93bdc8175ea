-- 017_page_origin: brain.pages.origin says which kind of write last changed
-- a page, so that `pgbrain import --prune` deletes only pages that mirror a
-- file.
--
-- Guarantees:
-- * 'file': written by an import of a directory; --prune deletes it when
--   its file is gone from that directory.
-- * 'put': written by `pgbrain put`, or by SQL that names no origin (a DBA's
--   INSERT); no import ever deletes it.
-- * Pages that exist when this migration runs were imported or put before
--   the column existed and cannot be told apart: they are 'file', as every
--   page was to --prune until now.

ALTER TABLE brain.pages
	ADD COLUMN origin text NOT NULL DEFAULT 'file'
		CONSTRAINT pages_origin_known CHECK (origin IN ('file', 'put'));
ALTER TABLE brain.pages ALTER COLUMN origin SET DEFAULT 'put';
