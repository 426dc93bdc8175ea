-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.audit_field(v): one field of the audit log's hashed byte forms: the
-- 4-byte big-endian length of v's UTF-8 bytes followed by those bytes, or the
-- four bytes ff ff ff ff for NULL. Length prefixes make the concatenation of
-- fields unambiguous ("ab","c" and "a","bc" hash differently). See
-- docs/audit.md.
CREATE OR REPLACE FUNCTION brain.audit_field(v text) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT CASE
		WHEN v IS NULL THEN '\xffffffff'::bytea
		ELSE int4send(octet_length(convert_to(v, 'UTF8'))) || convert_to(v, 'UTF8')
	END;
END;
