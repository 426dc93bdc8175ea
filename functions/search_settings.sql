-- brain.search_setting(name): one retrieval tuning knob, as a number.
--
-- Guarantees: a DBA override in brain.config (key 'search.<name>') wins;
-- otherwise the default documented (and tuned) in docs/retrieval.md is
-- returned; an unknown name, or an override that is not a number (or is
-- out of float8's range), is an error naming the key, never a silent NULL
-- or a bare cast error. The vector arm's fusion weight is the trust rule:
-- the offline 'local' embedder (hashed lexemes) is weak and mostly repeats
-- the keyword arm, so it gets a low weight and can only reorder near-ties;
-- any other (semantic) embedder gets the same weight as the keyword arm.
-- rrf_k is 10 for 'local' (a keyword top hit keeps its lead) and the
-- customary 60 otherwise.
CREATE OR REPLACE FUNCTION brain.search_setting(name text) RETURNS float8
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	v text;
	d float8;
	problem text;
	is_local boolean;
BEGIN
	-- One call site: brain.embedder() is planned once per transaction at
	-- each place it is called, and a search reads this function twenty times.
	IF name IN ('vector_weight', 'rrf_k', 'vector_fill_only') THEN
		is_local := brain.embedder() = 'local';
	END IF;
	d := CASE name
		WHEN 'keyword_weight' THEN 1.0
		WHEN 'vector_weight' THEN CASE WHEN is_local THEN 0.25 ELSE 1.0 END
		WHEN 'rrf_k' THEN CASE WHEN is_local THEN 10 ELSE 60 END
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
		WHEN 'title_names' THEN 20
		WHEN 'proximity' THEN 0.2
		WHEN 'initials' THEN 1
		WHEN 'vector_fill_only' THEN CASE WHEN is_local THEN 1 ELSE 0 END
		WHEN 'type_share' THEN 1.0
	END;
	IF d IS NULL THEN
		RAISE EXCEPTION 'unknown search setting %', quote_literal(name)
			USING HINT = 'docs/retrieval.md lists the settings brain.config accepts as search.<name>';
	END IF;
	SELECT c.value INTO v FROM brain.config c WHERE c.key = 'search.' || name;
	IF v IS NULL THEN
		RETURN d;
	END IF;
	-- Checked before the cast, so a typo a DBA stored names itself instead
	-- of failing every search with a bare cast error.
	IF v ~ '^\s*[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?\s*$' THEN
		BEGIN
			RETURN v::float8;
		EXCEPTION WHEN numeric_value_out_of_range THEN
			problem := 'out of range for a number'; -- "1e999" passes the check but not the cast
		END;
	ELSE
		problem := 'not a number';
	END IF;
	RAISE EXCEPTION 'brain.config key search.% holds %, which is %', name, quote_literal(v), problem
		USING ERRCODE = 'invalid_parameter_value',
		      HINT = format('store a number (the default is %s), or delete the row to use the default: DELETE FROM brain.config WHERE key = %L', d, 'search.' || name);
END
$fn$;
