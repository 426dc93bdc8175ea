-- brain.keyword_search(q, lim, source_ids, compiled_only): the keyword arm,
-- ranked chunks by BM25.
--
-- Guarantees:
-- * Raw input is parsed with websearch_to_tsquery, so quotes, `or`, `-`,
--   punctuation and arbitrary junk never raise a syntax error; a query with
--   no indexable words returns no rows.
-- * Candidates come from the GIN index on chunks.tsv: strict AND first; only
--   when AND finds nothing, and the query has no quoted phrase or negation,
--   an OR over its terms (the rarest terms whose document frequencies fit the
--   candidate budget, so a common word cannot flood the scan).
-- * Each candidate is scored with BM25 (k1, b from brain.search_setting):
--   idf = ln(1 + (N - df + 0.5) / (df + 0.5)) from brain.term_stats and
--   brain.corpus_stats (kept current by triggers), tf counts every position
--   weighted by field (title A x title_weight, compiled truth B x 1,
--   timeline C x timeline_weight), length-normalised by chunks.doc_len
--   against the corpus average.
-- * More than `keyword_candidates` matches are first cut to that many by
--   ts_rank (cover density-free, length-normalised) so latency stays bounded.
-- * Order is score DESC, chunk id ASC: the same input gives the same order.
--   lim is clamped to 1..1000 (fusion asks for more than the 100 shown).
CREATE OR REPLACE FUNCTION brain.keyword_search(
	q text,
	lim int DEFAULT 10,
	source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false)
RETURNS TABLE (chunk_id bigint, page_id bigint, score float8, keyword_rank int)
LANGUAGE plpgsql STABLE ROWS 30 SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	tsq tsquery;
	or_q tsquery;
	terms text[];
	cap int := greatest(brain.search_setting('keyword_candidates')::int, 10);
	k1 float8 := brain.search_setting('bm25_k1');
	b float8 := brain.search_setting('bm25_b');
	w_a float8 := brain.search_setting('title_weight');
	w_c float8 := brain.search_setting('timeline_weight');
	n_docs float8;
	avgdl float8;
	ids bigint[];
	only_compiled boolean := coalesce(compiled_only, false);
BEGIN
	IF q IS NULL THEN
		RETURN;
	END IF;
	lim := least(greatest(coalesce(lim, 10), 1), 1000);
	tsq := websearch_to_tsquery('english'::regconfig, q);
	terms := brain.tsquery_terms(tsq);
	IF cardinality(terms) = 0 THEN
		RETURN;
	END IF;

	ids := brain.keyword_candidates(tsq, cap, source_ids, only_compiled);

	-- OR fill-in: not for phrases or negations, whose meaning OR would drop.
	IF coalesce(cardinality(ids), 0) < lim AND cardinality(terms) > 1
	   AND regexp_replace(tsq::text, '''(?:[^'']|'''')*''', '', 'g') !~ '[!<]' THEN
		SELECT string_agg('''' || replace(replace(e.lexeme, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery
		INTO or_q
		FROM (
			SELECT l.lexeme, sum(coalesce(t.doc_freq, 0)) OVER (ORDER BY coalesce(t.doc_freq, 0), l.lexeme) AS cum,
			       row_number() OVER (ORDER BY coalesce(t.doc_freq, 0), l.lexeme) AS r
			FROM unnest(terms) AS l(lexeme)
			LEFT JOIN brain.term_stats t ON t.lexeme = l.lexeme
		) e
		WHERE e.r = 1 OR e.cum <= cap;
		ids := ARRAY(
			SELECT DISTINCT x FROM unnest(coalesce(ids, '{}') || coalesce(
				brain.keyword_candidates(or_q, cap, source_ids, only_compiled), '{}')) x);
	END IF;
	IF coalesce(cardinality(ids), 0) = 0 THEN
		RETURN;
	END IF;

	SELECT greatest(s.n_docs, 1), greatest(s.total_len::float8 / greatest(s.n_docs, 1), 1)
	INTO n_docs, avgdl FROM brain.corpus_stats s;

	RETURN QUERY
	WITH idf AS MATERIALIZED (
		SELECT l.lexeme,
		       ln(1 + (n_docs - coalesce(t.doc_freq, 0) + 0.5) / (coalesce(t.doc_freq, 0) + 0.5)) AS idf
		FROM unnest(terms) AS l(lexeme)
		LEFT JOIN brain.term_stats t ON t.lexeme = l.lexeme
	), scored AS (
		SELECT c.id, c.page_id, c.tsv @@ tsq AS strict,
		       coalesce((
				SELECT sum(i.idf * x.tf * (k1 + 1) / (x.tf + k1 * (1 - b + b * c.doc_len / avgdl)))
				FROM (
					SELECT u.lexeme,
					       w_a * cardinality(array_positions(u.weights, 'A'))
					       + w_c * cardinality(array_positions(u.weights, 'C'))
					       + cardinality(u.weights)
					       - cardinality(array_positions(u.weights, 'A'))
					       - cardinality(array_positions(u.weights, 'C')) AS tf
					-- Keep only the query's lexemes before unnesting: far cheaper
					-- than unnesting the whole tsvector.
					FROM unnest(ts_delete(c.tsv, tsvector_to_array(ts_delete(c.tsv, terms)))) u
				) x
				JOIN idf i ON i.lexeme = x.lexeme
				WHERE x.tf > 0), 0)::float8 AS s
		FROM brain.chunks c
		WHERE c.id = ANY (ids)
	)
	SELECT sc.id, sc.page_id, sc.s, (row_number() OVER (ORDER BY sc.strict DESC, sc.s DESC, sc.id))::int AS r
	FROM scored sc
	ORDER BY r
	LIMIT lim;
END
$fn$;
