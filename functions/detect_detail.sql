-- brain.detect_detail(q): the auto-detail heuristic behind detail_resolved.
--
-- Guarantees: a deterministic answer from the query text alone. Temporal or
-- event questions (when, history, since, added in, a year, a month name ...)
-- return 'high', since timelines hold their answers; entity lookups ("who is
-- alice", "what is strings.Builder", a bare Qualified.Name) return 'low',
-- since the compiled truth answers them; anything else returns NULL, which
-- search treats as 'medium'. Empty or NULL input returns NULL.
CREATE OR REPLACE FUNCTION brain.detect_detail(q text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT CASE
		WHEN q IS NULL OR btrim(q) = '' THEN NULL
		WHEN q ~* '\m(when|timeline|history|historical|since|ago|yesterday|changelog|happened|introduced|deprecated|added in|removed in|last (week|month|year)|(19|20)[0-9]{2}|january|february|march|april|june|july|august|september|october|november|december)\M'
			THEN 'high'
		WHEN q ~* '^\s*(who|what)\s+(is|are|was|were)\s+\S'
		  OR q ~ '^\s*[A-Za-z_][A-Za-z0-9_/]*\.[A-Z][A-Za-z0-9_]*\s*$'
			THEN 'low'
		ELSE NULL
	END;
END;
