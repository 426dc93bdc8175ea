-- 026_slashed_word_parts: a page's slashed word is found by its parts.
--
-- Guarantees:
-- * brain.chunk_tsv adds, at the same positions, the parts of every slashed
--   word of a chunk's title and text (brain.slash_parts): PostgreSQL's
--   parser reads "TCP/IP", "client/server", "input/output" and
--   "/usr/bin/foo" as one word, so a page holding one was not found by
--   "tcp", "server" or "foo", though a query's slashed word already matched
--   its parts. brain.embed_local reads a query the same way.
-- * Every chunk whose text or page title holds a slash is indexed again
--   (its tsvector, doc_len, 'local' embedding and the BM25 statistics
--   follow, by the chunk triggers), so stored chunks agree with the new
--   definition; other chunks are not written. A vector from another
--   embedder is kept (the text is the same). This reads the text of every
--   chunk once.

-- brain.slash_parts(v): v with the parts of its slashed words added.
--
-- Guarantees: every lexeme of v holding a slash (PostgreSQL's parser keeps
-- "TCP/IP", "client/server", "/usr/bin/foo" and a URL's path as one word;
-- not a whole URL, host/path, whose host and path are lexemes already)
-- also gets, at the same positions, the lexemes its parts have when read
-- as words (brain.text_tsvector of the lexeme with slashes as spaces:
-- "tcp/ip" -> tcp, ip; "libraries/apps" -> librari, app), which is how
-- brain.parse_query reads a slashed query word. So a page saying TCP/IP is
-- found by "tcp", as a page saying e-mail is found by "mail". The lexemes
-- and positions v already holds are unchanged; v without a slashed lexeme
-- is returned as it is. Weights are not carried over: it is applied
-- before setweight (brain.chunk_tsv).
CREATE OR REPLACE FUNCTION brain.slash_parts(v tsvector) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	extra text;
BEGIN
	-- tsvector has no constructor taking positions but its text form, whose
	-- input merges a lexeme written twice into one with both positions.
	SELECT string_agg('''' || replace(replace(x.lexeme, '\', '\\'), '''', '''''') || ''':' || x.pos, ' ')
	INTO extra
	FROM (SELECT DISTINCT p.lexeme, array_to_string(u.positions, ',') AS pos
	      FROM unnest(v) u, unnest(brain.text_tsvector(translate(u.lexeme, '/', ' '))) p
	      -- (a URL, host/path, is left whole: the parser gives its host, at
	      -- the next position, and its path as lexemes of their own, and
	      -- the path is split here)
	      WHERE strpos(u.lexeme, '/') > 0 AND p.lexeme <> u.lexeme
	        AND NOT EXISTS (SELECT 1 FROM unnest(v) h
	                        WHERE h.lexeme = split_part(u.lexeme, '/', 1) AND u.positions[1] + 1 = ANY (h.positions))) x;
	IF extra IS NULL THEN
		RETURN v;
	END IF;
	RETURN (v::text || ' ' || extra)::tsvector;
END
$fn$;

-- brain.chunk_tsv(title, text, chunk_source): the tsvector stored for a chunk.
--
-- Guarantees: the page title is weighted A, compiled-truth text B and
-- timeline text C, so a title match outranks a body match and timeline
-- entries rank below the compiled truth. Text goes through
-- brain.text_tsvector (CJK runs as bigrams, accents folded, english
-- stemming), the same pipeline brain.parse_query reads queries with, and
-- a slashed word also holds its parts (brain.slash_parts, migration 026),
-- as a slashed query word matches its parts; text without a slash (most)
-- skips that call.
CREATE OR REPLACE FUNCTION brain.chunk_tsv(title text, body text, chunk_source text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT setweight(CASE WHEN strpos(title, '/') = 0 THEN brain.text_tsvector(title)
	                      ELSE brain.slash_parts(brain.text_tsvector(title)) END, 'A')
	    || setweight(CASE WHEN strpos(body, '/') = 0 THEN brain.text_tsvector(body)
	                      ELSE brain.slash_parts(brain.text_tsvector(body)) END,
	                 CASE WHEN chunk_source = 'timeline' THEN 'C' ELSE 'B' END::"char");
END;

-- embed_local reads text as pages are read (brain.text_tsvector, and the
-- parts of slashed words, brain.slash_parts, as brain.chunk_tsv adds them).
CREATE OR REPLACE FUNCTION brain.embed_local(t text) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT brain.embed_tsvector(CASE WHEN strpos(t, '/') = 0 THEN brain.text_tsvector(t)
	                                 ELSE brain.slash_parts(brain.text_tsvector(t)) END);
END;

-- As in migration 023: vectors that came from outside are put back after
-- the chunk trigger marked them stale, in one DO block so the copy never
-- outlives the statement.
DO $do$
BEGIN
	CREATE TEMPORARY TABLE slash_vectors AS
	SELECT c.id, c.embedding FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
	WHERE (strpos(c.text, '/') > 0 OR strpos(p.title, '/') > 0)
	  AND c.embedding IS NOT NULL AND brain.embedder() <> 'local';

	UPDATE brain.chunks c SET text = c.text
	FROM brain.pages p
	WHERE p.id = c.page_id AND (strpos(c.text, '/') > 0 OR strpos(p.title, '/') > 0);

	UPDATE brain.chunks c SET embedding = v.embedding
	FROM slash_vectors v WHERE v.id = c.id;

	DROP TABLE slash_vectors;
END
$do$;

UPDATE brain.config SET value = '26' WHERE key = 'schema_version';
