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

{{ template "functions/bm25_stats.sql" . }}
{{ template "triggers/chunks_term_stats.sql" . }}
{{ template "functions/import_staged.sql" . }}

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
