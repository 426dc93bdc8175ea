-- longmemeval.seeded records every brain table that holds rows in the
-- freshly migrated brain (brain.config, brain.sources, brain.corpus_stats
-- today): a copy of those rows (longmemeval.fresh_<table>), the writable
-- columns and their fingerprint, so a reset restores such a table when a
-- question changed it.

CREATE TABLE longmemeval.seeded (
	tbl         regclass PRIMARY KEY,
	copy        regclass NOT NULL,
	cols        text NOT NULL, -- the writable columns, quoted, comma-separated
	fingerprint text NOT NULL
);

DO $do$
DECLARE
	t regclass;
	has boolean;
	c text;
BEGIN
	FOR t IN SELECT k.oid::regclass FROM pg_class k
		WHERE k.relnamespace = 'brain'::regnamespace AND k.relkind IN ('r', 'p') AND NOT k.relispartition
		ORDER BY k.relname
	LOOP
		EXECUTE format('SELECT EXISTS (SELECT FROM %s)', t) INTO has;
		CONTINUE WHEN NOT has;
		c := format('longmemeval.%I', 'fresh_' || (SELECT relname FROM pg_class WHERE oid = t));
		EXECUTE format('CREATE TABLE %s AS TABLE %s', c, t);
		INSERT INTO longmemeval.seeded
		SELECT t, c::regclass,
		       (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
		        WHERE a.attrelid = t AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''),
		       longmemeval.fingerprint(t);
	END LOOP;
END
$do$;
