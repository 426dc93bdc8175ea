-- brain.pages_pii_categories(page_ids): the sorted union of the PII
-- categories of the given pages, in one query: what a tool call touching
-- those pages records in the audit log and checks against the refusal
-- policy. Pages without a classification contribute nothing.
CREATE OR REPLACE FUNCTION brain.pages_pii_categories(page_ids bigint[]) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT coalesce(array_agg(DISTINCT c COLLATE "C" ORDER BY c COLLATE "C"), '{}')
	FROM brain.page_pii p, unnest(p.categories) c
	WHERE p.page_id = ANY (page_ids);
END;
