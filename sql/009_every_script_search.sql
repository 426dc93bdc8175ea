-- 009_every_script_search: queries read as language, every script indexed,
-- BM25 over every query term with a bounded candidate cut, one search entry
-- point that reports how it ran.
--
-- Guarantees: the unaccent extension and the text search configuration
-- brain.english_unaccent (english, with non-ASCII words folded by unaccent
-- before stemming) exist; every stored chunk tsvector is recomputed through
-- brain.text_tsvector (CJK runs as overlapping bigrams, accents folded), and
-- with it doc_len and, on a 'local' brain, the local embedding; a remote
-- embedder's vectors, which do not depend on the tsvector, are kept. Chunks
-- whose tsvector does not change (plain ASCII text) are not rewritten.
-- brain.term_stats and brain.corpus_stats follow through their statement
-- triggers. The search functions that read queries the same way
-- (brain.parse_query, brain.keyword_scan, brain.search, and
-- brain.keyword_search, brain.hybrid_search and brain.query, which keep
-- their signatures and now go through them) are in the repeatable tier.

CREATE EXTENSION IF NOT EXISTS unaccent;

DO $do$
DECLARE
	dict text;
BEGIN
	IF to_regnamespace('brain') IS NULL THEN
		RAISE EXCEPTION 'schema brain is missing';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace
	               WHERE n.nspname = 'brain' AND c.cfgname = 'english_unaccent') THEN
		SELECT quote_ident(n.nspname) || '.' || quote_ident(d.dictname) INTO STRICT dict
		FROM pg_ts_dict d JOIN pg_namespace n ON n.oid = d.dictnamespace
		JOIN pg_depend dep ON dep.objid = d.oid AND dep.classid = 'pg_ts_dict'::regclass AND dep.deptype = 'e'
		JOIN pg_extension e ON e.oid = dep.refobjid AND e.extname = 'unaccent'
		WHERE d.dictname = 'unaccent';
		CREATE TEXT SEARCH CONFIGURATION brain.english_unaccent (COPY = pg_catalog.english);
		EXECUTE format('ALTER TEXT SEARCH CONFIGURATION brain.english_unaccent
			ALTER MAPPING FOR hword, hword_part, word WITH %s, english_stem', dict);
	END IF;
END
$do$;

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
-- "café" is indexed as "cafe" and "Straße" as "strass"; ASCII words are
-- parsed exactly as by 'english'. Page chunks (brain.chunk_tsv), query
-- embeddings (brain.embed_local) and query parsing (brain.parse_query) all go
-- through these two functions, so a query's lexemes are the page's lexemes.
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
	SELECT to_tsvector('brain.english_unaccent'::regconfig, brain.cjk_bigrams(coalesce(t, '')));
END;

-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
-- brain.chunk_tsv(title, text, chunk_source): the tsvector stored for a chunk.
--
-- Guarantees: the page title is weighted A, compiled-truth text B and
-- timeline text C, so a title match outranks a body match and timeline
-- entries rank below the compiled truth. Text goes through
-- brain.text_tsvector (CJK runs as bigrams, accents folded, english
-- stemming), the same pipeline brain.parse_query reads queries with.
CREATE OR REPLACE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT setweight(brain.text_tsvector(title), 'A')
	    || setweight(brain.text_tsvector(body), CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char");
END;

-- embed_local reads text as pages are read (brain.text_tsvector).
CREATE OR REPLACE FUNCTION brain.embed_local(t text) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT brain.embed_tsvector(brain.text_tsvector(t));
END;

-- Recompute the tsvectors that change. The row triggers are bypassed for
-- this one statement so that a remote embedder's vectors survive (they
-- embed the text, which has not changed); the same columns they would set
-- are set here.
ALTER TABLE brain.chunks DISABLE TRIGGER chunks_10_tsv;
ALTER TABLE brain.chunks DISABLE TRIGGER chunks_20_features;
WITH n AS (
	SELECT c.id, brain.chunk_tsv(p.title, c.text, c.chunk_source) AS tsv
	FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
)
UPDATE brain.chunks c
SET tsv = n.tsv,
    doc_len = brain.tsv_length(n.tsv),
    embedding = CASE WHEN brain.embedder() = 'local' THEN brain.embed_tsvector(n.tsv) ELSE c.embedding END
FROM n
WHERE n.id = c.id AND c.tsv IS DISTINCT FROM n.tsv;
ALTER TABLE brain.chunks ENABLE TRIGGER chunks_10_tsv;
ALTER TABLE brain.chunks ENABLE TRIGGER chunks_20_features;

UPDATE brain.config SET value = '9' WHERE key = 'schema_version';
