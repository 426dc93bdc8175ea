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
-- transactions to finish, for at most brain.eval_window_timeout (a setting,
-- any interval; default 30 seconds; 0 or a negative value fails at once
-- instead of waiting): then it fails (SQLSTATE 55P03) with a message naming
-- each session still holding such a transaction (pid, user,
-- application_name, state, xact_start, as far as this role may see them)
-- and the fixes. Assumes the server's wall clock does not step backwards.
-- Exports use the half-open window [since, end).
-- SECURITY DEFINER: it reads pg_stat_activity with the rights of the role
-- that installed the schema, so an export run as pgbrain_reader (SET ROLE
-- from the installing login, as the CLI does) still sees when that
-- login's own import or index build started, instead of waiting for it.
-- It takes no input and returns one timestamp.
CREATE OR REPLACE FUNCTION brain.eval_window_end() RETURNS timestamptz
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = brain, {{.vector_schema}}, pg_temp AS $fn$
DECLARE
	t_end    timestamptz := clock_timestamp();
	bounded  timestamptz;
	unknown  text[];
	setting  text := nullif(current_setting('brain.eval_window_timeout', true), '');
	max_wait interval := interval '30 seconds';
	deadline timestamptz;
	who      text;
BEGIN
	IF setting IS NOT NULL THEN
		BEGIN
			max_wait := setting::interval;
		EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR interval_field_overflow THEN
			RAISE EXCEPTION 'brain.eval_window_timeout is %, which is not a time interval', quote_literal(setting)
				USING ERRCODE = '22023',
				      HINT = 'set it to an interval such as ''30s'' or ''5min'', or RESET brain.eval_window_timeout for the default of 30 seconds';
		END;
	END IF;
	deadline := clock_timestamp() + max_wait;
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
		IF clock_timestamp() >= deadline THEN
			SELECT string_agg(format('pid %s (user %s, application_name %s, state %s, xact_start %s)',
			                         a.pid, coalesce(a.usename::text, 'unknown'),
			                         coalesce(quote_literal(a.application_name), 'unknown'),
			                         coalesce(a.state, 'unknown'),
			                         coalesce(a.xact_start::text, 'unknown')), '; ' ORDER BY a.pid)
			  INTO who
			  FROM pg_stat_activity a
			 WHERE (a.pid || ':' || a.backend_xid) = ANY (unknown);
			RAISE EXCEPTION 'brain.eval_window_end: waited % for transactions that this role cannot see the start of: %', max_wait, coalesce(who, array_to_string(unknown, ', '))
				USING ERRCODE = '55P03',
				      HINT = 'end those transactions (pg_terminate_backend(pid)), grant pg_read_all_stats to the owner of brain.eval_window_end so their start bounds the window without waiting, or wait longer with SET brain.eval_window_timeout = ''5min''';
		END IF;
		PERFORM pg_sleep(0.01);
		PERFORM pg_stat_clear_snapshot();
		SELECT array_agg(a.pid || ':' || a.backend_xid) INTO unknown
		  FROM pg_stat_activity a
		 WHERE a.backend_xid IS NOT NULL AND (a.pid || ':' || a.backend_xid) = ANY (unknown);
	END LOOP;
	RETURN t_end;
END
$fn$;
