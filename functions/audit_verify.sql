-- brain.audit_verify(full, since_id, window_rows): the audit rows whose
-- stored values do not match the chain, one result row per problem, ordered
-- by id; no result means the checked part of the chain is valid.
--   missing_rows         ids are not contiguous (rows were deleted)
--   broken_link          prev_hash is not the previous row's chain_hash
--                        (or the genesis, 32 zero bytes, for row 1)
--   hash_mismatch        chain_hash is not sha256(prev_hash || canonical row)
--   fingerprint_mismatch fingerprint does not match the row's own columns
--   invalid_categories   pii_categories is not a sorted taxonomy list
-- full = true checks every row. Otherwise the rows from since_id on are
-- checked, or without since_id the newest window_rows rows; the first
-- checked row is still linked to its predecessor's stored chain_hash. A
-- coherent rewrite of the whole tail is detectable only against a chain_hash
-- kept outside the database (docs/audit.md).
CREATE OR REPLACE FUNCTION brain.audit_verify(
	full boolean DEFAULT false, since_id bigint DEFAULT NULL, window_rows bigint DEFAULT 10000)
RETURNS TABLE (id bigint, problem text, detail text)
LANGUAGE sql STABLE
BEGIN ATOMIC
	WITH lo AS (
		SELECT CASE
			WHEN $1 THEN NULL
			WHEN $2 IS NOT NULL THEN $2
			ELSE (SELECT max(a.id) FROM brain.audit_log a) - greatest($3, 1) + 1
		END AS first_id
	), start AS (
		SELECT coalesce((SELECT max(a.id) FROM brain.audit_log a WHERE a.id < lo.first_id), lo.first_id) AS from_id
		FROM lo
	), linked AS (
		SELECT a AS rec, lag(a.id) OVER w AS prev_id, lag(a.chain_hash) OVER w AS prev_chain
		FROM brain.audit_log a, start
		WHERE start.from_id IS NULL OR a.id >= start.from_id
		WINDOW w AS (ORDER BY a.id)
	), checked AS (
		SELECT l.* FROM linked l, lo
		WHERE lo.first_id IS NULL OR (l.rec).id >= lo.first_id
	)
	SELECT (c.rec).id, p.problem, p.detail
	FROM checked c
	CROSS JOIN LATERAL (VALUES
		(CASE WHEN (c.rec).id IS DISTINCT FROM coalesce(c.prev_id, 0) + 1 THEN 'missing_rows' END,
		 format('rows %s..%s are missing before row %s', coalesce(c.prev_id, 0) + 1, (c.rec).id - 1, (c.rec).id)),
		(CASE WHEN (c.rec).prev_hash IS DISTINCT FROM coalesce(c.prev_chain, decode(repeat('00', 32), 'hex')) THEN 'broken_link' END,
		 format('prev_hash %s does not match %s', encode((c.rec).prev_hash, 'hex'),
		        CASE WHEN c.prev_id IS NULL THEN 'the genesis hash (32 zero bytes)'
		             ELSE format('the chain_hash of row %s (%s)', c.prev_id, encode(c.prev_chain, 'hex')) END)),
		(CASE WHEN (c.rec).chain_hash IS DISTINCT FROM sha256((c.rec).prev_hash || brain.audit_canonical_row(c.rec)) THEN 'hash_mismatch' END,
		 format('stored chain_hash %s, recomputed %s', encode((c.rec).chain_hash, 'hex'),
		        encode(sha256((c.rec).prev_hash || brain.audit_canonical_row(c.rec)), 'hex'))),
		(CASE WHEN NOT brain.pii_categories_valid((c.rec).pii_categories) THEN 'invalid_categories' END,
		 format('pii_categories %s is not a sorted, duplicate-free list of taxonomy names', (c.rec).pii_categories)),
		(CASE WHEN brain.pii_categories_valid((c.rec).pii_categories)
		       AND (c.rec).fingerprint IS DISTINCT FROM brain.audit_fingerprint((c.rec).tool_name, (c.rec).status,
		           (c.rec).refusal_reason, (c.rec).pii_categories, (c.rec).cost_class)
		      THEN 'fingerprint_mismatch' END,
		 format('stored fingerprint %s does not match the row''s tool, status, refusal reason, categories and cost class',
		        (c.rec).fingerprint))
	) AS p (problem, detail)
	WHERE p.problem IS NOT NULL
	ORDER BY 1, 2;
END;
