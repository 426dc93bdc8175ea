-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
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
