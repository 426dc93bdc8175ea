-- Versioned: stored data or a CHECK depends on this definition, so the
-- migrations install it; change it only in a new migration (docs/migrations.md).
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
-- A migration that changes this reading (brain.indexed_tsvector reads
-- pages through it) reindexes the chunks it affects and recomputes
-- brain.pages.title_words (UPDATE brain.pages SET title = title).
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
