-- 003_eval: eval capture and its export contract.
--
-- Guarantees: every captured query is one row of brain.eval_candidates whose
-- shape is refused by CHECK constraints unless it matches the NDJSON v1
-- contract (query at most 51,200 characters, closed tool/detail enums);
-- created_at is always set by the database (see the trigger) so that
-- brain.eval_window_end() can hand out window ends that chained exports can
-- trust; brain.eval_export presents every row already shaped as its v1 NDJSON
-- line; failures to capture are kept in brain.eval_capture_failures with a
-- closed reason enum so `pgbrain doctor` (another process) can report them.

CREATE TABLE brain.eval_candidates (
	id                  bigserial PRIMARY KEY,
	tool_name           text NOT NULL
		CONSTRAINT eval_candidates_tool_name CHECK (tool_name IN ('query', 'search')),
	query               text NOT NULL
		CONSTRAINT eval_candidates_query_length CHECK (char_length(query) <= 51200),
	retrieved_slugs     text[] NOT NULL DEFAULT '{}'
		CONSTRAINT eval_candidates_slugs_shape CHECK (
			array_position(retrieved_slugs, NULL) IS NULL AND coalesce(array_ndims(retrieved_slugs), 1) = 1),
	retrieved_chunk_ids bigint[] NOT NULL DEFAULT '{}'
		CONSTRAINT eval_candidates_chunk_ids_shape CHECK (
			array_position(retrieved_chunk_ids, NULL) IS NULL AND coalesce(array_ndims(retrieved_chunk_ids), 1) = 1),
	source_ids          text[] NOT NULL DEFAULT '{}'
		CONSTRAINT eval_candidates_source_ids_shape CHECK (
			array_position(source_ids, NULL) IS NULL AND coalesce(array_ndims(source_ids), 1) = 1),
	-- Expansion is a concept of query only; search rows carry NULL.
	expand_enabled      boolean
		CONSTRAINT eval_candidates_expand_query_only CHECK (expand_enabled IS NULL OR tool_name = 'query'),
	detail              text
		CONSTRAINT eval_candidates_detail CHECK (detail IN ('low', 'medium', 'high')),
	detail_resolved     text
		CONSTRAINT eval_candidates_detail_resolved CHECK (detail_resolved IN ('low', 'medium', 'high')),
	vector_enabled      boolean NOT NULL,
	expansion_applied   boolean NOT NULL DEFAULT false,
	latency_ms          numeric(14, 3) NOT NULL
		CONSTRAINT eval_candidates_latency CHECK (latency_ms >= 0 AND latency_ms < 1e11),
	remote              boolean NOT NULL DEFAULT false,
	job_id              bigint,
	subagent_id         bigint,
	created_at          timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The export order (and window filter) of brain.eval_export, overall and per tool.
CREATE INDEX eval_candidates_export_idx ON brain.eval_candidates (created_at DESC, id DESC);
CREATE INDEX eval_candidates_tool_export_idx ON brain.eval_candidates (tool_name, created_at DESC, id DESC);

CREATE TABLE brain.eval_capture_failures (
	id          bigserial PRIMARY KEY,
	-- When the capture failed; recorded_at differs when it was spooled first.
	occurred_at timestamptz NOT NULL DEFAULT now(),
	recorded_at timestamptz NOT NULL DEFAULT now(),
	tool_name   text
		CONSTRAINT eval_capture_failures_tool_name CHECK (tool_name IN ('query', 'search')),
	reason      text NOT NULL
		CONSTRAINT eval_capture_failures_reason CHECK (
			reason IN ('db_down', 'rls_reject', 'check_violation', 'scrubber_exception', 'other')),
	sqlstate    text
		CONSTRAINT eval_capture_failures_sqlstate CHECK (sqlstate ~ '^[0-9A-Z]{5}$'),
	-- A summary that never contains the query text (it may hold unscrubbed PII).
	message     text NOT NULL DEFAULT ''
		CONSTRAINT eval_capture_failures_message CHECK (char_length(message) <= 1000),
	-- Set for failures that waited in the local spool; unique so replaying a
	-- spool after a crash cannot record a failure twice.
	spool_id    text UNIQUE
		CONSTRAINT eval_capture_failures_spool_id CHECK (spool_id ~ '^[0-9a-f]{32}$')
);

CREATE INDEX eval_capture_failures_occurred_idx ON brain.eval_capture_failures (occurred_at DESC);

-- eval_candidates_10_created_at: the database, never the writer, stamps
-- created_at, and only after the inserting transaction holds its
-- transaction id. So every row's created_at is later than the moment its
-- transaction became visible as running in pg_stat_activity.backend_xid,
-- which is what brain.eval_window_end() relies on to hand out window ends
-- that no still-running transaction can commit a row before. (A DBA can
-- still UPDATE created_at, e.g. to backfill; an UPDATE is not a new capture.)
CREATE OR REPLACE FUNCTION brain.eval_candidates_set_created_at() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	PERFORM pg_current_xact_id();
	NEW.created_at := clock_timestamp();
	RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS eval_candidates_10_created_at ON brain.eval_candidates;
CREATE TRIGGER eval_candidates_10_created_at
	BEFORE INSERT ON brain.eval_candidates
	FOR EACH ROW EXECUTE FUNCTION brain.eval_candidates_set_created_at();
-- brain.eval_export: every captured candidate as its NDJSON v1 line.
--
-- Guarantees: row_json is the exact line `pgbrain eval export` prints:
-- compact JSON (no spaces), keys in the documented order with schema_version
-- first (built as text, because jsonb reorders keys and json_build_object
-- pads them with spaces), created_at always in UTC with microseconds and a
-- trailing Z whatever the session's TimeZone, latency_ms without trailing
-- zeros. Rows are ordered created_at DESC, id DESC; id, tool_name and
-- created_at are exposed beside row_json so windows filter on indexed columns.
CREATE OR REPLACE FUNCTION brain.eval_row_json(c brain.eval_candidates) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
	SELECT (
		'{"schema_version":1'
		|| ',"id":' || c.id
		|| ',"tool_name":' || to_json(c.tool_name)::text
		|| ',"query":' || to_json(c.query)::text
		|| ',"retrieved_slugs":' || to_json(c.retrieved_slugs)::text
		|| ',"retrieved_chunk_ids":' || to_json(c.retrieved_chunk_ids)::text
		|| ',"source_ids":' || to_json(c.source_ids)::text
		|| ',"expand_enabled":' || coalesce(to_json(c.expand_enabled)::text, 'null')
		|| ',"detail":' || coalesce(to_json(c.detail)::text, 'null')
		|| ',"detail_resolved":' || coalesce(to_json(c.detail_resolved)::text, 'null')
		|| ',"vector_enabled":' || to_json(c.vector_enabled)::text
		|| ',"expansion_applied":' || to_json(c.expansion_applied)::text
		|| ',"latency_ms":' || trim_scale(c.latency_ms)::text
		|| ',"remote":' || to_json(c.remote)::text
		|| ',"job_id":' || coalesce(c.job_id::text, 'null')
		|| ',"subagent_id":' || coalesce(c.subagent_id::text, 'null')
		|| ',"created_at":"' || to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"'
		|| '}')::json
$fn$;

CREATE OR REPLACE VIEW brain.eval_export AS
	SELECT c.id, c.tool_name, c.created_at, brain.eval_row_json(c) AS row_json
	FROM brain.eval_candidates c
	ORDER BY c.created_at DESC, c.id DESC;
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
LANGUAGE plpgsql VOLATILE AS $fn$
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
-- brain.eval_prune(older_than, dry_run): deletes (or, with dry_run, only
-- counts) the captured candidates created more than older_than ago and
-- returns how many. An interval of zero removes every candidate, including
-- rows stamped a moment after this statement began.
CREATE OR REPLACE FUNCTION brain.eval_prune(older_than interval, dry_run boolean DEFAULT false) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE n bigint;
BEGIN
	IF older_than < interval '0' THEN
		RAISE EXCEPTION 'eval_prune: older_than must not be negative (got %)', older_than
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF dry_run THEN
		SELECT count(*) INTO n FROM brain.eval_candidates
		 WHERE older_than = interval '0' OR created_at < now() - older_than;
	ELSE
		DELETE FROM brain.eval_candidates
		 WHERE older_than = interval '0' OR created_at < now() - older_than;
		GET DIAGNOSTICS n = ROW_COUNT;
	END IF;
	RETURN n;
END
$fn$;

UPDATE brain.config SET value = '3' WHERE key = 'schema_version';
