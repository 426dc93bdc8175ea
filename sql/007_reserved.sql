-- 007_reserved: holds number 7 for a change made in parallel (tern needs
-- contiguous numbers); it changes nothing but the recorded schema version.
-- Replaced by that change's own migration 007 when both are merged.

UPDATE brain.config SET value = '7' WHERE key = 'schema_version';
