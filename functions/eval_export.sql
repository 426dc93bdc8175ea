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
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
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
		|| '}')::json;
END;

CREATE OR REPLACE VIEW brain.eval_export AS
	SELECT c.id, c.tool_name, c.created_at, brain.eval_row_json(c) AS row_json
	FROM brain.eval_candidates c
	ORDER BY c.created_at DESC, c.id DESC;
