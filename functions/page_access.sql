-- brain.page_access(source_id, slug): whether the caller's row security
-- lets agents read a page, and why not, so that a front end can refuse a
-- page by name instead of calling it missing.
--
-- Guarantees: no row when the page does not exist; otherwise page_id and
-- state: 'visible' (a current classification free of blocked categories),
-- 'unclassified' (never classified, e.g. written from psql), 'stale'
-- (written since it was classified) or 'blocked'; blocked lists the
-- page's categories that brain.pii_blocked() holds. SECURITY DEFINER: it
-- answers for pages the caller cannot read, and says nothing of their
-- id, text, title or other categories: page_id is NULL unless the caller's
-- row security shows it the page (brain.caller_scope()).
CREATE OR REPLACE FUNCTION brain.page_access(p_source text, p_slug text,
	OUT page_id bigint, OUT state text, OUT blocked text[])
RETURNS SETOF record
LANGUAGE sql STABLE SECURITY DEFINER
BEGIN ATOMIC
	SELECT CASE WHEN s.scope = 'all' OR (s.scope = 'agent' AND coalesce(t.agent_visible, false)) THEN p.id END,
	       CASE WHEN t.page_id IS NULL THEN 'unclassified'
	            WHEN t.stale THEN 'stale'
	            WHEN t.agent_visible THEN 'visible'
	            ELSE 'blocked' END,
	       ARRAY(SELECT c FROM unnest(coalesce(t.categories, '{}')) c
	             WHERE c = ANY (brain.pii_blocked()) ORDER BY c COLLATE "C")
	FROM brain.pages p LEFT JOIN brain.page_pii t ON t.page_id = p.id
	CROSS JOIN (SELECT brain.caller_scope() AS scope) s
	WHERE p.source_id = p_source AND p.slug = p_slug;
END;
