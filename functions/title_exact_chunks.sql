-- brain.title_exact_chunks(qn, source_ids, compiled_only, filt,
-- visible_only): the first
-- chunk of each page whose title is the query (qn, brain.title_key of the
-- query), for the keyword arm's candidates: a page titled "C" is scored
-- even when hundreds of chunks say "C" more often than it does.
--
-- Guarantees:
-- * A page counts when its lower-cased title is one of the forms whose
--   key (brain.title_key) is qn: qn itself, qn with a final sigma written
--   ς, quoted, or followed by one mark of sentence
--   punctuation ("Yahoo!", "Why?", "Jeopardy!"). Each form is one probe
--   of the hash index of lower-cased titles (pages_title_lower, migration
--   025), whatever the length of the query or of the title. A title whose
--   key is qn only after more normalising (two spaces, "?!") is not looked
--   up; brain.keyword_scan still applies the factor to its chunks when
--   they are among the best.
-- * At most 20 pages; a title more pages share names none of them.
-- * visible_only (a caller restricted by row security): only pages whose
--   brain.page_pii row has agent_visible count, so a hidden page neither
--   joins the candidates nor fills the cap.
-- * Only pages of source_ids (all when NULL); of each page its first chunk
--   (by chunk_index) that is compiled truth when compiled_only, and that
--   matches filt (the query's phrases and negations) when it is not NULL.
-- Runs as its caller. brain.keyword_scan calls it past row security (as
-- the owner of the tables): visible_only is what keeps an agent's answer
-- to the pages it may see.
CREATE OR REPLACE FUNCTION brain.title_exact_chunks(
	qn text, source_ids text[] DEFAULT NULL,
	compiled_only boolean DEFAULT false, filt tsquery DEFAULT NULL,
	visible_only boolean DEFAULT false)
RETURNS bigint[]
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp
	SET plan_cache_mode = force_generic_plan
	-- never a scan of every title (see brain.title_name_chunks)
	SET enable_seqscan = off AS $fn$
DECLARE
	pages bigint[];
	forms text[];
BEGIN
	IF coalesce(qn, '') = '' OR length(qn) > 1000 THEN
		RETURN '{}';
	END IF;
	-- (lower() keeps ς and reads Σ as σ: a title typed in lower case ends
	-- its words with ς, one in capitals with σ)
	forms := ARRAY(SELECT DISTINCT f FROM unnest(ARRAY[qn,
		regexp_replace(qn, 'σ(?=$|[^[:alnum:]])', 'ς', 'g')]) AS b (f0),
		LATERAL unnest(ARRAY[f0, '"' || f0 || '"',
			f0 || '?', f0 || '!', f0 || '.', f0 || ':', f0 || '？', f0 || '！', f0 || '。']) AS v (f));
	-- (two statements, so that the owner's plan holds no agent filter)
	IF coalesce(visible_only, false) THEN
		pages := ARRAY(
			SELECT pg.id FROM brain.pages pg
			WHERE lower(pg.title) = ANY (forms)
			  AND (source_ids IS NULL OR pg.source_id = ANY (source_ids))
			  AND EXISTS (SELECT 1 FROM brain.page_pii t WHERE t.page_id = pg.id AND t.agent_visible)
			LIMIT 21);
	ELSE
		pages := ARRAY(
			SELECT pg.id FROM brain.pages pg
			WHERE lower(pg.title) = ANY (forms)
			  AND (source_ids IS NULL OR pg.source_id = ANY (source_ids))
			LIMIT 21);
	END IF;
	IF cardinality(pages) > 20 THEN
		RETURN '{}';
	END IF;
	RETURN ARRAY(
		SELECT c.id
		FROM unnest(pages) AS u (pid)
		CROSS JOIN LATERAL (
			SELECT c.id FROM brain.chunks c
			WHERE c.page_id = u.pid
			  AND (NOT coalesce(compiled_only, false) OR c.chunk_source = 'compiled_truth')
			  AND (filt IS NULL OR c.tsv @@ filt)
			ORDER BY c.chunk_index LIMIT 1) c
		ORDER BY c.id);
END
$fn$;
