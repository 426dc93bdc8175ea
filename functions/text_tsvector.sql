-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.cjk_bigrams(t) and brain.text_tsvector(t): how text becomes lexemes,
-- for pages and queries alike.
--
-- Guarantees: runs of Chinese and Japanese characters (Han, Hiragana,
-- Katakana, half-width Katakana), which carry no spaces between words, are
-- rewritten as overlapping two-character words ("東京で" -> "東京 京で"; a
-- single character stays itself), so any word of two or more characters in
-- such a run is found by the bigrams it consists of; other text is returned
-- unchanged. text_tsvector parses with brain.english_unaccent: the english
-- configuration whose non-ASCII words are first folded by unaccent, so
-- "café" is indexed as "cafe" and "Straße" as "strass", and Greek final
-- sigma (ς) as σ, as lower() makes every Σ; ASCII words are parsed exactly
-- as by 'english'. Page chunks (brain.chunk_tsv), query
-- embeddings (brain.embed_local) and query parsing (brain.parse_query) all go
-- through these two functions, so a query's lexemes are the page's lexemes.
-- A migration that changes this reading (brain.indexed_tsvector reads
-- pages through it) reindexes the chunks it affects and recomputes
-- brain.pages.title_words (UPDATE brain.pages SET title = title).
CREATE OR REPLACE FUNCTION brain.cjk_bigrams(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
BEGIN ATOMIC
	SELECT CASE WHEN t !~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]' THEN t ELSE (
		SELECT string_agg(
			CASE WHEN m[1] IS NULL THEN m[2]
			     WHEN char_length(m[1]) = 1 THEN ' ' || m[1] || ' '
			     ELSE ' ' || (SELECT string_agg(substr(m[1], i, 2), ' ' ORDER BY i)
			                  FROM generate_series(1, char_length(m[1]) - 1) i) || ' '
			END, '' ORDER BY o)
		FROM regexp_matches(t,
			'([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+)|([^\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+)',
			'g') WITH ORDINALITY AS r (m, o))
	END;
END;

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
