-- brain.title_key(t): the form in which a page title and a whole query are
-- compared, so that a query that is exactly a page's title names that page
-- (brain.keyword_scan's title_exact factor, brain.title_exact_chunks).
--
-- Guarantees: case-insensitive (lower(), and Greek final sigma read as σ,
-- as search reads it); every
-- run of white space (tabs, form feeds, no-break and other Unicode spaces)
-- is one space; surrounding spaces and quotes (also 「」『』) and trailing
-- sentence punctuation (?!.,;: and their full-width and CJK forms) are
-- ignored; other punctuation is kept, so "C++" and "C" stay apart although
-- search reads both as the lexeme c. Immutable and inlined by the planner.
CREATE OR REPLACE FUNCTION brain.title_key(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT translate(lower(btrim(regexp_replace(
		btrim(regexp_replace(t, '[\s\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]+', ' ', 'g'), ' "''“”„«»「」『』'),
		'[?!.,;:？！。，；：、]+$', ''), ' "''“”„«»「」『』')), 'ς', 'σ');
END;
