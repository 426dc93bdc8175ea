-- brain.query_bound(q, max_words, max_chars): the part of q that search
-- reads (docs/security.md, "Bounded queries"), computed before any
-- tsvector or tsquery work so that a huge query costs little more than a
-- short one.
-- Guarantees: only the first 2 * max_chars characters are looked at; a word
-- is a run of characters other than white space, ASCII punctuation and the
-- general, CJK and fullwidth punctuation blocks (letters and digits of any
-- script, emoji; the same in every locale), except that each Chinese or
-- Japanese character is a word of its own (they are indexed as bigrams, so
-- a run of them is as many word groups as characters);
-- kept is q up to (not including) whichever comes first of the
-- (max_words + 1)-th distinct word (case-folded) and the
-- (4 * max_words + 1)-th word, then cut to max_chars characters; words is
-- how many distinct words the part looked at holds; cut is true when kept
-- is not q. Defaults: 32 distinct words, 128 words, 4,096 characters.
-- (The keyword arm's near-match step grows with the square of the word
-- groups: 64 common words cost it ten times what 32 do.)
CREATE OR REPLACE FUNCTION brain.query_bound(q text, max_words int DEFAULT 32, max_chars int DEFAULT 4096,
	OUT kept text, OUT words int, OUT cut boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
BEGIN
	WITH toks AS (
		SELECT m[1] || m[2] AS piece, lower(m[2]) AS word, t.ord
		FROM regexp_matches(left(q, 2 * greatest(max_chars, 1)), '([\s!-/:-@\[-`{-~\u2000-\u206f\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\uffe0-\uffee]*)([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]|[^\s!-/:-@\[-`{-~\u2000-\u206f\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\uffe0-\uffee\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+)', 'g') WITH ORDINALITY AS t (m, ord)
	), firsts AS (
		SELECT min(toks.ord) AS first FROM toks GROUP BY toks.word
	), stop AS (
		SELECT least(
			coalesce((SELECT f.first FROM firsts f ORDER BY f.first OFFSET greatest(max_words, 1) LIMIT 1), 9223372036854775807),
			CASE WHEN (SELECT count(*) FROM toks) > 4 * greatest(max_words, 1) THEN 4 * greatest(max_words, 1) + 1 ELSE 9223372036854775807 END) AS at_ord
	), k AS (
		SELECT CASE WHEN stop.at_ord = 9223372036854775807 AND length(q) <= 2 * greatest(max_chars, 1) THEN q
		            ELSE coalesce((SELECT string_agg(toks.piece, '' ORDER BY toks.ord) FROM toks WHERE toks.ord < stop.at_ord), '') END AS txt
		FROM stop
	)
	SELECT left(k.txt, greatest(max_chars, 1)),
	       (SELECT count(*)::int FROM firsts),
	       q IS DISTINCT FROM left(k.txt, greatest(max_chars, 1))
	INTO kept, words, cut
	FROM k;
END
$fn$;

-- brain.parse_query(q): how a search query is read (docs/retrieval.md,
-- "Query grammar").
--
-- Guarantees: never raises on any input. A query is a bag of words; syntax
-- is honoured only where it is clearly meant:
-- * "a quoted phrase" (straight or curly quotes; an unclosed quote runs to
--   the end) must match as a phrase;
-- * -word (a dash at the start of a whitespace-separated word, directly
--   followed by a letter or digit) excludes pages containing that word,
--   but a dash before a single character ("grep -e pattern", "ls -l": a
--   command-line flag pasted with its command) or before a number ("-12",
--   "-1.5"), either followed by punctuation or not ("-v,", "-12."), is read
--   as a word; a Chinese or Japanese word excludes nothing
--   (its characters are read as bigrams, the dash apart);
-- * OR in capitals between two words lets either satisfy the strict match.
-- Everything else is words: punctuation (a spaced dash, commas, brackets,
-- question marks, emoji) separates words and never becomes an operator. A
-- hyphenated word matches its hyphenated form, its joined form ("e-mail" ->
-- email) and its parts ("e" and "mail"); a slashed word its own form or all
-- its parts ("PGP/MIME" -> pgp/mime, or pgp and mime). Text goes through
-- brain.cjk_bigrams and the brain.english_unaccent configuration, like
-- pages (brain.text_tsvector).
-- Only brain.query_bound(q) is read: at most 32 distinct words, 128 words
-- and 4,096 characters, so the work below is bounded whatever q holds; a
-- plain word group repeated in the query is kept once (a bag of words).
-- Returns:
-- * terms: the distinct lexemes BM25 sums over (every positive word, all
--   forms of hyphenated words, phrase words; never negated words);
-- * strict_q: every word group AND-ed (a hyphenated word is one group of
--   alternatives; OR joins groups), plus phrases and negations; NULL when
--   there are no terms;
-- * filter_q: what every result must satisfy (phrases AND negations), NULL
--   when the query has neither;
-- * groups: the word groups strict_q ANDs (phrases and negations excluded);
-- * info: jsonb {terms, phrases, negated, or_groups, strict, cut} describing
--   what the parser did, reported in search meta; cut is null when all of q
--   was read, else {words_total, words_kept, chars_kept} (words_total counts
--   the distinct words of the first 8,192 characters), plus groups_kept (64)
--   when words the cut counted as one made more than 64 word groups and the
--   rest of the plain words were not read.
CREATE OR REPLACE FUNCTION brain.parse_query(q text,
	OUT terms text[], OUT strict_q tsquery, OUT filter_q tsquery, OUT groups tsquery[], OUT info jsonb)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	cfg CONSTANT regconfig := 'brain.english_unaccent'::regconfig;
	tok text;
	comps tsquery[] := '{}';
	g tsquery;
	tok_groups tsquery[];
	phrases text[] := '{}';
	negated text[] := '{}';
	pending_or boolean := false;
	n_or int := 0;
	r record;
	comp_lex text;
	comp_tok text;
	parts tsquery;
	slashed tsquery;
	joined text[];
	first_group boolean;
	b record;
	cut_info jsonb;
	-- Words the cut counts as one ("a·b·c", "x→y", emoji between words)
	-- can be many parser words; past this many word groups, further plain
	-- words are not read (a query of 32 distinct words has at most 32
	-- groups, and a CJK run of 32 characters 31 bigrams).
	max_groups CONSTANT int := 64;
	groups_capped boolean := false;
BEGIN
	terms := '{}';
	groups := '{}';
	IF q IS NULL THEN
		info := jsonb_build_object('terms', '[]'::jsonb, 'phrases', '[]'::jsonb, 'negated', '[]'::jsonb, 'or_groups', 0, 'strict', NULL, 'cut', NULL);
		RETURN;
	END IF;
	b := brain.query_bound(q);
	IF b.cut THEN
		-- The kept part's own word count, by the same definition of a word.
		cut_info := jsonb_build_object('words_total', b.words, 'words_kept', (brain.query_bound(b.kept)).words, 'chars_kept', length(b.kept));
		q := b.kept;
	END IF;
	FOR tok IN
		-- (cjk_bigrams only for CJK text: an SQL function with a subquery,
		-- it is planned again on every execution of this statement; curly
		-- quotes are quotes, and Greek final sigma is σ, as for pages in
		-- brain.text_tsvector)
		SELECT m[1] FROM regexp_matches(translate(
			CASE WHEN q ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]' THEN brain.cjk_bigrams(q) ELSE q END,
			'“”„«»ς', '"""""σ'), '("[^"]*"?|[^\s"]+)', 'g') AS m
	LOOP
		IF left(tok, 1) = '"' THEN
			-- Checked first: phraseto_tsquery of stop words alone raises a NOTICE.
			g := CASE WHEN to_tsvector(cfg, btrim(tok, '"')) <> ''::tsvector THEN phraseto_tsquery(cfg, btrim(tok, '"')) END;
			IF g IS NOT NULL THEN
				phrases := phrases || btrim(tok, '"');
				filter_q := CASE WHEN filter_q IS NULL THEN g ELSE filter_q && g END;
				terms := terms || brain.tsquery_terms(g);
			END IF;
			pending_or := false;
			CONTINUE;
		END IF;
		IF tok = 'OR' THEN
			pending_or := cardinality(comps) > 0;
			CONTINUE;
		END IF;
		IF tok ~ '^-\w' AND tok !~ '^-\w[[:punct:]]*$' AND tok !~ '^-[0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\uff10-\uff19]+([.,][0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\uff10-\uff19]+)*[[:punct:]]*$' THEN
			g := brain.words_tsquery(substr(tok, 2));
			IF g IS NOT NULL THEN
				negated := negated || substr(tok, 2);
				filter_q := CASE WHEN filter_q IS NULL THEN !!g ELSE filter_q && !!g END;
			END IF;
			pending_or := false;
			CONTINUE;
		END IF;
		-- Plain word(s): one group per parser word; a hyphenated word and
		-- its parts (which ts_debug lists right after it) form one group.
		IF cardinality(comps) >= max_groups THEN
			groups_capped := true;
			pending_or := false;
			CONTINUE;
		END IF;
		tok_groups := '{}';
		comp_lex := NULL;
		parts := NULL;
		-- ts_parse gives the parser's tokens (ts_token_type('default'):
		-- 15-17 hyphenated words, 9-11 their parts, 12 blanks); lexemes come
		-- from to_tsvector (ts_debug is twenty times slower and does not
		-- pass unaccent's output on to the stemmer).
		FOR r IN SELECT d.tokid, d.token FROM ts_parse('default', tok) d WHERE d.tokid <> 12 LOOP
			IF r.tokid IN (15, 16, 17) THEN
				IF comp_tok IS NOT NULL THEN
					tok_groups := tok_groups || brain.parse_query_compound(comp_lex, comp_tok, parts);
				END IF;
				comp_tok := r.token;
				SELECT u.lexeme INTO comp_lex FROM unnest(to_tsvector(cfg, r.token)) u WHERE 1 = ANY (u.positions) LIMIT 1;
				parts := NULL;
				CONTINUE;
			END IF;
			IF r.tokid IN (9, 10, 11) AND comp_tok IS NOT NULL THEN
				g := brain.words_tsquery(r.token);
				IF g IS NOT NULL THEN
					parts := CASE WHEN parts IS NULL THEN g ELSE parts && g END;
				END IF;
				CONTINUE;
			END IF;
			IF comp_tok IS NOT NULL THEN
				tok_groups := tok_groups || brain.parse_query_compound(comp_lex, comp_tok, parts);
				comp_tok := NULL;
			END IF;
			g := brain.words_tsquery(r.token);
			-- A slashed word (the parser's file token: "PGP/MIME",
			-- "Java/J2EE", "/g722") is one group: itself, or all its parts,
			-- as a hyphenated word is.
			IF r.tokid = 19 THEN
				slashed := brain.words_tsquery(translate(r.token, '/', ' '));
				IF slashed IS NOT NULL AND slashed IS DISTINCT FROM g THEN
					g := CASE WHEN g IS NULL THEN slashed ELSE g || slashed END;
				END IF;
			END IF;
			IF g IS NOT NULL THEN
				tok_groups := tok_groups || g;
			END IF;
		END LOOP;
		IF comp_tok IS NOT NULL THEN
			tok_groups := tok_groups || brain.parse_query_compound(comp_lex, comp_tok, parts);
			comp_tok := NULL;
		END IF;
		first_group := true;
		FOREACH g IN ARRAY tok_groups LOOP
			CONTINUE WHEN g IS NULL OR numnode(g) = 0;
			IF first_group AND pending_or THEN
				comps[cardinality(comps)] := comps[cardinality(comps)] || g;
				n_or := n_or + 1;
				terms := terms || brain.tsquery_terms(g);
			ELSIF g = ANY (comps) THEN
				NULL; -- a repeated word adds nothing to a bag of words
			ELSIF cardinality(comps) >= max_groups THEN
				groups_capped := true;
			ELSE
				comps := comps || g;
				terms := terms || brain.tsquery_terms(g);
			END IF;
			first_group := false;
		END LOOP;
		pending_or := false;
	END LOOP;
	SELECT coalesce(array_agg(DISTINCT t ORDER BY t), '{}') INTO terms FROM unnest(terms) t;
	groups := comps;
	IF cardinality(terms) > 0 THEN
		FOREACH g IN ARRAY comps LOOP
			strict_q := CASE WHEN strict_q IS NULL THEN g ELSE strict_q && g END;
		END LOOP;
		IF filter_q IS NOT NULL THEN
			strict_q := CASE WHEN strict_q IS NULL THEN filter_q ELSE strict_q && filter_q END;
		END IF;
	END IF;
	IF groups_capped THEN
		cut_info := coalesce(cut_info, jsonb_build_object('words_total', b.words, 'words_kept', b.words, 'chars_kept', length(q)))
			|| jsonb_build_object('groups_kept', max_groups);
	END IF;
	info := jsonb_build_object('terms', to_jsonb(terms), 'phrases', to_jsonb(phrases),
		'negated', to_jsonb(negated), 'or_groups', n_or, 'strict', strict_q::text, 'cut', cut_info);
END
$fn$;

-- brain.lexeme_tsquery(lexeme): a tsquery of exactly that lexeme (no
-- parsing, no stemming, quotes and backslashes escaped).
CREATE OR REPLACE FUNCTION brain.lexeme_tsquery(lexeme text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
BEGIN ATOMIC
	SELECT ('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')::tsquery;
END;

-- brain.parse_query_compound(lexeme, token, parts): the group of a
-- hyphenated word: its own lexeme, its joined form, or all its parts.
CREATE OR REPLACE FUNCTION brain.parse_query_compound(lexeme text, token text, parts tsquery) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	g tsquery;
	j tsquery := brain.words_tsquery(replace(token, '-', ''));
BEGIN
	IF lexeme IS NOT NULL THEN
		g := brain.lexeme_tsquery(lexeme);
	END IF;
	IF j IS NOT NULL THEN
		g := CASE WHEN g IS NULL THEN j ELSE g || j END;
	END IF;
	IF parts IS NOT NULL THEN
		g := CASE WHEN g IS NULL THEN parts ELSE g || parts END;
	END IF;
	RETURN g;
END
$fn$;

-- brain.words_tsquery(t): the AND of the lexemes of t, no phrase operators,
-- NULL when t has no indexable word (and, unlike plainto_tsquery, no NOTICE).
-- The stripped tsvector's text is already a list of quoted lexemes with
-- tsquery's escapes, and no lexeme holds a space, so joining them is a
-- replace; plpgsql without a query, because parse_query calls this for
-- every word and a SELECT over unnest() cost 50 µs a call in executor
-- start-up (a seventh of a short search).
CREATE OR REPLACE FUNCTION brain.words_tsquery(t text) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	v tsvector := brain.text_tsvector(t);
BEGIN
	IF v = ''::tsvector THEN
		RETURN NULL;
	END IF;
	RETURN replace(strip(v)::text, ''' ''', ''' & ''')::tsquery;
END
$fn$;

-- brain.query_initials(q): the lexemes of the initials of q's runs of
-- capitalised words, for names written as their initials ("Open Text
-- Summarizer" -> ots, "Yet Another JSON Library" -> yajl, "Diffraction
-- Integration for Advanced Light Sources" -> dials). A run is three or
-- more capitalised words (of any script, digits allowed after the first
-- letter; "OR" is the operator), which may hold lower-case of, for, and,
-- the, to, in, on, a, an and with (not counted); a bracket or quote before
-- a word, or punctuation after one, ends the run. Each run gives its
-- initials, and also those of its parts between the lower-case words ("Open
-- Text Summarizer on Debian" -> otsd and ots) and those without a first
-- word that starts sentences ("The", "How", "What", "I", ...: "The Open Text
-- Summarizer" -> tots and ots); brain.keyword_scan keeps only initials that
-- some, but few, chunks hold. Initials go through brain.words_tsquery like
-- any query word. Reads brain.query_bound(q), like brain.parse_query
-- (docs/retrieval.md, "Initials").
CREATE OR REPLACE FUNCTION brain.query_initials(q text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	tok text;
	w text;
	-- Initials, '|' between runs, '.' where a lower-case word sits inside
	-- a run, '*' before the initial of a first word that starts sentences.
	runs text := '';
	piece text;
	part text;
	variants text[];
	g tsquery;
	res text[] := '{}';
BEGIN
	-- Most queries have fewer than three capitalised words: no run (the
	-- bound below reads at most the first 8,192 characters too).
	IF q IS NULL OR regexp_count(left(q, 8192), '(^|[\s(\[{"“„«''‘])[[:upper:]]') < 3 THEN
		RETURN res;
	END IF;
	FOREACH tok IN ARRAY regexp_split_to_array(btrim((brain.query_bound(q)).kept), '\s+') LOOP
		IF tok ~ '^[(\[{"“„«''‘]' THEN
			runs := runs || '|';
		END IF;
		w := regexp_replace(tok, '^[(\[{"“„«''‘]+|[)\]}"”»''’,;:.!?]+$', '', 'g');
		IF w ~ '^[[:upper:]][[:alnum:]]*$' AND w <> 'OR' THEN
			IF right(runs, 1) IN ('', '|') AND w IN ('The', 'A', 'An', 'This', 'That', 'These', 'Those', 'My', 'Our', 'Your',
			                                         'How', 'What', 'Which', 'Where', 'Who', 'Why', 'When', 'Is', 'Are',
			                                         'Do', 'Does', 'Can', 'I', 'We', 'You') THEN
				runs := runs || '*';
			END IF;
			runs := runs || left(w, 1);
		ELSIF w IN ('of', 'for', 'and', 'the', 'to', 'in', 'on', 'a', 'an', 'with') AND right(runs, 1) NOT IN ('', '|', '.') THEN
			runs := runs || '.';
		ELSE
			runs := runs || '|';
		END IF;
		IF tok ~ '[)\]}"”»''’,;:.!?]$' THEN
			runs := runs || '|';
		END IF;
	END LOOP;
	FOREACH piece IN ARRAY string_to_array(runs, '|') LOOP
		piece := rtrim(piece, '.');
		variants := ARRAY[replace(replace(piece, '.', ''), '*', '')];
		IF left(piece, 1) = '*' THEN
			variants := variants || replace(substr(piece, 3), '.', '');
		END IF;
		IF strpos(piece, '.') > 0 THEN
			FOREACH part IN ARRAY string_to_array(piece, '.') LOOP
				variants := variants || replace(part, '*', '');
				IF left(part, 1) = '*' THEN
					variants := variants || substr(part, 3);
				END IF;
			END LOOP;
		END IF;
		FOREACH part IN ARRAY variants LOOP
			CONTINUE WHEN char_length(part) < 3;
			g := brain.words_tsquery(lower(part));
			IF g IS NOT NULL THEN
				res := res || brain.tsquery_terms(g);
			END IF;
		END LOOP;
	END LOOP;
	RETURN ARRAY(SELECT DISTINCT x FROM unnest(res) x ORDER BY 1);
END
$fn$;
