-- brain.search_setting(name): one retrieval tuning knob, as a number.
--
-- Guarantees: a DBA override in brain.config (key 'search.<name>') wins;
-- otherwise the default documented (and tuned) in docs/retrieval.md is
-- returned; an unknown name is an error, never a silent NULL. The vector
-- arm's fusion weight is the trust rule: the offline 'local' embedder (hashed
-- lexemes) is weak and mostly repeats the keyword arm, so it gets a low
-- weight and can only reorder near-ties; any other (semantic) embedder gets
-- the same weight as the keyword arm. rrf_k is 10 for 'local' (a keyword
-- top hit keeps its lead) and the customary 60 otherwise.
CREATE OR REPLACE FUNCTION brain.search_setting(name text) RETURNS float8
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	v text;
	d float8;
BEGIN
	d := CASE name
		WHEN 'keyword_weight' THEN 1.0
		WHEN 'vector_weight' THEN CASE WHEN brain.embedder() = 'local' THEN 0.25 ELSE 1.0 END
		WHEN 'rrf_k' THEN CASE WHEN brain.embedder() = 'local' THEN 10 ELSE 60 END
		WHEN 'bm25_k1' THEN 1.2
		WHEN 'bm25_b' THEN 0.75
		WHEN 'title_weight' THEN 2.0
		WHEN 'timeline_weight' THEN 0.5
		WHEN 'keyword_candidates' THEN 400
		WHEN 'keyword_candidates_max' THEN 0
		WHEN 'strict_bonus' THEN 0.1
		WHEN 'coverage_weight' THEN 0.5
		WHEN 'title_affinity' THEN 0.5
		WHEN 'title_coverage' THEN 0.3
		WHEN 'title_unexplained' THEN 0.06
		WHEN 'title_depth' THEN 50
		WHEN 'proximity' THEN 0.2
		WHEN 'vector_fill_only' THEN CASE WHEN brain.embedder() = 'local' THEN 1 ELSE 0 END
		WHEN 'type_share' THEN 1.0
	END;
	IF d IS NULL THEN
		RAISE EXCEPTION 'unknown search setting %', quote_literal(name)
			USING HINT = 'docs/retrieval.md lists the settings brain.config accepts as search.<name>';
	END IF;
	SELECT c.value INTO v FROM brain.config c WHERE c.key = 'search.' || name;
	RETURN coalesce(v::float8, d);
END
$fn$;
