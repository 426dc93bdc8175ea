-- 027_title_words: a page's title words are computed once, when it is
-- written.
--
-- Guarantees:
-- * brain.pages.title_words holds brain.title_words(title), the words the
--   keyword arm's title terms compare a query with (brain.title_scores),
--   as a generated column: no writer can store words that disagree with
--   the title. Before, every search cut them out of the tsvector of each
--   chunk it ranked: a third of the title terms' time, about 5% of the
--   keyword arm.
-- * A later migration that changes how text is read (brain.text_tsvector,
--   brain.slash_parts, the text search configuration) recomputes them
--   with UPDATE brain.pages SET title = title, as it reindexes chunks.
-- * Adding the column rewrites brain.pages once (every title is read);
--   writers and readers of pages wait meanwhile.

-- brain.title_words(title): the words of a page title that the keyword
-- arm's title terms (brain.title_scores) compare a query's lexemes with,
-- stored in brain.pages.title_words (a generated column, migration 027).
--
-- Guarantees: the distinct words, sorted, of the title's lexemes as every
-- chunk of the page holds them with weight A (brain.chunk_tsv: stemmed,
-- unaccented, CJK bigrams, a slashed word through its parts), cut at
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
					SELECT l FROM unnest(tsvector_to_array(CASE WHEN strpos(title, '/') = 0 THEN brain.text_tsvector(title)
					                                            ELSE brain.slash_parts(brain.text_tsvector(title)) END)) l
					WHERE strpos(l, '/') = 0), ' '),
			'0123456789-_./+@:~', '                  '), ' ')) x
		WHERE length(x) >= 2
		ORDER BY x);
END
$fn$;

ALTER TABLE brain.pages ADD COLUMN IF NOT EXISTS title_words text[]
	GENERATED ALWAYS AS (brain.title_words(title)) STORED;

UPDATE brain.config SET value = '27' WHERE key = 'schema_version';
