-- reset() empties every table of schema brain, enumerated now (so a table
-- added by a later migration is emptied too), except the seeded ones, which
-- are restored when their content changed, and refreshes its materialized
-- views. Tables are emptied referencing
-- ones first, and only when they hold rows: an append-only table such as
-- brain.audit_log refuses even an empty DELETE, and holds no rows here
-- unless something wrote to it, which then fails the run loudly.
CREATE FUNCTION longmemeval.reset() RETURNS text[]
LANGUAGE plpgsql AS $fn$
DECLARE
	r record;
	has boolean;
	cleared text[] := '{}';
BEGIN
	FOR r IN
		WITH RECURSIVE t AS (
			SELECT k.oid FROM pg_class k
			WHERE k.relnamespace = 'brain'::regnamespace AND k.relkind IN ('r', 'p') AND NOT k.relispartition
		), up (oid, depth) AS (
			SELECT oid, 0 FROM t
			UNION ALL
			SELECT f.confrelid, up.depth + 1 FROM up
			JOIN pg_constraint f ON f.contype = 'f' AND f.conrelid = up.oid AND f.confrelid <> f.conrelid
			WHERE up.depth < 32
		)
		SELECT up.oid::regclass AS tbl FROM up
		WHERE up.oid IN (SELECT oid FROM t) AND up.oid NOT IN (SELECT tbl FROM longmemeval.seeded)
		GROUP BY up.oid ORDER BY max(up.depth), up.oid::regclass::text
	LOOP
		EXECUTE format('SELECT EXISTS (SELECT FROM %s)', r.tbl) INTO has;
		IF has THEN
			EXECUTE format('DELETE FROM %s', r.tbl);
			cleared := cleared || r.tbl::text;
		END IF;
	END LOOP;
	FOR r IN SELECT * FROM longmemeval.seeded ORDER BY tbl::text LOOP
		IF longmemeval.fingerprint(r.tbl) <> r.fingerprint THEN
			EXECUTE format('DELETE FROM %s', r.tbl);
			EXECUTE format('INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM %s', r.tbl, r.cols, r.cols, r.copy);
			cleared := cleared || r.tbl::text;
		END IF;
	END LOOP;
	-- Materialized views derive from the tables: recomputed from them now.
	FOR r IN SELECT k.oid::regclass AS tbl FROM pg_class k
		WHERE k.relnamespace = 'brain'::regnamespace AND k.relkind = 'm' AND k.relispopulated
	LOOP
		EXECUTE format('REFRESH MATERIALIZED VIEW %s', r.tbl);
	END LOOP;
	RETURN cleared;
END
$fn$;
