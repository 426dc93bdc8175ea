-- brain.title_name_chunks(lexemes, cap, source_ids, compiled_only, filt):
-- the first chunk of each page whose title holds one of lexemes inside a
-- word, for the keyword arm's candidates.
--
-- Guarantees:
-- * A lexeme counts when it has three letters or digits in a row and at
--   most cap titles (lower-cased) contain it: `maa` finds "libmaa-dev",
--   `quickaddon` "libkf5quickaddons5", a hyphenated word's own lexeme
--   `thread-loc` "librust-thread-local-dev". A lexeme in more than cap
--   titles (`lib`, `python`) names none of them and adds nothing.
-- * Only pages of source_ids (all when NULL); of each page its first chunk
--   (by chunk_index) that is compiled truth when compiled_only, and that
--   matches filt (the query's phrases and negations) when it is not NULL.
--   Every chunk carries the title's words, so the first stands for the page.
-- * One lookup in the trigram index of titles (pages_title_trgm,
--   migration 020) per lexeme. GIN answers with a bitmap of every title
--   holding the lexeme's trigrams before LIMIT applies, so a lookup costs
--   what its rarest trigram costs: the caller passes no lexeme of three
--   characters that a chunk holds as a word ("lib" is inside 41% of
--   Debian's package names: 0.3 ms on 20,000 pages, about 15 ms on a
--   million such titles). cap is at most 1,000; NULL lexemes and cap < 1
--   give an empty array.
-- Runs as its caller: brain.keyword_scan, whose row security rules apply
-- to what it returns.
CREATE OR REPLACE FUNCTION brain.title_name_chunks(
	lexemes text[], cap int, source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false, filt tsquery DEFAULT NULL)
RETURNS bigint[]
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp
	-- one plan for the session: the trigram index serves any pattern
	SET plan_cache_mode = force_generic_plan
	-- Never a scan of every title: with LIMIT and a pattern it cannot
	-- see, the planner guessed that reading titles in order finds enough
	-- soon, and on a brain just imported (before ANALYZE) chose that, 7 ms
	-- a word on 20,000 pages against 0.05 through the index.
	SET enable_seqscan = off AS $fn$
BEGIN
	IF coalesce(cap, 0) < 1 OR cardinality(lexemes) IS NULL THEN
		RETURN '{}';
	END IF;
	cap := least(cap, 1000);
	RETURN ARRAY(
		WITH t AS MATERIALIZED (
			SELECT ARRAY(
				-- LIKE's own characters in a lexeme ("a_b") stand for themselves
				SELECT pg.id FROM brain.pages pg
				WHERE lower(pg.title) LIKE '%' || replace(replace(replace(l.l, '\', '\\'), '%', '\%'), '_', '\_') || '%'
				  AND (source_ids IS NULL OR pg.source_id = ANY (source_ids))
				LIMIT cap + 1) AS pages
			-- three letters or digits in a row: fewer give the trigram
			-- index nothing to look up, and it would read every title
			FROM (SELECT DISTINCT x FROM unnest(lexemes) x WHERE x ~ '[[:alnum:]]{3}') AS l (l))
		SELECT DISTINCT c.id
		FROM t
		CROSS JOIN LATERAL unnest(t.pages) AS u (pid)
		CROSS JOIN LATERAL (
			SELECT c.id FROM brain.chunks c
			WHERE c.page_id = u.pid
			  AND (NOT coalesce(compiled_only, false) OR c.chunk_source = 'compiled_truth')
			  AND (filt IS NULL OR c.tsv @@ filt)
			ORDER BY c.chunk_index LIMIT 1) c
		WHERE cardinality(t.pages) <= cap
		ORDER BY c.id);
END
$fn$;
