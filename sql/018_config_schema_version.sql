-- 018_config_schema_version: brain.config's schema_version key names the
-- schema's version again.
--
-- Guarantees: brain.config (key 'schema_version') holds the number of the
-- last migration applied, as every migration since 002 sets it; 017 did
-- not, so a brain at 17 said 16 there while tern's version table said 17.
UPDATE brain.config SET value = '18' WHERE key = 'schema_version';
