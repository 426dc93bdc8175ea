-- 021_unicode_types: page types in every script.
--
-- Guarantees: brain.pages accepts every type the client derives from a
-- frontmatter `type` or a page's first folder (client NormalizeType,
-- internal/markdown/pagetype.go): at most 64 characters, starting with a
-- letter, digit or symbol of any script (or an ASCII letter or digit) and
-- going on with those, combining marks, '_' and '-'. A folder "Café" or
-- "東京" is a type as it is written (lower-cased), where the old CHECK
-- (ASCII only) made the client drop every other letter ("caf") or fall
-- back to "page". What the CHECK still refuses, whatever the client: ASCII
-- upper case, spaces and other ASCII punctuation, control characters,
-- non-ASCII spaces and invisible format characters (the ranges
-- 008_unicode_slugs refuses in slugs), and the empty type. Unicode lower
-- case and NFC are the client's job, as for slugs. Every type the old
-- CHECK accepted is still accepted, so no stored row is touched.

ALTER TABLE brain.pages DROP CONSTRAINT pages_type_check;
ALTER TABLE brain.pages ADD CONSTRAINT pages_type_shape CHECK (
	char_length(type) <= 64
	AND type ~ ('^[a-z0-9\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF]'
		'[a-z0-9_\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF-]*$'));

UPDATE brain.config SET value = '21' WHERE key = 'schema_version';
