-- brain.search_settings(): every retrieval tuning knob, as a jsonb object
-- (name -> number, read with ->> and ::float8); brain.search_setting(name):
-- one of them, as a number.
--
-- Guarantees: a DBA override in brain.config (key 'search.<name>') wins;
-- otherwise the default documented (and tuned) in docs/retrieval.md is
-- used. An override that is not a number (or is out of float8's range),
-- or is out of its knob's range (bm25_k1, title_exact and the weights: 0 or more;
-- bm25_b: 0 to 1; rrf_k and type_share: more than 0), is an error naming
-- the key and the fix, never a silent NULL, a bare cast error or a
-- division by zero; since a search reads every knob at once, it fails
-- every search until it is fixed. A brain.config key under 'search.' that
-- names no knob is ignored; search_setting of an unknown name is an
-- error. Every value is a jsonb number (an override's float8, which
-- ::float8 reads back exactly). The vector arm's fusion
-- weight is the trust rule: the offline 'local' embedder (hashed lexemes)
-- is weak and mostly repeats the keyword arm, so it gets a low weight and
-- can only reorder near-ties; any other (semantic) embedder gets the same
-- weight as the keyword arm. rrf_k is 10 for 'local' (a keyword top hit
-- keeps its lead) and the customary 60 otherwise.
-- One call reads them all: a search needs every one, and as many calls of
-- a function that reads brain.config cost about 0.2 ms.
CREATE OR REPLACE FUNCTION brain.search_settings() RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	is_local boolean;
	stored jsonb;
	defaults jsonb;
	res jsonb;
	o record;
	problem text;
	num float8;
BEGIN
	-- brain.config read once, the embedder with the overrides (brain.embedder()
	-- is an SQL function, planned again at every call)
	SELECT coalesce(max(c.value) FILTER (WHERE c.key = 'embedder'), 'local') = 'local',
	       coalesce(jsonb_object_agg(substr(c.key, 8), c.value) FILTER (WHERE c.key <> 'embedder'), '{}')
	INTO is_local, stored
	FROM brain.config c WHERE c.key = 'embedder' OR starts_with(c.key, 'search.');
	defaults := jsonb_build_object(
		'keyword_weight', 1.0,
		'vector_weight', CASE WHEN is_local THEN 0.25 ELSE 1.0 END,
		'rrf_k', CASE WHEN is_local THEN 10 ELSE 60 END,
		'bm25_k1', 1.2,
		'bm25_b', 0.75,
		'title_weight', 2.0,
		'timeline_weight', 0.5,
		'keyword_candidates', 400,
		'keyword_candidates_max', 0,
		'keyword_rounds', 0,
		'strict_bonus', 0.1,
		'coverage_weight', 0.5,
		'lead_weight', 0.3,
		'lead_words', 15,
		'title_affinity', 0.5,
		'title_coverage', 0.3,
		'title_unexplained', 0.06,
		'title_depth', 50,
		'title_names', 20,
		'title_exact', 1.0,
		'proximity', 0.2,
		'initials', 1,
		'vector_fill_only', CASE WHEN is_local THEN 1 ELSE 0 END,
		'type_share', 1.0);
	res := defaults;
	FOR o IN SELECT x.key AS name, x.value FROM jsonb_each_text(stored) x ORDER BY x.key LOOP
		CONTINUE WHEN NOT defaults ? o.name;
		-- Checked before the cast, so a typo a DBA stored names itself
		-- instead of failing every search with a bare cast error.
		IF o.value ~ '^\s*[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?\s*$' THEN
			BEGIN
				-- (a block with EXCEPTION costs a subtransaction: entered
				-- only for the overrides a DBA stored)
				num := o.value::float8;
				-- Ranges where a value would break the formulas (a
				-- negative k1 divides by zero) or their meaning; the
				-- other knobs are clamped where they are read.
				problem := CASE
					WHEN o.name IN ('bm25_k1', 'keyword_weight', 'vector_weight', 'title_weight', 'timeline_weight', 'title_exact', 'lead_weight') AND num < 0
						THEN 'below 0: it must be 0 or more'
					WHEN o.name = 'bm25_b' AND (num < 0 OR num > 1) THEN 'out of range: it must be from 0 to 1'
					WHEN o.name IN ('rrf_k', 'type_share') AND num <= 0 THEN 'not above 0: it must be more than 0'
				END;
				IF problem IS NULL THEN
					res := res || jsonb_build_object(o.name, num);
					CONTINUE;
				END IF;
			EXCEPTION WHEN numeric_value_out_of_range THEN
				problem := 'out of range for a number'; -- "1e999" passes the check but not the cast
			END;
		ELSE
			problem := 'not a number';
		END IF;
		RAISE EXCEPTION 'brain.config key search.% holds %, which is %', o.name, quote_literal(o.value), problem
			USING ERRCODE = 'invalid_parameter_value',
			      HINT = format('store a number (the default is %s), or delete the row to use the default: DELETE FROM brain.config WHERE key = %L',
			                    defaults ->> o.name, 'search.' || o.name);
	END LOOP;
	RETURN res;
END
$fn$;

CREATE OR REPLACE FUNCTION brain.search_setting(name text) RETURNS float8
LANGUAGE plpgsql STABLE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	v text := brain.search_settings() ->> name;
BEGIN
	IF v IS NULL THEN
		RAISE EXCEPTION 'unknown search setting %', quote_literal(name)
			USING HINT = 'docs/retrieval.md lists the settings brain.config accepts as search.<name>';
	END IF;
	RETURN v::float8;
END
$fn$;
