-- brain.keyword_scan(q, lim, source_ids, compiled_only, exhaustive) and
-- brain.keyword_search(q, lim, source_ids, compiled_only): the keyword arm,
-- chunks ranked by BM25.
--
-- Guarantees:
-- * The query is read by brain.parse_query: a bag of words; quoted phrases
--   and -negations are required of every result; nothing raises on raw
--   input; a query without indexable positive words returns no rows.
-- * Every query term counts: BM25F = Σ_t idf(t) · tf'(t)(k1 + 1) /
--   (tf'(t) + k1), tf'(t) = title_weight · tf_title + tf_text / (1 − b +
--   b·doc_len/avgdl), over all of the query's terms (the title, which every
--   chunk of the page repeats, is not length-normalised; timeline
--   positions count timeline_weight in tf_text)
--   (a hyphenated or slashed word counts through its parts and joined
--   form; its own lexeme only when none of its parts is a term)
--   (k1, b, field weights from brain.search_settings); score =
--   (BM25 · (1 + coverage_weight · coverage²) + title_affinity · affinity)
--   · (1 + title_coverage · explained) · (1 − title_unexplained)^unexplained
--   · (1 + proximity · near) · (1 + title_exact when the page's title is
--   the whole query, brain.title_key)
--   (brain.bm25_scores: coverage is the share of the query's idf the chunk
--   holds; affinity, explained and unexplained are brain.title_scores of
--   the page title; near is the share of the query's neighbouring word
--   groups that stand close together in the chunk, brain.near_pairs; both
--   for the best title_depth chunks), times (1 + strict_bonus) when
--   the chunk matches the whole strict query (all word groups). The bonus
--   is small, so a chunk matching nearly all terms is never buried under
--   weaker chunks matching all of them.
-- * Candidates (bounded cost, measured against exhaustive BM25 in
--   docs/retrieval.md): every chunk holding one of the query's rarest terms
--   (document frequencies summing to at most keyword_candidates; a single
--   term past that is cut by length-normalised ts_rank; terms no chunk
--   holds do not count as the rarest), plus up to
--   keyword_candidates chunks matching all word groups but at most one
--   (but at most two for five or six groups, when that scan is bounded),
--   groups no chunk holds not counted (so a chunk whose words are all
--   common is not lost), for queries of at most 16 such groups, plus the
--   first chunk of each page whose title holds a term within the budget
--   inside a word, for terms in at most title_names titles
--   (brain.title_name_chunks; their title terms are always computed). MaxScore bound:
--   a chunk holding none of the rare terms scores at most
--   (Σ_other terms idf·(k1 + 1)·(1 + coverage_weight) + title_affinity ·
--   Σ_all terms idf)·(1 + title_coverage)·(1 + strict_bonus)·(1 + proximity)·(1 + title_exact) (a title word
--   may contain any term); when that is below
--   the lim-th score, the top lim equal exhaustive BM25's (meta exact =
--   true, claimed only when title_unexplained is 0: that factor can lower
--   a scored chunk below the lim-th score the bound was compared with). Otherwise, while fewer than keyword_candidates_max (default 0:
--   off) chunks are scored, the next rarest term's chunks are added and the
--   bound re-checked. With keyword_candidates_max 0, a first round that
--   took at most a third of the terms is followed by up to keyword_rounds
--   (default 0: off) such rounds, each adding the next rarest term's best
--   keyword_candidates / 4 chunks by length-normalised ts_rank, for terms
--   in at most 5 x keyword_candidates chunks. exhaustive = true scores
--   every chunk holding any term: the reference the cut is measured against.
-- * Bounded cost on common words: a candidate scan that could match more
--   than 5 x keyword_candidates chunks (by the terms' frequencies) is
--   replaced by the strict AND of the live groups, which GIN answers by
--   skipping along the rarest group's postings: for "all groups but one"
--   (over two groups, the OR of both), and for the first round when even
--   the rarest term is that common (its own cut only when no chunk holds
--   every group). When these narrow scans find fewer chunks than the
--   caller shows (withheld_within, default lim), up to that many chunks
--   matching all groups but one are added unranked (the first found), so
--   the answer is still full and a negation never empties it.
-- * If the phrases match nothing, the query is retried without them (never
--   an empty answer when a page holds one of the positive words).
-- * Order is score DESC, chunk id ASC. lim is clamped to 1..1000.
-- keyword_scan returns the ranked rows and then one last row with
-- chunk_id NULL whose meta column describes the scan: {candidates, rounds,
-- terms_scanned, terms_total, exact, phrases_dropped, title_scored (how
-- many chunks the title terms were computed for), parser, initials} (parser
-- is brain.parse_query's info, so callers need not parse again; initials
-- the lexemes of brain.query_initials that were added as terms).
-- SECURITY DEFINER: it runs as the owner of the brain's tables, past their
-- row security, because a policy keeps the planner from using the GIN
-- index for tsv @@ q (the operator is not leakproof), and it reads term
-- statistics agents may not read. So it filters its own output by the
-- caller's row security (brain.caller_scope()): a caller restricted to
-- agent-visible pages gets only rows of those pages, ranked 1.. among
-- them, and a meta without the counts that depend on hidden chunks
-- (candidates, rounds, terms_scanned, exact, phrases_dropped,
-- title_scored and initials are null); the hidden pages among the first
-- withheld_within (default lim) rows are reported only as meta.withheld
-- (brain.withheld_of: pages, unclassified, categories). For a caller that
-- sees everything, withheld has zeros and nothing is filtered.
DROP FUNCTION IF EXISTS brain.keyword_search(text, int, text[], boolean);
DROP FUNCTION IF EXISTS brain.keyword_scan(text, int, text[], boolean, boolean);
CREATE OR REPLACE FUNCTION brain.keyword_scan(
	q text,
	lim int DEFAULT 10,
	source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false,
	exhaustive boolean DEFAULT false,
	withheld_within int DEFAULT NULL)
RETURNS TABLE (chunk_id bigint, page_id bigint, score float8, keyword_rank int, meta jsonb)
LANGUAGE plpgsql STABLE ROWS 30 SECURITY DEFINER SET search_path = brain, {{.vector_schema}}, pg_temp
	-- the fill's first matches: see keyword_candidates
	SET synchronize_seqscans = off
	-- Its statements over term statistics and arrays were planned again
	-- on every call (custom plans looked cheaper), 0.2 ms of a search; the
	-- scans whose plan depends on the words (keyword_candidates, the fill
	-- below) still get plans for their query.
	SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
	cfg jsonb := brain.search_settings();
	p record;
	filt tsquery;
	budget float8 := least(greatest((cfg ->> 'keyword_candidates')::float8, 10), 1e9);
	max_cand int := greatest(least((cfg ->> 'keyword_candidates_max')::float8, 1e9), 0)::int;
	more_rounds int := greatest(least((cfg ->> 'keyword_rounds')::float8, 1e9), 0)::int;
	uncertain boolean := false; -- the first round read few of the terms (below)
	bonus float8 := greatest((cfg ->> 'strict_bonus')::float8, 0);
	k1 float8 := (cfg ->> 'bm25_k1')::float8;
	b float8 := (cfg ->> 'bm25_b')::float8;
	w_a float8 := (cfg ->> 'title_weight')::float8;
	w_c float8 := (cfg ->> 'timeline_weight')::float8;
	cover float8 := greatest((cfg ->> 'coverage_weight')::float8, 0);
	lead_w float8 := greatest((cfg ->> 'lead_weight')::float8, 0);
	lead_n int := greatest(least((cfg ->> 'lead_words')::float8, 16383), 0)::int;
	title_w float8 := greatest((cfg ->> 'title_affinity')::float8, 0);
	title_cov float8 := greatest((cfg ->> 'title_coverage')::float8, 0);
	title_unx float8 := least(greatest((cfg ->> 'title_unexplained')::float8, 0), 0.9);
	depth int := greatest(least((cfg ->> 'title_depth')::float8, 1e9), 0)::int;
	prox_w float8 := greatest((cfg ->> 'proximity')::float8, 0);
	title_ex float8 := least(greatest((cfg ->> 'title_exact')::float8, 0), 1e6);
	qn text; -- the whole query as a page title would be (below)
	pairs tsquery[];
	prox_on boolean;
	stricts float8[] := '{}';
	title_n int := 0;
	title_on boolean;
	only_compiled boolean := coalesce(compiled_only, false);
	n_docs float8;
	avgdl float8;
	lex text[];
	dfs float8[];
	live_df float8; -- the frequency of the rarest term some chunk holds
	idfs float8[];
	n_terms int;
	unscored text[]; -- lexemes that find chunks but add nothing to a score (see below)
	s_lex text[]; -- the terms scored, rarest first, and their idfs
	s_idfs float8[];
	all_terms text[]; -- those and, where chunks hold them, the query's initials
	initials text[];
	neg tsquery; -- the negated words: their pages are left out
	taken int := 0;
	round_q tsquery;
	cum float8 := 0;
	found bigint[];
	ids bigint[] := '{}';
	scores float8[] := '{}';
	theta float8;
	rest_ub float8;
	exact boolean := true;
	rounds int := 0;
	phrases_dropped boolean := false;
	near tsquery;
	fill_to int; -- how many rows the caller shows: withheld_within, at most lim
	drop_o bigint;
	live tsquery[];
	cap_near int := budget::int;
	-- A candidate scan that may match more chunks than this is replaced by
	-- a narrower one (see near_drop): 2,000 at the default budget of 400.
	wide float8 := 5 * budget;
	live_ub float8[];
	near_ub float8;
	near2_ub float8;
	near_drop int := 1;
	scope text := brain.caller_scope();
	r_ids bigint[];
	r_pids bigint[];
	r_scores float8[];
	shown boolean[];
	wh jsonb := jsonb_build_object('pages', 0, 'unclassified', 0, 'categories', '[]'::jsonb);
	hidden bigint[];
	m jsonb;
	title_cap int := greatest(least((cfg ->> 'title_names')::float8, 1e9), 0)::int;
	named bigint[] := '{}'; -- chunks of pages whose title holds a term inside a word
	exact_ids bigint[] := '{}'; -- chunks of pages whose title is the query
	seen bigint[] := '{}'; -- pages of the best chunks an agent may see
	top_ids bigint[]; -- the chunks whose title terms and proximity are computed
BEGIN
	lim := least(greatest(coalesce(lim, 10), 1), 1000);
	fill_to := least(greatest(coalesce(withheld_within, lim), 1), lim);
	IF q IS NULL THEN
		RETURN;
	END IF;
	p := brain.parse_query(q);
	-- The whole query, without the -words the parser read as exclusions,
	-- as a title is compared with it (brain.title_key).
	IF title_ex > 0 AND length(q) <= 1000 THEN
		qn := brain.title_key(array_to_string(ARRAY(
			SELECT x FROM regexp_split_to_table(q, '\s+') x
			WHERE NOT (left(x, 1) = '-' AND substr(x, 2) IN (SELECT jsonb_array_elements_text(p.info -> 'negated')))), ' '));
	END IF;
	n_terms := cardinality(p.terms);
	all_terms := p.terms;
	IF n_terms > 0 AND (cfg ->> 'initials')::float8 <> 0 THEN
		-- The initials of capitalised runs ("Open Text Summarizer" -> ots)
		-- count as terms where some, but at most budget, chunks hold them:
		-- a name written as its initials.
		initials := brain.query_initials(q);
		IF cardinality(initials) > 0 THEN
			all_terms := p.terms || ARRAY(
				SELECT i.l FROM unnest(initials) AS i (l) JOIN brain.term_stats t ON t.lexeme = i.l
				WHERE t.doc_freq BETWEEN 1 AND budget AND NOT (i.l = ANY (p.terms)) ORDER BY 1);
		END IF;
	END IF;
	IF n_terms = 0 THEN
		RETURN QUERY SELECT NULL::bigint, NULL::bigint, NULL::float8, NULL::int,
			jsonb_build_object('candidates', 0, 'rounds', 0, 'terms_scanned', 0, 'terms_total', 0, 'exact', true, 'phrases_dropped', false,
				'parser', p.info, 'withheld', wh);
		RETURN;
	END IF;
	n_terms := cardinality(all_terms);
	filt := p.filter_q;
	neg := brain.negated_tsquery(p.info -> 'negated');
	SELECT greatest(s.n_docs, 1), greatest(s.total_len::float8 / greatest(s.n_docs, 1), 1)
	INTO n_docs, avgdl FROM brain.corpus_stats s;
	-- Terms rarest first; a term no chunk holds has df 0 and bound 0.
	SELECT array_agg(l.lexeme ORDER BY coalesce(t.doc_freq, 0), l.lexeme),
	       array_agg(coalesce(t.doc_freq, 0)::float8 ORDER BY coalesce(t.doc_freq, 0), l.lexeme),
	       array_agg(ln(1 + (n_docs - coalesce(t.doc_freq, 0) + 0.5) / (coalesce(t.doc_freq, 0) + 0.5))
	                 ORDER BY coalesce(t.doc_freq, 0), l.lexeme)
	INTO lex, dfs, idfs
	FROM unnest(all_terms) AS l (lexeme) LEFT JOIN brain.term_stats t ON t.lexeme = l.lexeme;
	-- A hyphenated or slashed word's own lexeme ("tesseract-ocr",
	-- "tcp/ip") finds chunks but is not scored when one of its parts is a
	-- term of its group: with its parts (and joined form) it counted the
	-- word up to three times (in BM25 and in the title terms), and a page
	-- holding exactly that compound (a title "tesseract-ocr") beat the page
	-- holding its parts and the rest of the query ("tesseract-ocr-pan",
	-- "... Punjabi"). Pages index a slashed word's parts too (migration
	-- 026), so its parts score it wherever its own lexeme would. A part is
	-- a term without a dash or slash that the lexeme contains, other than
	-- its joined form, or for a slashed word one of the lexemes its parts
	-- read as. A query of that one word alone ("TCP/IP": no other group,
	-- phrase or OR) keeps it scored: with nothing else to weigh, the
	-- page saying it as written is favoured over one saying its parts
	-- more often; "to-do" and "and/or" (parts that are stop words), the
	-- other side of an OR, a host name, a URL (host/path: its host and
	-- its path are terms of their own) and a negative number ("-64") stay
	-- scored.
	unscored := ARRAY(
		SELECT t FROM unnest(p.terms) AS t
		WHERE NOT (cardinality(p.groups) = 1 AND jsonb_array_length(p.info -> 'phrases') = 0
		           AND coalesce((p.info ->> 'or_groups')::int, 0) = 0)
		  AND (strpos(t, '/') = 0 AND strpos(t, '-') > 0 OR strpos(t, '/') > 0
		       AND NOT (split_part(t, '/', 1) = ANY (p.terms) AND substr(t, strpos(t, '/')) = ANY (p.terms))) AND EXISTS (
			SELECT 1 FROM unnest(p.groups) AS g, unnest(p.terms) AS u
			WHERE strpos(u, '-') = 0 AND strpos(u, '/') = 0 AND u <> replace(t, '-', '')
			  -- (a slashed word's parts are stemmed on their own:
			  -- "policy/strategy" -> polici, strategi)
			  AND (strpos(t, u) > 0 OR strpos(t, '/') > 0 AND u = ANY (tsvector_to_array(brain.text_tsvector(translate(t, '/', ' ')))))
			  AND g @> brain.lexeme_tsquery(t) AND g @> brain.lexeme_tsquery(u)));
	SELECT coalesce(array_agg(u.l ORDER BY u.o), '{}'), coalesce(array_agg(u.i ORDER BY u.o), '{}')
	INTO s_lex, s_idfs
	FROM unnest(lex, idfs) WITH ORDINALITY AS u (l, i, o)
	WHERE NOT (u.l = ANY (unscored));

	-- The rarest term some chunk holds: the terms no chunk holds find
	-- nothing and cost nothing.
	live_df := coalesce((SELECT min(d) FROM unnest(dfs) AS d WHERE d > 0), 0);
	-- Live groups (some chunk holds one of their terms), each with an upper
	-- bound on the chunks it matches: the sum of its terms' frequencies.
	SELECT coalesce(array_agg(x.g ORDER BY x.o), '{}'), coalesce(array_agg(x.ub ORDER BY x.o), '{}')
	INTO live, live_ub
	FROM (
		-- (the group's terms are among the query's: @> tests a lexeme's
		-- presence in the group; brain.tsquery_terms here, an SQL function
		-- with a query, was planned again on every search)
		SELECT g.g, g.o, (SELECT sum(u.d) FROM unnest(lex, dfs) AS u (l, d)
		                  WHERE g.g @> brain.lexeme_tsquery(u.l)) AS ub
		FROM unnest(p.groups) WITH ORDINALITY AS g (g, o)
	) x
	WHERE x.ub > 0;
	-- Bounded cost: a GIN scan is cheap when it can skip along a rare
	-- term's postings and costly when a common term's whole posting list
	-- must be read and its matches ranked. "All groups but one" over two
	-- groups is the OR of both, so when its bound (Σ over the groups left
	-- out of the min of the others' bounds) passes wide, the candidates come
	-- from the strict AND of the live groups instead, which holds every
	-- chunk matching the whole query and skips along its rarest group.
	IF cardinality(live) > 1 THEN
		SELECT sum((SELECT min(u2) FROM unnest(live_ub) WITH ORDINALITY AS v2 (u2, o2) WHERE o2 <> v1.o1))
		INTO near_ub FROM unnest(live_ub) WITH ORDINALITY AS v1 (u1, o1);
		near_drop := CASE WHEN near_ub <= wide THEN 1 ELSE 0 END;
		-- Five or six groups: all but two, when that is bounded too (Σ over
		-- the pairs left out of the min of the others' bounds). A known
		-- item's page often holds three of five words, or four of six, none
		-- of them the rarest. Not past six: GIN evaluates the whole
		-- condition for every chunk holding one of its required words, and
		-- seven or eight groups cost a search 4% more for no gain measured
		-- (docs/retrieval.md; measured when near_strict wrote the OR of
		-- every AND, 15 of them at six groups, 28 at eight).
		IF near_drop = 1 AND cardinality(live) BETWEEN 5 AND 6 THEN
			SELECT sum((SELECT min(u3) FROM unnest(live_ub) WITH ORDINALITY AS v3 (u3, o3) WHERE o3 NOT IN (v1.o1, v2.o2)))
			INTO near2_ub
			FROM unnest(live_ub) WITH ORDINALITY AS v1 (u1, o1), unnest(live_ub) WITH ORDINALITY AS v2 (u2, o2)
			WHERE v1.o1 < v2.o2;
			IF near2_ub <= wide THEN
				near_drop := 2;
			END IF;
		END IF;
	END IF;

	<<retry>>
	LOOP
		-- Round 0: the rarest terms within the budget (at least one that
		-- some chunk holds: a word of the query no chunk holds, df 0, comes
		-- first and finds nothing, and "setproctitle for Go" came back
		-- empty with 558 chunks holding go) ...
		taken := 0;
		cum := 0;
		round_q := NULL;
		WHILE taken < n_terms AND (cum = 0 OR exhaustive OR cum + dfs[taken + 1] <= budget) LOOP
			taken := taken + 1;
			cum := cum + dfs[taken];
			round_q := CASE WHEN round_q IS NULL THEN brain.lexeme_tsquery(lex[taken])
			                ELSE round_q || brain.lexeme_tsquery(lex[taken]) END;
		END LOOP;
		-- A first round that read at most a third of the terms (all of them
		-- mid-frequency words: a description of a thing, not its name)
		-- often misses the page, which holds several of the others: up to
		-- keyword_rounds more rounds add the best chunks (a quarter of the
		-- budget, by length-normalised ts_rank) of each next rarest term
		-- within 5 x the budget, for a tenth or more of time (measured in
		-- docs/retrieval.md, which is why it is off by default).
		IF max_cand = 0 AND NOT exhaustive AND more_rounds > 0 AND taken * 3 <= n_terms THEN
			uncertain := true;
			-- (bounded by the rounds, a quarter of the budget each)
			max_cand := 1000000000;
		END IF;
		-- (one term alone may exceed the budget: then it is cut by ts_rank)
		found := NULL;
		IF NOT exhaustive AND live_df > wide AND cardinality(live) > 1 THEN
			-- Every term is common: ranking the rarest one's matches would
			-- read its whole posting list. The chunks matching all live
			-- groups come first; the rarest term's cut only when none do.
			found := brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN brain.near_strict(live, 0) ELSE brain.near_strict(live, 0) && filt END,
				greatest(budget::int, lim), source_ids, only_compiled);
			exact := false;
		END IF;
		IF cardinality(found) IS NULL OR cardinality(found) = 0 THEN
			found := brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN round_q ELSE round_q && filt END,
				CASE WHEN exhaustive THEN 2147483646 ELSE greatest(budget::int, lim) END, source_ids, only_compiled);
		ELSIF source_ids IS NOT NULL AND NOT exhaustive AND live_df > wide AND cardinality(found) < budget THEN
			-- The term statistics count every source: words common in the
			-- brain may be rare in the sources asked for, where the strict
			-- AND then finds a few chunks and the rest would be the first
			-- found. The rarest term's best chunks in those sources by
			-- ts_rank join them (keyword_candidates reads at most
			-- max(5 x budget, 2,000) of them).
			found := ARRAY(SELECT DISTINCT x FROM unnest(found || coalesce(brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN round_q ELSE round_q && filt END,
				greatest(budget::int, lim), source_ids, only_compiled), '{}')) x);
		END IF;
		IF NOT exhaustive AND cardinality(found) >= greatest(budget::int, lim) THEN
			exact := false;
		END IF;
		-- ... and the chunks matching all word groups but at most one: one
		-- GIN scan, usually few rows, which catches the right chunk when its
		-- words are common ones. Groups no chunk holds (a misspelling) do
		-- not count, or they would use up the one group that may be missing.
		-- When that scan would be unbounded (near_drop 0, above), all groups.
		-- Not past 16 groups: the near-match tsquery grows with the square of
		-- the groups, and a long query's rare terms already bring its
		-- candidates (32 common words made this one step half a second on
		-- 20,000 chunks; docs/security.md, "Bounded queries").
		IF NOT exhaustive AND cardinality(live) BETWEEN 2 AND 16 AND NOT (live_df > wide AND near_drop = 0) THEN
			-- (rarest group first: see near_strict)
			near := brain.near_strict(ARRAY(SELECT v.g FROM unnest(live, live_ub) WITH ORDINALITY AS v (g, u, o) ORDER BY v.u, v.o), near_drop);
			found := ARRAY(SELECT DISTINCT x FROM unnest(coalesce(found, '{}') || coalesce(brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN near ELSE near && filt END,
				cap_near, source_ids, only_compiled), '{}')) x);
		END IF;
		-- The narrow scans found fewer chunks than the caller shows (often
		-- one: the known item's rare word), or none (a negation excluded
		-- every chunk holding the rare words): up to that many chunks
		-- matching all groups but one, the first found, unranked, for BM25
		-- to order. So the answer is full and never empty while chunks hold
		-- some of the words. The target is what the caller shows
		-- (withheld_within), not lim: brain.search asks for three times its
		-- limit to fuse, and GIN answers this OR of ANDs over common words
		-- by reading every posting list before LIMIT applies (125 ms of a
		-- 180 ms query at 1,000,000 pages), while chunks matching every
		-- group, which the strict scan found, rank above these anyway.
		IF NOT exhaustive AND near_drop = 0 AND cardinality(live) BETWEEN 2 AND 16 AND coalesce(cardinality(found), 0) < fill_to THEN
			-- One AND per left-out group, the rarest group left out first
			-- (its AND matches the most chunks), until full: GIN answers an
			-- AND by skipping along its rarest postings, while the OR of
			-- these ANDs in one tsquery read every posting list whole
			-- (140 ms at 1,000,000 pages against about 25 for one AND).
			FOR drop_o IN SELECT v.o FROM unnest(live_ub) WITH ORDINALITY AS v (u, o) ORDER BY v.u, v.o LOOP
				near := brain.near_strict(ARRAY(SELECT g FROM unnest(live) WITH ORDINALITY AS w (g, o) WHERE w.o <> drop_o ORDER BY w.o), 0);
				IF filt IS NOT NULL THEN
					near := near && filt;
				END IF;
				-- EXECUTE: planned for this tsquery (see plan_cache_mode above)
				EXECUTE $q$SELECT ARRAY(SELECT DISTINCT x FROM unnest(coalesce($1, '{}') || ARRAY(
					SELECT c.id FROM brain.chunks c
					WHERE c.tsv @@ $2
					  AND NOT (c.id = ANY (coalesce($1, '{}')))
					  AND (NOT $3 OR c.chunk_source = 'compiled_truth')
					  AND ($4::text[] IS NULL OR c.page_id IN (
						SELECT pg.id FROM brain.pages pg WHERE pg.source_id = ANY ($4)))
					LIMIT $5)) x)$q$
				INTO found USING found, near, only_compiled, source_ids, fill_to - coalesce(cardinality(found), 0);
				EXIT WHEN cardinality(found) >= fill_to;
			END LOOP;
		END IF;
		-- Pages whose title holds a term inside a word ("maa" in
		-- "libmaa-dev"): names are written joined and affixed, and the
		-- full-text index holds the title's words whole, so neither scan
		-- above finds them when the text does not repeat the name. Only
		-- terms within the budget (a common word inside a title names
		-- nothing), of four letters or digits in a row or else held by no
		-- chunk ("maa" yes, "lib" no: a three-character trigram is inside
		-- too many titles to look up cheaply), and in at most title_names
		-- titles; a hyphenated word's own lexeme too, scored or not
		-- ("thread-loc" names "librust-thread-local-dev"). Scored with the
		-- rest (one call of bm25_scores: an SQL function, planned on every
		-- call), and their title terms are computed whatever their rank
		-- (below).
		named := brain.title_name_chunks(
			ARRAY(SELECT u.l FROM unnest(lex, dfs) AS u (l, d) WHERE u.d <= budget AND (u.d = 0 OR u.l ~ '[[:alnum:]]{4}')),
			title_cap, source_ids, only_compiled, filt);
		-- Pages titled with the whole query ("C"), however many chunks
		-- say its words more often, join them the same way.
		IF title_ex > 0 THEN
			exact_ids := brain.title_exact_chunks(qn, source_ids, only_compiled, filt, scope <> 'all');
			named := named || exact_ids;
		END IF;
		-- (only those the scans did not find: the others hold a term and
		-- compete on it like any candidate)
		named := ARRAY(SELECT DISTINCT x FROM unnest(named) x EXCEPT SELECT y FROM unnest(found) y);
		IF cardinality(named) > 0 THEN
			found := coalesce(found, '{}') || named;
		END IF;
		rounds := 1;
		ids := '{}';
		scores := '{}';
		stricts := '{}';
		LOOP
			-- A -word leaves out pages: chunks whose page holds it elsewhere too.
			IF neg IS NOT NULL THEN
				found := brain.without_negated(found, neg);
			END IF;
			IF cardinality(found) > 0 THEN
				SELECT ids || array_agg(s.id), scores || array_agg(s.sc), stricts || array_agg(s.strict)
				INTO ids, scores, stricts
				FROM brain.bm25_scores(found, s_lex, s_idfs, p.strict_q, k1, b, w_a, w_c, avgdl, bonus, cover, lead_w, lead_n) s;
			END IF;
			EXIT WHEN taken >= n_terms OR exhaustive;
			SELECT x INTO theta FROM unnest(scores) x ORDER BY x DESC OFFSET lim - 1 LIMIT 1;
			-- The title affinity may credit any term (a title word can
			-- contain a lexeme the chunk does not hold), so all terms
			-- count in its share of the bound.
			SELECT (coalesce(sum(u) FILTER (WHERE o > taken AND d > 0), 0) * (k1 + 1) * (1 + cover)
			        + title_w * coalesce(sum(u), 0)) * (1 + title_cov) * (1 + bonus) * (1 + prox_w) * (1 + title_ex) INTO rest_ub
			FROM unnest(idfs, dfs) WITH ORDINALITY AS v (u, d, o);
			EXIT WHEN theta IS NOT NULL AND rest_ub < theta;
			IF cardinality(ids) >= max_cand OR uncertain AND (rounds > more_rounds OR dfs[taken + 1] > wide) THEN
				exact := false;
				EXIT;
			END IF;
			taken := taken + 1;
			rounds := rounds + 1;
			found := brain.keyword_candidates(
				CASE WHEN filt IS NULL THEN brain.lexeme_tsquery(lex[taken]) ELSE brain.lexeme_tsquery(lex[taken]) && filt END,
				CASE WHEN uncertain THEN greatest(budget::int / 4, 1) ELSE max_cand END, source_ids, only_compiled);
			-- Only chunks not scored yet; the cut keeps the total bounded.
			found := ARRAY(SELECT f FROM unnest(found) f EXCEPT SELECT s FROM unnest(ids) s);
			IF cardinality(found) > max_cand - cardinality(ids) THEN
				exact := false;
				found := ARRAY(
					SELECT c.id FROM brain.chunks c WHERE c.id = ANY (found)
					ORDER BY ts_rank('{0.1, 0.2, 0.4, 1.0}'::float4[], c.tsv, brain.lexeme_tsquery(lex[taken]), 1) DESC, c.id
					LIMIT max_cand - cardinality(ids));
			END IF;
		END LOOP;
		-- Phrases that match nothing: answer with the words alone.
		EXIT retry WHEN cardinality(ids) > 0 OR phrases_dropped OR jsonb_array_length(p.info -> 'phrases') = 0;
		phrases_dropped := true;
		-- Keep the negations only: none of the negated words (NULL when
		-- there are none).
		filt := !!neg;
	END LOOP;

	-- Title terms for the best title_depth (at least lim) chunks, which
	-- they reorder; the top lim come from them (the unexplained-word
	-- factor may lower one of them below a chunk further down, which keeps
	-- its BM25 score). Computing them for every candidate doubled the
	-- arm's time.
	-- The word-pair proximity is computed for the same chunks.
	title_on := (title_w > 0 OR title_cov > 0 OR title_unx > 0) AND cardinality(ids) > 0;
	IF prox_w > 0 AND cardinality(ids) > 0 THEN
		pairs := brain.near_pairs(p.groups);
	END IF;
	prox_on := cardinality(pairs) > 0;
	-- (the title-named chunks join them whatever their rank, and so do
	-- the chunks of pages titled with the query, found by the scans or not)
	top_ids := ARRAY(
		SELECT s.id FROM unnest(ids, scores) AS s (id, sc)
		ORDER BY s.sc DESC, s.id
		LIMIT CASE WHEN title_on OR prox_on THEN greatest(depth, lim) ELSE lim END);
	IF title_on OR prox_on THEN
		top_ids := top_ids || ARRAY(SELECT x FROM unnest(named) x WHERE x = ANY (ids) EXCEPT SELECT y FROM unnest(top_ids) y);
	END IF;
	top_ids := top_ids || ARRAY(SELECT x FROM unnest(exact_ids) x WHERE x = ANY (ids) EXCEPT SELECT y FROM unnest(top_ids) y);
	IF title_on THEN
		title_n := cardinality(top_ids);
	END IF;
	IF title_ex > 0 AND scope = 'agent' THEN
		seen := ARRAY(SELECT t.page_id FROM brain.page_pii t
		              WHERE t.agent_visible AND t.page_id IN (SELECT c.page_id FROM brain.chunks c WHERE c.id = ANY (top_ids)));
	END IF;
	WITH top AS (
		SELECT s.id, s.sc, s.st FROM unnest(ids, scores, stricts) AS s (id, sc, st)
		WHERE s.id = ANY (top_ids)),
	t AS (
		SELECT ts.id, ts.affinity, ts.explained, ts.unexplained
		FROM brain.title_scores(ARRAY(SELECT top.id FROM top), s_lex, s_idfs) ts
		WHERE title_on),
	px AS (
		SELECT c.id, count(*) FILTER (WHERE c.tsv @@ x)::float8 / cardinality(pairs) AS near
		FROM brain.chunks c, unnest(pairs) AS x
		WHERE prox_on AND c.id = ANY (ARRAY(SELECT top.id FROM top))
		GROUP BY c.id),
	ex AS (
		-- chunks of a page whose title is the query itself ("C" for the
		-- page titled C, not C++, which both read as the lexeme c)
		SELECT c.id FROM brain.chunks c JOIN brain.pages pg ON pg.id = c.page_id
		WHERE title_ex > 0 AND qn <> '' AND c.id = ANY (ARRAY(SELECT top.id FROM top))
		  -- (strpos first: most titles do not even hold the query's first word)
		  -- (and the key reads ς as σ, so the test does too)
		  AND strpos(translate(lower(pg.title), 'ς', 'σ'), split_part(qn, ' ', 1)) > 0 AND brain.title_key(pg.title) = qn
		  -- a page the caller may not see moves nothing (else a ranking
		  -- would confirm a guess at a hidden page's title)
		  AND (scope = 'all' OR pg.id = ANY (seen))),
	f AS (
		SELECT top.id, CASE WHEN t.id IS NULL THEN top.sc
			ELSE (top.sc + title_w * t.affinity * top.st) * (1 + title_cov * t.explained)
			     * power(1 - title_unx, t.unexplained) END * (1 + prox_w * coalesce(px.near, 0))
			* CASE WHEN ex.id IS NULL THEN 1 ELSE 1 + title_ex END AS sc
		FROM top LEFT JOIN t ON t.id = top.id LEFT JOIN px ON px.id = top.id LEFT JOIN ex ON ex.id = top.id
		ORDER BY 2 DESC, 1
		LIMIT lim)
	SELECT coalesce(array_agg(f.id ORDER BY f.sc DESC, f.id), '{}'), coalesce(array_agg(c.page_id ORDER BY f.sc DESC, f.id), '{}'),
	       coalesce(array_agg(f.sc ORDER BY f.sc DESC, f.id), '{}')
	INTO r_ids, r_pids, r_scores
	FROM f
	JOIN brain.chunks c ON c.id = f.id;
	m := jsonb_build_object('candidates', cardinality(ids), 'rounds', rounds, 'terms_scanned', taken,
			'terms_total', n_terms, 'exact', (exact AND title_unx = 0) OR exhaustive, 'phrases_dropped', phrases_dropped,
			'title_scored', title_n, 'parser', p.info,
			'initials', to_jsonb(coalesce(all_terms[cardinality(p.terms) + 1:], '{}')));
	IF scope = 'all' THEN
		RETURN QUERY SELECT u.id, u.pid, u.sc, u.r::int, NULL::jsonb
			FROM unnest(r_ids, r_pids, r_scores) WITH ORDINALITY AS u (id, pid, sc, r) ORDER BY u.r;
	ELSE
		-- Only the caller's pages, ranked among themselves; the others
		-- only as a count, and no statistic they move.
		shown := ARRAY(SELECT scope = 'agent' AND coalesce((SELECT t.agent_visible FROM brain.page_pii t WHERE t.page_id = u.pid), false)
		               FROM unnest(r_pids) WITH ORDINALITY AS u (pid, o) ORDER BY u.o);
		RETURN QUERY SELECT u.id, u.pid, u.sc, (row_number() OVER (ORDER BY u.r))::int, NULL::jsonb
			FROM unnest(r_ids, r_pids, r_scores, shown) WITH ORDINALITY AS u (id, pid, sc, ok, r)
			WHERE u.ok ORDER BY u.r;
		hidden := ARRAY(SELECT u.pid FROM unnest(r_pids, shown) WITH ORDINALITY AS u (pid, ok, r)
		                WHERE NOT u.ok AND u.r <= coalesce(withheld_within, lim));
		IF cardinality(hidden) > 0 THEN
			wh := brain.withheld_of(hidden);
		END IF;
		m := m || jsonb_build_object('candidates', NULL, 'rounds', NULL, 'terms_scanned', NULL, 'exact', NULL,
			'phrases_dropped', NULL, 'title_scored', NULL, 'initials', NULL);
	END IF;
	RETURN QUERY SELECT NULL::bigint, NULL::bigint, NULL::float8, NULL::int, m || jsonb_build_object('withheld', wh);
END
$fn$;

-- brain.near_pairs(groups): one tsquery for each two word groups that
-- follow each other in the query (brain.parse_query's groups, in query
-- order), matching a chunk where the two stand close together: adjacent in
-- either order, or the second within three words after the first ("file
-- system" finds "file system", "system file" and "file and directory
-- system"). Known-item queries name a thing in the words its page uses
-- side by side; docs/retrieval.md, "Word proximity", has the measurement.
-- At most 31 pairs, of the first 32 groups: brain.query_bound keeps 32
-- distinct words, but words it counts as one ("a·b·c", "x→y") can be
-- several groups, up to the 64 brain.parse_query reads (before both bounds
-- a 4,000-character CJK query made 3,900 pairs, 50 x 3,900 matches, a
-- second of the arm's time).
-- A group's AND (a hyphenated word's parts, in order) becomes a phrase
-- here: inside a phrase PostgreSQL reads a & b as both at one position,
-- which never matches, and the compound's own lexeme stands before its
-- parts in a chunk ("heron-egret falcon": heron-egret 1, heron 2, egret 3,
-- falcon 4), so only the parts' phrase finds the compound next to its
-- neighbour, and the spaced form ("heron egret falcon") at all.
CREATE OR REPLACE FUNCTION brain.near_pairs(groups tsquery[]) RETURNS tsquery[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	RETURN (WITH g AS (
		SELECT replace(u.g::text, ' & ', ' <-> ')::tsquery AS g, u.o
		FROM unnest(groups[1:least(cardinality(groups), 32)]) WITH ORDINALITY AS u (g, o))
	SELECT coalesce(array_agg(tsquery_phrase(a.g, b.g, 1) || tsquery_phrase(b.g, a.g, 1)
	                          || tsquery_phrase(a.g, b.g, 2) || tsquery_phrase(a.g, b.g, 3) ORDER BY a.o), '{}')
	FROM g a JOIN g b ON b.o = a.o + 1);
END
$fn$;

-- brain.near_strict(groups, drop): a tsquery matching whatever matches all
-- of groups but at most drop of them. drop is clamped to 0..2.
-- Written as "group 1 and at least m-1 of the rest, or at least m of the
-- rest" (m = groups - drop), expanded from the first group on, not as the
-- OR over every way to leave groups out: the same chunks match, and GIN,
-- given the groups rarest first, decides most chunks at the first group
-- (35-40% less time for four of six groups on the Debian check).
CREATE OR REPLACE FUNCTION brain.near_strict(groups tsquery[], drop int) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	n int := coalesce(cardinality(groups), 0);
	m int := n - least(greatest(coalesce(drop, 0), 0), 2, greatest(n - 1, 0));
	-- prev[j]: at least j of groups[i+1..n]; cur[j]: at least j of groups[i..n]
	prev tsquery[];
	cur tsquery[];
	i int;
	j int;
BEGIN
	IF n = 0 THEN
		RETURN NULL;
	END IF;
	FOR i IN REVERSE n .. 1 LOOP
		cur := '{}';
		-- only the j a later step reads: i - 1 groups come before this one
		FOR j IN greatest(1, m - i + 1) .. least(m, n - i + 1) LOOP
			cur[j] := CASE WHEN j = 1 THEN groups[i] ELSE groups[i] && prev[j - 1] END;
			IF j <= n - i THEN
				cur[j] := cur[j] || prev[j];
			END IF;
		END LOOP;
		prev := cur;
	END LOOP;
	RETURN prev[m];
END
$fn$;

-- brain.bm25_scores(ids, lexemes, idfs, strict_q, k1, b, w_a, w_c, avgdl,
-- bonus, cover, lead_w, lead_n): the score of each chunk in ids over the
-- given (distinct, non-empty) terms (see keyword_scan): sc = BM25 · (1 + cover · coverage²) · strict,
-- where coverage is the share of the terms' idf the chunk holds and strict
-- (also returned) is 1 + bonus when the chunk matches strict_q, else 1.
-- Set-based: the query's lexemes are cut out of every chunk's tsvector
-- with C functions (every position weighted D, the query's lexemes A,
-- ts_filter A), one row per chunk and lexeme, joined to the title (A) and
-- timeline (C) positions from the small ts_filter of those weights, and
-- summed per chunk after one sort; a subquery per chunk that unnested the
-- tsvector made this five times slower (3.0 against 0.6 ms for 500
-- chunks), and an ORDER BY inside each chunk's sums cost a third more.
DROP FUNCTION IF EXISTS brain.bm25_scores(bigint[], text[], float8[], tsquery,
	float8, float8, float8, float8, float8, float8);
DROP FUNCTION IF EXISTS brain.bm25_scores(bigint[], text[], float8[], tsquery,
	float8, float8, float8, float8, float8, float8, float8);
CREATE OR REPLACE FUNCTION brain.bm25_scores(
	ids bigint[], lexemes text[], idfs float8[], strict_q tsquery,
	k1 float8, b float8, w_a float8, w_c float8, avgdl float8, bonus float8,
	cover float8, lead_w float8 DEFAULT 0, lead_n int DEFAULT 0)
RETURNS TABLE (id bigint, sc float8, strict float8)
LANGUAGE sql STABLE
BEGIN ATOMIC
	WITH t AS MATERIALIZED (
		SELECT c.id, c.doc_len, c.chunk_index, c.tsv, ts_filter(c.tsv, '{a,c}') AS ac,
		       CASE WHEN strict_q IS NOT NULL AND c.tsv @@ strict_q THEN 1 + bonus ELSE 1 END::float8 AS strict
		FROM brain.chunks c WHERE c.id = ANY (ids)
	), ac AS (
		-- which positions of the query's lexemes are title (A) and
		-- timeline (C) ones, unnested only where the title or timeline
		-- holds one (most candidates: not, and unnesting them all cost a
		-- quarter of the function's time) ...
		SELECT t.id, u.lexeme, cardinality(array_positions(u.weights, 'A')) AS na,
		       cardinality(array_positions(u.weights, 'C')) AS nc
		FROM t, unnest(t.ac) u
		WHERE t.ac @@ (SELECT string_agg(brain.lexeme_tsquery(l)::text, ' | ')::tsquery FROM unnest(lexemes) l WHERE l <> '')
		  AND u.lexeme = ANY (lexemes)
	), tf AS (
		-- ... joined to every position of them (a lexeme once a chunk in
		-- each), and summed below in this order (one sort of all rows; an
		-- ORDER BY inside the sums sorted each chunk's rows apart, a third
		-- of the function's time): chunks with the same text get the same
		-- score to the last bit, so their tie is broken by id
		-- ta: the title's (weight A) share of the term frequency, tb the
		-- text's (timeline weighted, every other position once, and
		-- lead_w more within the first lead_n positions of a page's first
		-- chunk: the title's, which come first, not counted; positions
		-- are sorted, so width_bucket counts those up to lead_n).
		SELECT x.id, x.lexeme, x.doc_len,
		       idfs[array_position(lexemes, x.lexeme)] AS idf,
		       w_a * coalesce(ac.na, 0) AS ta,
		       cardinality(x.positions) - coalesce(ac.na, 0) + (w_c - 1) * coalesce(ac.nc, 0)
		       + CASE WHEN lead_w > 0 AND x.chunk_index = 0 AND x.positions[1] <= lead_n
		              THEN lead_w * greatest(width_bucket(lead_n::int2, x.positions) - coalesce(ac.na, 0), 0) ELSE 0 END AS tb
		FROM (SELECT t.id, t.doc_len, t.chunk_index, u.lexeme, u.positions
		      FROM t, unnest(ts_filter(setweight(setweight(t.tsv, 'D'), 'A', lexemes), '{a}')) u) x
		LEFT JOIN ac ON ac.id = x.id AND ac.lexeme = x.lexeme
		ORDER BY x.id, x.lexeme
	), m AS (
		-- BM25F: only the text's frequency is normalised by the chunk's
		-- length. The title is the page's, the same in each of its chunks,
		-- so a word found in it counts alike in a long chunk and a short
		-- one (a title-only query showed a page's one-line timeline chunk
		-- instead of its compiled truth), and a mention in the text can
		-- only add to it.
		SELECT f.id, sum(f.idf * f.tfp * (k1 + 1) / (f.tfp + k1)) AS bm25, sum(f.idf) AS held
		FROM (SELECT tf.id, tf.idf, tf.ta + tf.tb / (1 - b + b * tf.doc_len / avgdl) AS tfp
		      FROM tf WHERE tf.ta + tf.tb > 0) f
		GROUP BY f.id
	)
	SELECT t.id,
	       (coalesce(m.bm25, 0)
	        * (1 + cover * power(coalesce(m.held, 0) / greatest((SELECT sum(v) FROM unnest(idfs) v), 1e-9), 2))
	        * t.strict)::float8,
	       t.strict
	FROM t LEFT JOIN m ON m.id = t.id;
END;

-- brain.title_scores(ids, lexemes, idfs): how well the query's (distinct)
-- lexemes name the page of each chunk in ids, one row per chunk. The title
-- words are the page's brain.pages.title_words (brain.title_words: the
-- title's lexemes, stemmed and unaccented like the query's, cut at digits
-- and at the punctuation the parser keeps inside words: "python3-genshi"
-- -> python, genshi; "gir1.2-vte-2.91" -> gir, vte; a slashed word read
-- through its parts; words of one character left out). A lexeme and a title word
-- match when they are equal, the word begins with the lexeme (lexeme of 3+
-- characters: "rust" in "rustc"), the lexeme begins with the word (word of
-- 3+ characters: "dev" for "develop", "lib" for "librari"), the word
-- contains the lexeme (4+ characters: "aspect" in "libaspectj") or ends
-- with it (3+ characters: "maa" in "libmaa"): names are
-- written joined, abbreviated and affixed in ways stemming does not undo.
-- affinity = Σ idf of the lexemes matching some title word; explained =
-- share of the distinct title words some lexeme matches (0 without title
-- words); unexplained = how many distinct title words no lexeme matches. Set-based (one call for all chunks; per-chunk calls or
-- subqueries cost more than BM25 itself) and plpgsql, whose plan is kept
-- for the session (an SQL function is planned again on every call, which
-- cost more than running it).
DROP FUNCTION IF EXISTS brain.title_scores(bigint[], text[], float8[]);
CREATE OR REPLACE FUNCTION brain.title_scores(ids bigint[], lexemes text[], idfs float8[])
RETURNS TABLE (id bigint, affinity float8, explained float8, unexplained int)
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	RETURN QUERY
	WITH w AS (
		-- (computed when the page was written, migration 027)
		SELECT c.id, x AS w
		FROM brain.chunks c JOIN brain.pages pg ON pg.id = c.page_id, unnest(pg.title_words) x
		WHERE c.id = ANY (ids)),
	m AS (
		SELECT w.id, w.w, i.lexeme, i.idf
		-- (every test but "the lexeme begins with the word" needs the
		-- lexeme inside the word: strpos first rules out most pairs)
		FROM w JOIN unnest(lexemes, idfs) AS i (lexeme, idf) ON length(i.lexeme) >= 2 AND (
			(strpos(w.w, i.lexeme) > 0 AND (w.w = i.lexeme
				OR length(i.lexeme) >= 4
				OR (length(i.lexeme) >= 3 AND (starts_with(w.w, i.lexeme) OR right(w.w, length(i.lexeme)) = i.lexeme))))
			OR (length(w.w) >= 3 AND starts_with(i.lexeme, w.w))))
	SELECT x.id, coalesce(a.affinity, 0)::float8, coalesce(k.n::float8 / nullif(nw.n, 0), 0)::float8,
	       greatest(coalesce(nw.n, 0) - coalesce(k.n, 0), 0)::int
	FROM (SELECT DISTINCT u.id FROM unnest(ids) AS u (id)) x
	LEFT JOIN (
		SELECT d.id, sum(d.idf) AS affinity
		FROM (SELECT DISTINCT m.id, m.lexeme, m.idf FROM m) d GROUP BY d.id) a ON a.id = x.id
	LEFT JOIN (SELECT m.id, count(DISTINCT m.w) AS n FROM m GROUP BY m.id) k ON k.id = x.id
	LEFT JOIN (SELECT w.id, count(*) AS n FROM w GROUP BY w.id) nw ON nw.id = x.id;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.keyword_search(
	q text,
	lim int DEFAULT 10,
	source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false)
RETURNS TABLE (chunk_id bigint, page_id bigint, score float8, keyword_rank int)
LANGUAGE sql STABLE ROWS 30
BEGIN ATOMIC
	SELECT k.chunk_id, k.page_id, k.score, k.keyword_rank
	FROM brain.keyword_scan(q, lim, source_ids, compiled_only) k
	WHERE k.chunk_id IS NOT NULL
	  -- through the caller's row security: an agent gets no blocked chunk
	  AND EXISTS (SELECT 1 FROM brain.chunks c WHERE c.id = k.chunk_id)
	ORDER BY k.keyword_rank;
END;
