-- 009_reserved: this number belongs to a migration of parallel work; the
-- file stands in for it so that tern, which needs contiguous numbers, can
-- reach 011. It is dropped when the real one is merged.
SELECT 1;
