-- brain.contradiction_pairs(chunk_ids, prompt_version, per_page):
-- the pairs of chunk texts the suspected-contradictions probe asks a model
-- about, for one query's retrieved chunks (in rank order).
--
-- Guarantees:
-- * 'truth_vs_timeline': each retrieved chunk with the up to per_page
--   chunks of the other section of its own page (compiled truth against
--   timeline), nearest by chunk_index first.
-- * 'cross_page': every two retrieved chunks of different pages.
-- * A pair is named by the sha256 (hex) of each text, smaller hash first
--   (side a), so the same two texts are one pair whatever their order or
--   pages; two identical texts are no pair. Each pair appears once (the
--   first by rank wins), ordered by rank.
-- * dismissed: a person marked the pair as not a contradiction
--   (brain.eval_contradictions_dismissed, any prompt version); cached: the
--   model already judged it under prompt_version, with its judgement in
--   the remaining columns (NULL otherwise).
CREATE OR REPLACE FUNCTION brain.contradiction_pairs(chunk_ids bigint[], prompt_version text, per_page int DEFAULT 3)
RETURNS TABLE (kind text, chunk_id_a bigint, source_a text, slug_a text, text_a text, hash_a text,
	chunk_id_b bigint, source_b text, slug_b text, text_b text, hash_b text,
	dismissed boolean, cached boolean, contradiction boolean, severity text, explanation text,
	evidence_a text, evidence_b text)
LANGUAGE sql STABLE
BEGIN ATOMIC
	WITH hit AS (
		SELECT c.id, c.page_id, c.chunk_index, c.chunk_source, c.text, p.source_id, p.slug,
			encode(sha256(convert_to(c.text, 'UTF8')), 'hex') AS h, o.ord
		  FROM unnest(chunk_ids) WITH ORDINALITY AS o(id, ord)
		  JOIN brain.chunks c ON c.id = o.id
		  JOIN brain.pages p ON p.id = c.page_id
	), raw AS (
		SELECT 'truth_vs_timeline'::text AS kind, hit.ord, 0::bigint AS sub,
			hit.id AS id1, hit.source_id AS src1, hit.slug AS slug1, hit.text AS text1, hit.h AS h1,
			o.id AS id2, hit.source_id AS src2, hit.slug AS slug2, o.text AS text2, o.h AS h2, o.rn
		  FROM hit
		  CROSS JOIN LATERAL (
			SELECT c2.id, c2.text, encode(sha256(convert_to(c2.text, 'UTF8')), 'hex') AS h,
				row_number() OVER () AS rn
			  FROM (SELECT * FROM brain.chunks c2
			         WHERE c2.page_id = hit.page_id AND c2.chunk_source <> hit.chunk_source
			         ORDER BY abs(c2.chunk_index - hit.chunk_index), c2.chunk_index
			         LIMIT greatest(coalesce(per_page, 3), 0)) c2
		  ) o
		UNION ALL
		SELECT 'cross_page', x.ord, y.ord,
			x.id, x.source_id, x.slug, x.text, x.h,
			y.id, y.source_id, y.slug, y.text, y.h, 0
		  FROM hit x JOIN hit y ON x.ord < y.ord AND x.page_id <> y.page_id
	), norm AS (
		SELECT r.kind, r.ord, r.sub, r.rn,
			CASE WHEN r.h1 <= r.h2 THEN r.id1 ELSE r.id2 END AS ida,
			CASE WHEN r.h1 <= r.h2 THEN r.src1 ELSE r.src2 END AS srca,
			CASE WHEN r.h1 <= r.h2 THEN r.slug1 ELSE r.slug2 END AS sluga,
			CASE WHEN r.h1 <= r.h2 THEN r.text1 ELSE r.text2 END AS texta,
			least(r.h1, r.h2) AS ha,
			CASE WHEN r.h1 <= r.h2 THEN r.id2 ELSE r.id1 END AS idb,
			CASE WHEN r.h1 <= r.h2 THEN r.src2 ELSE r.src1 END AS srcb,
			CASE WHEN r.h1 <= r.h2 THEN r.slug2 ELSE r.slug1 END AS slugb,
			CASE WHEN r.h1 <= r.h2 THEN r.text2 ELSE r.text1 END AS textb,
			greatest(r.h1, r.h2) AS hb
		  FROM raw r
		 WHERE r.h1 <> r.h2
	), one AS (
		SELECT DISTINCT ON (n.ha, n.hb) n.*
		  FROM norm n
		 ORDER BY n.ha, n.hb, n.ord, n.kind DESC, n.sub, n.rn
	)
	SELECT one.kind, one.ida, one.srca, one.sluga, one.texta, one.ha,
		one.idb, one.srcb, one.slugb, one.textb, one.hb,
		d.hash_a IS NOT NULL, j.hash_a IS NOT NULL, j.contradiction, j.severity, j.explanation,
		j.evidence_a, j.evidence_b
	  FROM one
	  LEFT JOIN brain.eval_contradictions_dismissed d ON d.hash_a = one.ha AND d.hash_b = one.hb
	  LEFT JOIN brain.eval_contradictions_cache j
	    ON j.prompt_version = contradiction_pairs.prompt_version AND j.hash_a = one.ha AND j.hash_b = one.hb
	 ORDER BY one.ord, one.kind DESC, one.sub, one.rn;
END;
