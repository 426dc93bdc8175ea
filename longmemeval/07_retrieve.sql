-- Session retrieval for LongMemEval questions, installed in schema
-- longmemeval of a scratch brain (after 01-06 here, by internal/longmemeval.NewScratch). A session is
-- one page; its chunks together are one BM25 document.

-- longmemeval.question_parts(q): the parts of a question that lists several
-- things ("one for X, one for Y and one for Z", "the X, the Y and the Z",
-- "for X, for Y, and for Z", "X, Y and Z"), each without its marker word;
-- an empty array when q lists nothing. Read from the sentence holding the
-- most list separators, after its last colon if it has one. A list is two
-- or more items that begin with the same marker word(s), or three or more
-- items separated by at least two commas or semicolons; an item not
-- beginning with the marker (an "and" inside an item) is joined back to
-- the one before. Never raises.
CREATE FUNCTION longmemeval.question_parts(q text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE SET search_path = longmemeval, pg_temp AS $fn$
DECLARE
	s text;
	best text := '';
	best_n int := -1;
	n int;
	segs text[];
	seps int;
	marker text;
	m text;
	cnt int;
	parts text[] := '{}';
	seg text;
	i int;
	first_seg text;
BEGIN
	IF q IS NULL OR length(q) > 2000 THEN
		RETURN '{}';
	END IF;
	-- The sentence with the most separators.
	FOREACH s IN ARRAY regexp_split_to_array(q, '(?<=[.?!])\s+') LOOP
		n := (SELECT count(*) FROM regexp_matches(s, '[,;]|\s(and|or)\s', 'gi'));
		IF n > best_n THEN
			best_n := n;
			best := s;
		END IF;
	END LOOP;
	best := regexp_replace(best, '[.?!]+\s*$', '');
	IF position(':' IN best) > 0 THEN
		best := substr(best, length(best) - position(':' IN reverse(best)) + 2);
	END IF;
	seps := (SELECT count(*) FROM regexp_matches(best, '[,;]', 'g'));
	segs := ARRAY(SELECT btrim(x) FROM regexp_split_to_table(best, '\s*[,;]\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+', 'i') x WHERE btrim(x) <> '');
	IF cardinality(segs) < 2 THEN
		RETURN '{}';
	END IF;
	-- The marker: the first one or two words most items after the first
	-- begin with.
	FOR i IN REVERSE 2 .. 1 LOOP
		SELECT w, count(*) INTO m, cnt FROM (
			SELECT lower(substring(x FROM '^((?:\S+\s+){' || i || '})')) AS w FROM unnest(segs[2:]) x
		) y WHERE w IS NOT NULL GROUP BY w ORDER BY count(*) DESC, w LIMIT 1;
		IF cnt >= 2 OR (cnt = 1 AND cardinality(segs) = 2) THEN
			marker := m;
			EXIT;
		END IF;
	END LOOP;
	-- A two-item list needs its marker in the first item too.
	IF marker IS NOT NULL AND cardinality(segs) = 2
	   AND position(' ' || marker IN ' ' || lower(segs[1]) || ' ') = 0 THEN
		marker := NULL;
	END IF;
	IF marker IS NOT NULL AND marker !~ '^(one|ones|the|a|an|my|for|about|with|on|to|in|some|something|two|three|what|which|how)\s' THEN
		marker := NULL;
	END IF;
	IF marker IS NOT NULL THEN
		-- The first item starts after the marker's last occurrence in it.
		first_seg := substring(segs[1] FROM '(?i)^(?:.*\s)?' || regexp_replace(regexp_replace(rtrim(marker), '([^\w\s])', '\\\1', 'g'), '\s+', '\\s+', 'g') || '\s+(.*)$');
		IF first_seg IS NOT NULL THEN
			parts := ARRAY[btrim(first_seg)];
		END IF;
		FOR i IN 2 .. cardinality(segs) LOOP
			seg := segs[i];
			IF lower(seg || ' ') LIKE marker || '%' THEN
				parts := parts || btrim(substr(seg, length(marker) + 1));
			ELSIF cardinality(parts) > 0 THEN
				parts[cardinality(parts)] := parts[cardinality(parts)] || ' and ' || seg;
			END IF;
		END LOOP;
	ELSIF seps >= 2 AND cardinality(segs) >= 3 THEN
		-- No marker: the first item is what follows the first item's last
		-- preposition.
		first_seg := coalesce(substring(segs[1] FROM '(?i)^(?:.*\s)?(?:for|about|on|with|of|as|like|between|mention|mentioned|use|used|buy|bought)\s+(.+)$'), '');
		parts := CASE WHEN first_seg <> '' THEN ARRAY[first_seg] ELSE '{}' END || segs[2:];
	END IF;
	parts := ARRAY(SELECT btrim(p) FROM unnest(parts) p WHERE tsvector_to_array(brain.text_tsvector(p)) <> '{}');
	IF cardinality(parts) < 2 THEN
		RETURN '{}';
	END IF;
	RETURN parts;
END
$fn$;

-- longmemeval.question_time(q, question_date): the time a question's date
-- words point at, relative to question_date: lo and hi bound the sessions
-- it prefers ([lo, hi)), null when the question names no time; latest is
-- set when it asks for the current state ("now", "currently", "still",
-- "these days", "anymore", "latest", "most recent"); what is the words read.
-- Formats: "in|during|back in [early|late] <Month> [<year>]" (the last such
-- month on or before the question, or that year's), "last|this week|month|
-- year", "yesterday", "today", "<n> days|weeks|months ago" (n a digit or a
-- number word up to twelve, "a", "a couple of", "a few"), "on|since
-- <yyyy/mm/dd>" or "<yyyy-mm-dd>", "on <Month> <day>[, <year>]" or
-- "<day> <Month>", "in <year>". Never raises.
CREATE FUNCTION longmemeval.question_time(q text, question_date timestamp,
	OUT lo timestamp, OUT hi timestamp, OUT latest boolean, OUT what text)
LANGUAGE plpgsql IMMUTABLE SET search_path = longmemeval, pg_temp AS $fn$
DECLARE
	t text := lower(coalesce(q, ''));
	qd timestamp := coalesce(question_date, now()::timestamp);
	m text[];
	mon int;
	yr int;
	n int;
	unit text;
	d date;
	months constant text[] := ARRAY['january','february','march','april','may','june','july','august','september','october','november','december'];
	mre constant text := '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)';
	numbers constant text[] := ARRAY['one','two','three','four','five','six','seven','eight','nine','ten','eleven','twelve'];
BEGIN
	latest := t ~ '\m(now|currently|current|still|these days|nowadays|at the moment|anymore|any more|latest|most recent|most recently|right now|at present)\M';
	IF length(t) > 2000 THEN
		RETURN;
	END IF;
	-- An explicit day.
	m := regexp_match(t, '\m(\d{4})[/-](\d{1,2})[/-](\d{1,2})\M');
	IF m IS NOT NULL THEN
		BEGIN
			d := make_date(m[1]::int, m[2]::int, m[3]::int);
			lo := d; hi := d + 1; what := m[1] || '/' || m[2] || '/' || m[3];
			RETURN;
		EXCEPTION WHEN others THEN
			d := NULL;
		END;
	END IF;
	m := regexp_match(t, '\m(?:on|since|from)\s+' || mre || '\.?\s+(\d{1,2})(?:st|nd|rd|th)?\M(?:,?\s+(\d{4}))?');
	IF m IS NULL THEN
		m := regexp_match(t, '\m(?:on|since|from)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?' || mre || '\M(?:,?\s+(\d{4}))?');
		IF m IS NOT NULL THEN
			m := ARRAY[m[2], m[1], m[3]];
		END IF;
	END IF;
	IF m IS NOT NULL THEN
		mon := (SELECT i FROM generate_subscripts(months, 1) i WHERE months[i] LIKE m[1] || '%' LIMIT 1);
		yr := coalesce(m[3]::int, extract(year FROM qd)::int);
		BEGIN
			d := make_date(yr, mon, m[2]::int);
			IF m[3] IS NULL AND d > qd::date THEN
				d := make_date(yr - 1, mon, m[2]::int);
			END IF;
			lo := d; hi := d + 1; what := 'on ' || m[1] || ' ' || m[2];
			RETURN;
		EXCEPTION WHEN others THEN
			d := NULL;
		END;
	END IF;
	-- "<n> days/weeks/months ago"
	m := regexp_match(t, '\m(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a few|couple of|few)\s+(day|week|month|year)s?\s+ago\M');
	IF m IS NOT NULL THEN
		n := CASE WHEN m[1] ~ '^\d+$' THEN m[1]::int
		          WHEN m[1] IN ('a', 'an') THEN 1
		          WHEN m[1] LIKE '%couple%' THEN 2
		          WHEN m[1] LIKE '%few%' THEN 3
		          ELSE array_position(numbers, m[1]) END;
		unit := m[2];
		d := (qd - (n || ' ' || unit)::interval)::date;
		IF unit = 'day' THEN
			lo := d; hi := d + 1;
		ELSIF unit = 'week' THEN
			lo := d - 3; hi := d + 4;
		ELSIF unit = 'month' THEN
			lo := d - 10; hi := d + 11;
		ELSE
			lo := d - 60; hi := d + 61;
		END IF;
		what := m[1] || ' ' || unit || 's ago';
		RETURN;
	END IF;
	IF t ~ '\myesterday\M' THEN
		lo := qd::date - 1; hi := qd::date; what := 'yesterday'; RETURN;
	ELSIF t ~ '\mtoday\M|\mthis morning\M|\mearlier today\M' THEN
		lo := qd::date; hi := qd::date + 1; what := 'today'; RETURN;
	ELSIF t ~ '\m(last|past|previous) week(end)?\M' THEN
		lo := date_trunc('week', qd) - interval '7 days'; hi := date_trunc('week', qd); what := 'last week'; RETURN;
	ELSIF t ~ '\mthis week(end)?\M' THEN
		lo := date_trunc('week', qd); hi := qd::date + 1; what := 'this week'; RETURN;
	ELSIF t ~ '\m(last|past|previous) month\M' THEN
		lo := date_trunc('month', qd) - interval '1 month'; hi := date_trunc('month', qd); what := 'last month'; RETURN;
	ELSIF t ~ '\mthis month\M' THEN
		lo := date_trunc('month', qd); hi := qd::date + 1; what := 'this month'; RETURN;
	ELSIF t ~ '\m(last|past|previous) year\M' THEN
		lo := date_trunc('year', qd) - interval '1 year'; hi := date_trunc('year', qd); what := 'last year'; RETURN;
	ELSIF t ~ '\mthis year\M' THEN
		lo := date_trunc('year', qd); hi := qd::date + 1; what := 'this year'; RETURN;
	END IF;
	-- A month: "in March", "back in early May 2023", "during June".
	m := regexp_match(t, '\m(?:in|during|since|from|of|back in|around|until)\s+(?:early|late|mid|mid-|the\s+(?:beginning|start|end|middle)\s+of\s+)?\s*' || mre || '\M(?:\s+(\d{4}))?');
	IF m IS NOT NULL THEN
		mon := (SELECT i FROM generate_subscripts(months, 1) i WHERE months[i] LIKE m[1] || '%' LIMIT 1);
		yr := coalesce(m[2]::int, extract(year FROM qd)::int);
		IF m[2] IS NULL AND make_date(yr, mon, 1) > qd::date THEN
			yr := yr - 1;
		END IF;
		lo := make_date(yr, mon, 1); hi := lo + interval '1 month'; what := 'in ' || months[mon];
		RETURN;
	END IF;
	m := regexp_match(t, '\m(?:in|during)\s+((?:19|20)\d\d)\M');
	IF m IS NOT NULL THEN
		lo := make_date(m[1]::int, 1, 1); hi := lo + interval '1 year'; what := 'in ' || m[1];
		RETURN;
	END IF;
END
$fn$;

-- longmemeval.session_date(date): a LongMemEval date ("2023/05/20 (Sat)
-- 02:21") as a timestamp; null when it is not one.
CREATE FUNCTION longmemeval.session_date(s text) RETURNS timestamp
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = longmemeval, pg_temp AS $fn$
DECLARE
	m text[] := regexp_match(coalesce(s, ''), '^\s*(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?:\s*\(\w+\))?(?:\s+(\d{1,2}):(\d{2}))?');
BEGIN
	-- No exception block (a subtransaction a call): a day that does not
	-- exist is caught by comparing with the month's length.
	IF m IS NULL OR m[2]::int NOT BETWEEN 1 AND 12 OR m[3]::int < 1
	   OR m[3]::int > extract(day FROM make_date(m[1]::int, m[2]::int, 1) + interval '1 month - 1 day')
	   OR coalesce(m[4]::int, 0) > 23 OR coalesce(m[5]::int, 0) > 59 OR m[1]::int < 1 THEN
		RETURN NULL;
	END IF;
	RETURN make_timestamp(m[1]::int, m[2]::int, m[3]::int, coalesce(m[4]::int, 0), coalesce(m[5]::int, 0), 0);
END
$fn$;

-- longmemeval.retrieve(q, question_date, k, method): the slugs of the best
-- k sessions for question q, best first, with why each was chosen.
--
-- method 'bm25' is the session-level BM25 baseline (LongMemEval's): each
-- session one document, k1 1.2, b 0.75, over the question's words.
--
-- method 'fused' (the default) starts from the same scores and:
-- * multiplies them by a date prior: sessions inside the window the
--   question's date words name (question_time) by 3, outside it by
--   1 + 2·exp(-days away / (window length / 2 + 3)); when the question asks
--   for the current state, by 1 + 0.5·(place in time order)/(sessions), so
--   the latest of competing sessions wins;
-- * takes the best session first, then, for a question in parts
--   (question_parts), the best session of each part (scored on the part's
--   words alone, with the same prior) not taken yet;
-- * then one session found by pseudo-relevance feedback from the best
--   session: its words held by between two and a tenth of the sessions
--   (names and rare terms, not the question's), weighted by idf and their
--   count in it; the session sharing the most weight wins, so a later
--   session that names an earlier choice is found without the question's
--   words;
-- * fills the rest by the whole question's order.
CREATE FUNCTION longmemeval.retrieve(q text, question_date text, k int DEFAULT 10, method text DEFAULT 'fused')
RETURNS TABLE (slug text, why text)
LANGUAGE plpgsql SET search_path = brain, longmemeval, pg_temp AS $fn$
DECLARE
	k1 constant float8 := 1.2;
	b constant float8 := 0.75;
	qd timestamp := longmemeval.session_date(question_date);
	tw record;
	qlex text[];
	parts text[];
	n_sess float8;
	avglen float8;
	-- The sessions, in page id order: id, slug, length, date, prior,
	-- recency factor, score. Arrays, not temporary tables: truncating a
	-- temporary table at each commit cost more than the whole search.
	s_id bigint[];
	s_slug text[];
	s_len float8[];
	s_at timestamp[];
	s_prior float8[];
	s_rec float8[];
	s_score float8[];
	-- The question words' BM25 weight in each session holding them.
	t_page bigint[];
	t_lex text[];
	t_w float8[];
	chosen bigint[] := '{}';
	whys text[] := '{}';
	i int;
	best bigint;
	span float8;
	seed_lex text[];
	seed_n float8[];
	seed bigint;
	plex text[];
BEGIN
	k := least(greatest(coalesce(k, 10), 1), 1000);
	qlex := tsvector_to_array(brain.text_tsvector(q));
	SELECT array_agg(p.id ORDER BY p.id), array_agg(p.slug ORDER BY p.id), array_agg(coalesce(l.len, 0) ORDER BY p.id),
	       array_agg(longmemeval.session_date(p.frontmatter ->> 'date') ORDER BY p.id)
	INTO s_id, s_slug, s_len, s_at
	FROM brain.pages p
	LEFT JOIN (SELECT c.page_id, sum(c.doc_len)::float8 AS len FROM brain.chunks c GROUP BY c.page_id) l ON l.page_id = p.id;
	n_sess := coalesce(cardinality(s_id), 0);
	IF n_sess = 0 THEN
		RETURN;
	END IF;
	SELECT greatest(avg(x), 1) INTO avglen FROM unnest(s_len) x;
	IF cardinality(qlex) > 0 THEN
		SELECT array_agg(x.page_id), array_agg(x.lexeme),
		       array_agg(ln(1 + (n_sess - x.df + 0.5) / (x.df + 0.5)) * x.tf * (k1 + 1)
		                 / (x.tf + k1 * (1 - b + b * s.len / avglen)))
		INTO t_page, t_lex, t_w
		FROM (
			SELECT y.*, count(*) OVER (PARTITION BY y.lexeme)::float8 AS df FROM (
				SELECT c.page_id, u.lexeme, sum(greatest(cardinality(u.positions), 1))::float8 AS tf
				FROM brain.chunks c, unnest(ts_delete(c.tsv, tsvector_to_array(ts_delete(c.tsv, qlex)))) u
				GROUP BY 1, 2) y
		) x JOIN unnest(s_id, s_len) AS s (id, len) ON s.id = x.page_id;
	END IF;
	s_prior := array_fill(1::float8, ARRAY[n_sess::int]);
	s_rec := s_prior;
	IF method = 'fused' THEN
		tw := longmemeval.question_time(q, qd);
		IF tw.lo IS NOT NULL THEN
			span := extract(epoch FROM tw.hi - tw.lo) / 86400;
			SELECT array_agg(CASE
				WHEN x.at IS NULL THEN 1
				WHEN x.at >= tw.lo AND x.at < tw.hi THEN 3
				-- (exp raises on underflow: the exponent is kept above -700)
				ELSE 1 + 2 * exp(-least((extract(epoch FROM greatest(tw.lo - x.at, x.at - tw.hi)) / 86400) / (span / 2 + 3), 700)) END ORDER BY x.o)
			INTO s_prior FROM unnest(s_at) WITH ORDINALITY AS x (at, o);
		END IF;
		IF tw.latest THEN
			-- 1 + 0.5 · place in time order (0 the oldest, 1 the latest)
			SELECT array_agg(1 + 0.5 * x.r ORDER BY x.o) INTO s_rec FROM (
				SELECT o, (rank() OVER (ORDER BY at NULLS FIRST, o) - 1)::float8 / greatest(n_sess - 1, 1) AS r
				FROM unnest(s_at) WITH ORDINALITY AS y (at, o)) x;
			SELECT array_agg(p * r ORDER BY o) INTO s_prior FROM unnest(s_prior, s_rec) WITH ORDINALITY AS x (p, r, o);
		END IF;
	END IF;
	-- Whole-question scores.
	SELECT array_agg(coalesce(t.sc, 0) * s.prior ORDER BY s.o) INTO s_score
	FROM unnest(s_id, s_prior) WITH ORDINALITY AS s (id, prior, o)
	LEFT JOIN (SELECT x.page_id, sum(x.w) AS sc FROM unnest(t_page, t_w) AS x (page_id, w) GROUP BY x.page_id) t ON t.page_id = s.id;
	IF method IS DISTINCT FROM 'fused' THEN
		RETURN QUERY SELECT s.slug, 'bm25'::text FROM unnest(s_id, s_slug, s_score) AS s (id, slug, score)
		WHERE s.score > 0 ORDER BY s.score DESC, s.id LIMIT k;
		RETURN;
	END IF;
	-- The best session, then the best of each part.
	SELECT s.id INTO best FROM unnest(s_id, s_score) AS s (id, score) WHERE s.score > 0 ORDER BY s.score DESC, s.id LIMIT 1;
	IF best IS NOT NULL THEN
		chosen := ARRAY[best];
		whys := ARRAY['question'];
	END IF;
	parts := longmemeval.question_parts(q);
	FOR i IN 1 .. coalesce(cardinality(parts), 0) LOOP
		EXIT WHEN cardinality(chosen) >= k;
		plex := tsvector_to_array(brain.text_tsvector(parts[i]));
		SELECT t.page_id INTO best
		FROM unnest(t_page, t_lex, t_w) AS t (page_id, lexeme, w)
		JOIN unnest(s_id, s_prior) AS s (id, prior) ON s.id = t.page_id
		WHERE t.lexeme = ANY (plex) AND t.page_id <> ALL (chosen)
		GROUP BY t.page_id, s.prior
		ORDER BY sum(t.w) * s.prior DESC, t.page_id
		LIMIT 1;
		IF FOUND THEN
			chosen := chosen || best;
			whys := whys || ('part ' || i);
		END IF;
	END LOOP;
	-- Feedback from the best session on the question's words alone (no
	-- recency): the words of its sentences that hold the most question
	-- words (where the thing asked about is named), each weighted by the
	-- number of those sentences holding it, kept when between two and a
	-- tenth of the sessions hold them.
	SELECT s.id INTO seed FROM unnest(s_id, s_score, s_rec) AS s (id, score, rec)
	WHERE s.score > 0 ORDER BY s.score / s.rec DESC, s.id LIMIT 1;
	IF seed IS NOT NULL AND cardinality(chosen) < k THEN
		SELECT array_agg(z.l), array_agg(z.n) INTO seed_lex, seed_n FROM (
			SELECT l, count(*)::float8 AS n FROM (
				SELECT x.lex FROM (
					SELECT tsvector_to_array(brain.text_tsvector(t.sen)) AS lex, t.o
					FROM brain.pages p, regexp_split_to_table(p.body, '(?<=[.!?])\s+|\n+') WITH ORDINALITY AS t (sen, o)
					WHERE p.id = seed AND t.sen ~ '\w'
				) x
				WHERE x.lex && qlex
				-- ties: the earlier sentence
				ORDER BY (SELECT count(*) FROM unnest(x.lex) u WHERE u = ANY (qlex)) DESC, x.o
				LIMIT 3
			) y, unnest(y.lex) l
			WHERE l <> ALL (qlex)
			GROUP BY l) z;
		IF cardinality(seed_lex) > 0 THEN
			WITH h AS MATERIALIZED (
				SELECT DISTINCT c.page_id, v.lexeme
				FROM brain.chunks c, unnest(tsvector_to_array(ts_delete(c.tsv, tsvector_to_array(ts_delete(c.tsv, seed_lex))))) v (lexeme)
			), d AS (
				SELECT h.lexeme, count(*)::float8 AS df FROM h GROUP BY h.lexeme
				HAVING count(*) BETWEEN 2 AND greatest(2, n_sess / 10)
			)
			SELECT h.page_id INTO best FROM h
			JOIN d ON d.lexeme = h.lexeme
			JOIN unnest(seed_lex, seed_n) AS w (lexeme, n) ON w.lexeme = h.lexeme
			WHERE h.page_id <> ALL (chosen) AND h.page_id <> seed
			GROUP BY h.page_id
			ORDER BY sum(w.n * ln(1 + (n_sess - d.df + 0.5) / (d.df + 0.5))) DESC, h.page_id
			LIMIT 1;
			IF FOUND THEN
				chosen := chosen || best;
				whys := whys || 'feedback'::text;
			END IF;
		END IF;
	END IF;
	RETURN QUERY
	SELECT s.slug, c.why FROM unnest(chosen, whys) WITH ORDINALITY AS c (id, why, o)
	JOIN unnest(s_id, s_slug) AS s (id, slug) ON s.id = c.id
	ORDER BY c.o;
	RETURN QUERY
	SELECT s.slug, 'question'::text FROM unnest(s_id, s_slug, s_score) AS s (id, slug, score)
	WHERE s.id <> ALL (chosen) AND s.score > 0
	ORDER BY s.score DESC, s.id LIMIT k - cardinality(chosen);
END
$fn$;
