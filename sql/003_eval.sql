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

{{ template "triggers/eval_candidates_created_at.sql" . }}
{{ template "functions/eval_export.sql" . }}
{{ template "functions/eval_window_end.sql" . }}
{{ template "functions/eval_prune.sql" . }}

UPDATE brain.config SET value = '3' WHERE key = 'schema_version';
