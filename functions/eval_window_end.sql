-- brain.eval_window_end(): the end of an export window that chained exports
-- can trust: every candidate row with created_at before it is already
-- committed (so an export taken afterwards sees it), and no transaction can
-- still commit a row dated before it.
--
-- Why it holds: the insert trigger takes the row's transaction id before
-- stamping created_at with clock_timestamp(). A row dated before the returned
-- end therefore had its transaction id assigned before pg_stat_activity is
-- read here. If that transaction was still running at the read, it showed a
-- backend_xid, and the end is clamped to its xact_start (which precedes the
-- row's created_at); if it had already finished, it committed before any
-- later snapshot. Only this database's backends count: no other can write
-- its rows. Backends whose xact_start this role may not see (without
-- pg_read_all_stats) cannot be bounded, so the function waits for those
-- transactions to finish. Assumes the server's wall clock does not step
-- backwards. Exports use the half-open window [since, end).
CREATE OR REPLACE FUNCTION brain.eval_window_end() RETURNS timestamptz
LANGUAGE plpgsql VOLATILE SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	t_end   timestamptz := clock_timestamp();
	bounded timestamptz;
	unknown text[];
BEGIN
	-- pg_stat_activity is cached per transaction; read it fresh.
	PERFORM pg_stat_clear_snapshot();
	SELECT min(a.xact_start),
	       array_agg(a.pid || ':' || a.backend_xid) FILTER (WHERE a.xact_start IS NULL)
	  INTO bounded, unknown
	  FROM pg_stat_activity a
	 WHERE a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid()
	   AND a.datname = current_database();
	IF bounded IS NOT NULL AND bounded < t_end THEN
		t_end := bounded;
	END IF;
	-- Wait for the transactions whose start this role cannot see, until
	-- each backend no longer holds the transaction id it held above.
	WHILE unknown IS NOT NULL LOOP
		PERFORM pg_sleep(0.01);
		PERFORM pg_stat_clear_snapshot();
		SELECT array_agg(a.pid || ':' || a.backend_xid) INTO unknown
		  FROM pg_stat_activity a
		 WHERE a.backend_xid IS NOT NULL AND (a.pid || ':' || a.backend_xid) = ANY (unknown);
	END LOOP;
	RETURN t_end;
END
$fn$;
