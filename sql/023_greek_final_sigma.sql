-- 023_greek_final_sigma: Greek words match whatever their case.
--
-- Guarantees:
-- * brain.text_tsvector (pages) and brain.parse_query (queries) read Greek
--   final sigma (ς) as σ. lower() turns every capital Σ into σ, so a word
--   written in capitals ("ΣΟΦΟΣ", a heading) and the same word in small
--   letters ("σοφός") were two lexemes, "σοφοσ" and "σοφος", and neither
--   found the other.
-- * Every chunk whose text or page title holds a ς is indexed again (its
--   tsvector, doc_len, 'local' embedding and the BM25 statistics follow, by
--   the chunk triggers), so stored chunks agree with the new definition;
--   other chunks are not written. A vector from another embedder is kept
--   (the text is the same). This reads the text of every chunk once.

CREATE OR REPLACE FUNCTION brain.text_tsvector(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	-- cjk_bigrams holds a subquery, so it is never inlined and costs a call
	-- with its own plan; text without CJK characters (most) skips it.
	-- Greek final sigma is sigma (migration 023): lower() turns Σ into σ
	-- whatever its place, so "ΣΟΦΟΣ" and "σοφός" are one word.
	SELECT to_tsvector('brain.english_unaccent'::regconfig,
		translate(CASE WHEN t ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]' THEN brain.cjk_bigrams(t)
		     ELSE coalesce(t, '') END, 'ς', 'σ'));
END;

-- A brain whose vectors come from outside (embedder other than 'local')
-- keeps them: the text did not change, only how it is read, so they are
-- put back after the chunk trigger marked them stale (NULL). One DO block,
-- so the copy never outlives the statement, in a transaction or not.
DO $do$
BEGIN
	CREATE TEMPORARY TABLE sigma_vectors AS
	SELECT c.id, c.embedding FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
	WHERE (strpos(c.text, 'ς') > 0 OR strpos(p.title, 'ς') > 0)
	  AND c.embedding IS NOT NULL AND brain.embedder() <> 'local';

	UPDATE brain.chunks c SET text = c.text
	FROM brain.pages p
	WHERE p.id = c.page_id AND (strpos(c.text, 'ς') > 0 OR strpos(p.title, 'ς') > 0);

	UPDATE brain.chunks c SET embedding = v.embedding
	FROM sigma_vectors v WHERE v.id = c.id;

	DROP TABLE sigma_vectors;
END
$do$;

UPDATE brain.config SET value = '23' WHERE key = 'schema_version';
