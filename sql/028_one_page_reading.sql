-- 028_one_page_reading: page text is read through one function.
--
-- Guarantees:
-- * brain.indexed_tsvector(t) is brain.text_tsvector(t) with the parts of
--   slashed words (brain.slash_parts), the reading migration 026 wrote out
--   in brain.chunk_tsv (twice), brain.embed_local and migration 027's
--   brain.title_words; each of them now calls it.
-- * Every function returns what it returned before, for every input, so no
--   stored tsvector, vector or title word is written again.

-- brain.indexed_tsvector(t): the lexemes a page's text is indexed with,
-- before weights.
--
-- Guarantees: brain.text_tsvector(t), and for text holding a slash the
-- parts of its slashed words too (brain.slash_parts); text without one
-- (most) skips that call. The one reading of page text: brain.chunk_tsv
-- (title and text of every chunk), brain.title_words (the stored title
-- words) and brain.embed_local (a query, embedded as pages are) all go
-- through it, so they cannot drift apart.
CREATE OR REPLACE FUNCTION brain.indexed_tsvector(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT CASE WHEN strpos(t, '/') = 0 THEN brain.text_tsvector(t) ELSE brain.slash_parts(brain.text_tsvector(t)) END;
END;

-- brain.chunk_tsv(title, text, chunk_source): the tsvector stored for a chunk.
--
-- Guarantees: the page title is weighted A, compiled-truth text B and
-- timeline text C, so a title match outranks a body match and timeline
-- entries rank below the compiled truth. Text goes through
-- brain.text_tsvector (CJK runs as bigrams, accents folded, english
-- stemming), the same pipeline brain.parse_query reads queries with, and
-- a slashed word also holds its parts (brain.indexed_tsvector), as a
-- slashed query word matches its parts.
CREATE OR REPLACE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT setweight(brain.indexed_tsvector(title), 'A')
	    || setweight(brain.indexed_tsvector(body), CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char");
END;

-- embed_local reads text as pages are read (brain.indexed_tsvector).
CREATE OR REPLACE FUNCTION brain.embed_local(t text) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT brain.embed_tsvector(brain.indexed_tsvector(t));
END;

-- brain.title_words(title): the words of a page title that the keyword
-- arm's title terms (brain.title_scores) compare a query's lexemes with,
-- stored in brain.pages.title_words (a generated column, migration 027).
--
-- Guarantees: the distinct words, sorted, of the title's lexemes as every
-- chunk of the page holds them with weight A (brain.indexed_tsvector, as
-- brain.chunk_tsv reads the title: stemmed, unaccented, CJK bigrams, a
-- slashed word through its parts), cut at
-- digits and at the punctuation the parser keeps inside words
-- ("python3-genshi" -> genshi, python; "gir1.2-vte-2.91" -> gir, vte);
-- a slashed lexeme is left out, its parts being lexemes of their own;
-- words of one character are left out. Computing them once per page
-- instead of from each ranked chunk's tsvector at every search takes a
-- third off the title terms' time (about 5% of the keyword arm).
CREATE OR REPLACE FUNCTION brain.title_words(title text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	RETURN ARRAY(
		SELECT DISTINCT x
		FROM unnest(string_to_array(translate(
				array_to_string(ARRAY(
					SELECT l FROM unnest(tsvector_to_array(brain.indexed_tsvector(title))) l
					WHERE strpos(l, '/') = 0), ' '),
			'0123456789-_./+@:~', '                  '), ' ')) x
		WHERE length(x) >= 2
		ORDER BY x);
END
$fn$;

UPDATE brain.config SET value = '28' WHERE key = 'schema_version';
