-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- BM25 corpus statistics: brain.tsv_length(tsv), brain.tsquery_terms(q),
-- brain.term_stats_rebuild().
--
-- Guarantees: brain.tsv_length counts every indexed token of a tsvector
-- (positions, or 1 for a position-less lexeme), the document length BM25
-- normalises by. brain.tsquery_terms lists the distinct positive lexemes of a
-- tsquery (negated terms excluded), the terms BM25 sums over.
-- brain.term_stats_rebuild() recomputes brain.term_stats and
-- brain.corpus_stats from brain.chunks from scratch; the statement triggers
-- keep them equal to that result as chunks change.
CREATE OR REPLACE FUNCTION brain.tsv_length(doc tsvector) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	-- greatest() skips NULL: a lexeme without positions counts once.
	SELECT coalesce(sum(greatest(cardinality(positions), 1)), 0)::int
	FROM unnest(coalesce(doc, ''::tsvector));
END;

CREATE OR REPLACE FUNCTION brain.tsquery_terms(q tsquery) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	-- querytree() drops negated operands; lexemes print quoted with '' and \\ escaped.
	SELECT coalesce(array_agg(DISTINCT replace(replace(m[1], '''''', ''''), '\\', '\')), '{}')
	FROM regexp_matches(querytree(q), '''((?:[^'']|'''')*)''', 'g') AS m;
END;

CREATE OR REPLACE FUNCTION brain.term_stats_rebuild() RETURNS void
LANGUAGE plpgsql SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	DELETE FROM brain.term_stats;
	INSERT INTO brain.term_stats (lexeme, doc_freq)
	SELECT u.lexeme, count(*) FROM brain.chunks c, unnest(tsvector_to_array(c.tsv)) AS u (lexeme) GROUP BY u.lexeme;
	UPDATE brain.corpus_stats
	SET n_docs = (SELECT count(*) FROM brain.chunks),
	    total_len = (SELECT coalesce(sum(doc_len), 0) FROM brain.chunks);
END
$fn$;
