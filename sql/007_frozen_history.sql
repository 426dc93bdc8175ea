-- 007_frozen_history: every function of the brain schema runs with a fixed
-- search_path.
--
-- Guarantees: a function resolves the names it uses (brain's own objects,
-- then pgvector's types and operators, in the schema that holds the vector
-- extension) the same way whatever search_path its caller has set, so a
-- caller cannot redirect it to objects of its own. Functions that already pin
-- a search_path (the audit chain trigger) keep theirs. From this migration on,
-- the functions and views of functions/install.sql are re-applied by every
-- migrate whose copy differs, so they are no longer part of migrations.

DO $pin$
DECLARE
	f regprocedure;
BEGIN
	FOR f IN
		SELECT p.oid::regprocedure FROM pg_proc p
		WHERE p.pronamespace = 'brain'::regnamespace
		  AND NOT EXISTS (SELECT FROM unnest(p.proconfig) c WHERE c LIKE 'search\_path=%')
		ORDER BY p.oid
	LOOP
		EXECUTE format('ALTER FUNCTION %s SET search_path = brain, {{.vector_schema}}, pg_temp', f);
	END LOOP;
END
$pin$;

UPDATE brain.config SET value = '7' WHERE key = 'schema_version';
