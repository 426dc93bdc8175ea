-- brain.title_key(t): the form in which a page title and a whole query are
-- compared, so that a query that is exactly a page's title names that page
-- (brain.keyword_scan's title_exact factor).
--
-- Guarantees: case-insensitive (lower()), surrounding white space and
-- quotes ignored, runs of white space inside one space; punctuation is
-- kept, so "C++" and "C" stay apart although search reads both as the
-- lexeme c. Immutable and inlined by the planner.
CREATE OR REPLACE FUNCTION brain.title_key(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT lower(regexp_replace(btrim(t, E' \t\r\n"“”'), '\s+', ' ', 'g'));
END;
