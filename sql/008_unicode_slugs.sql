-- 008_unicode_slugs: slugs in every script.
--
-- Guarantees: brain.pages accepts every slug the client derives from a file
-- name (client/markdown ValidSlug): '/'-separated segments that start with
-- a letter, digit or symbol of any script (or an ASCII letter or digit) and
-- go on with those, combining marks, '.', '_', '+' and '-'. What the CHECK
-- still refuses, whatever the client: ASCII upper case, spaces and other
-- ASCII punctuation, empty segments, a segment starting with '.', '_', '+'
-- or '-', control characters, non-ASCII spaces and invisible format
-- characters (U+0080-U+00A0, U+00AD, U+1680, U+2000-U+200F,
-- U+2028-U+202F, U+205F-U+206F, U+3000, U+FEFF, U+FFF0-U+FFFF), and slugs
-- over 512 bytes. Unicode lower case and NFC are the client's job: the
-- server's case rules depend on its locale and its normalisation on its
-- encoding, so a CHECK on them would differ between databases. Every slug
-- the old CHECK accepted is still accepted, so no stored row is touched.

ALTER TABLE brain.pages DROP CONSTRAINT pages_slug_shape;
ALTER TABLE brain.pages ADD CONSTRAINT pages_slug_shape CHECK (
	octet_length(slug) <= 512
	AND slug ~ ('^[a-z0-9\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF]'
		'[a-z0-9._+\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF-]*'
		'(/[a-z0-9\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF]'
		'[a-z0-9._+\u00A1-\u00AC\u00AE-\u167F\u1681-\u1FFF\u2010-\u2027\u2030-\u205E\u2070-\u2FFF\u3001-\uFEFE\uFF00-\uFFEF\U00010000-\U0010FFFF-]*)*$'));

UPDATE brain.config SET value = '8' WHERE key = 'schema_version';
