-- bm25_stats(q) sets brain.term_stats to the document frequencies of the
-- words of question q (parsed both as brain.keyword_search parses a query
-- and as a document) and brain.corpus_stats to the haystack's totals.
CREATE FUNCTION longmemeval.bm25_stats(q text) RETURNS void
LANGUAGE sql AS $fn$
	DELETE FROM brain.term_stats;
	-- One pass over the chunks finds those holding any of the words; only
	-- they are matched word by word.
	WITH w AS (
		SELECT DISTINCT unnest(tsvector_to_array(brain.text_tsvector(q))
		                       || (brain.parse_query(q)).terms) AS lexeme
	), l AS MATERIALIZED (
		SELECT lexeme, quoted, quoted::tsquery AS match
		FROM (SELECT lexeme, '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''' AS quoted FROM w) x
	), hit AS MATERIALIZED (
		SELECT c.tsv FROM brain.chunks c
		WHERE c.tsv @@ (SELECT string_agg(quoted, ' | ')::tsquery FROM l)
	)
	INSERT INTO brain.term_stats (lexeme, doc_freq)
	SELECT l.lexeme, count(*) FROM l JOIN hit ON hit.tsv @@ l.match
	GROUP BY l.lexeme;
	UPDATE brain.corpus_stats
	SET n_docs = (SELECT count(*) FROM brain.chunks),
	    total_len = (SELECT coalesce(sum(doc_len), 0) FROM brain.chunks);
$fn$;
