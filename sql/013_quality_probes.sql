-- 013_quality_probes: what the model-judged quality probes remember.
--
-- Guarantees:
-- * brain.eval_contradictions_cache holds one model judgement per (prompt
--   version, pair of chunk texts). A pair is named by the sha256 (hex) of
--   each chunk's text, the smaller hash first, so the same two texts are
--   one entry whichever page or order they came from, and a re-run of the
--   probe asks the model nothing it already answered until the prompt
--   version changes.
-- * brain.eval_contradictions_dismissed holds the pairs a person marked as
--   not a contradiction (same naming, any prompt version): the probe never
--   flags or asks about them again.
-- * brain.eval_contradiction_runs is one row per probe run (its counts and
--   cost); brain.eval_contradiction_findings the pairs it flagged, with the
--   pages, severity and the evidence quoted by the model. Deleting a run
--   deletes its findings.
-- * brain.eval_nightly_runs is one row per nightly quality probe run: its
--   outcome, counts, estimated cost and the fixture's sha256, for DBAs and
--   `pgbrain doctor`.

CREATE TABLE brain.eval_contradictions_cache (
	prompt_version text NOT NULL CHECK (length(prompt_version) BETWEEN 1 AND 100),
	hash_a      text NOT NULL CHECK (hash_a ~ '^[0-9a-f]{64}$'),
	hash_b      text NOT NULL CHECK (hash_b ~ '^[0-9a-f]{64}$'),
	contradiction boolean NOT NULL,
	severity    text CHECK (severity IN ('low', 'medium', 'high')),
	explanation text NOT NULL DEFAULT '' CHECK (length(explanation) <= 4000),
	evidence_a  text NOT NULL DEFAULT '' CHECK (length(evidence_a) <= 4000),
	evidence_b  text NOT NULL DEFAULT '' CHECK (length(evidence_b) <= 4000),
	model       text NOT NULL,
	judged_at   timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (prompt_version, hash_a, hash_b),
	CHECK (hash_a <= hash_b),
	CHECK ((severity IS NOT NULL) = contradiction)
);

CREATE TABLE brain.eval_contradictions_dismissed (
	hash_a       text NOT NULL CHECK (hash_a ~ '^[0-9a-f]{64}$'),
	hash_b       text NOT NULL CHECK (hash_b ~ '^[0-9a-f]{64}$'),
	dismissed_at timestamptz NOT NULL DEFAULT now(),
	note         text NOT NULL DEFAULT '' CHECK (length(note) <= 1000),
	PRIMARY KEY (hash_a, hash_b),
	CHECK (hash_a <= hash_b)
);

CREATE TABLE brain.eval_contradiction_runs (
	id              bigserial PRIMARY KEY,
	started_at      timestamptz NOT NULL DEFAULT now(),
	prompt_version  text NOT NULL,
	model           text NOT NULL,
	top_k           int NOT NULL CHECK (top_k > 0),
	queries         int NOT NULL CHECK (queries >= 0),
	queries_flagged int NOT NULL CHECK (queries_flagged BETWEEN 0 AND queries),
	pairs           int NOT NULL CHECK (pairs >= 0),
	pairs_flagged   int NOT NULL CHECK (pairs_flagged BETWEEN 0 AND pairs),
	cache_hits      int NOT NULL CHECK (cache_hits >= 0),
	model_calls     int NOT NULL CHECK (model_calls >= 0),
	prompt_tokens   bigint NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
	completion_tokens bigint NOT NULL DEFAULT 0 CHECK (completion_tokens >= 0),
	est_cost_usd    numeric(12, 6) NOT NULL DEFAULT 0 CHECK (est_cost_usd >= 0)
);
CREATE INDEX eval_contradiction_runs_started ON brain.eval_contradiction_runs (started_at);

CREATE TABLE brain.eval_contradiction_findings (
	run_id      bigint NOT NULL REFERENCES brain.eval_contradiction_runs (id) ON DELETE CASCADE,
	query       text NOT NULL CHECK (length(query) <= 51200),
	kind        text NOT NULL CHECK (kind IN ('truth_vs_timeline', 'cross_page')),
	severity    text NOT NULL CHECK (severity IN ('low', 'medium', 'high')),
	source_a    text NOT NULL,
	slug_a      text NOT NULL,
	chunk_id_a  bigint NOT NULL,
	hash_a      text NOT NULL CHECK (hash_a ~ '^[0-9a-f]{64}$'),
	source_b    text NOT NULL,
	slug_b      text NOT NULL,
	chunk_id_b  bigint NOT NULL,
	hash_b      text NOT NULL CHECK (hash_b ~ '^[0-9a-f]{64}$'),
	explanation text NOT NULL DEFAULT '',
	evidence_a  text NOT NULL DEFAULT '',
	evidence_b  text NOT NULL DEFAULT '',
	CHECK (hash_a <= hash_b)
);
CREATE INDEX eval_contradiction_findings_run ON brain.eval_contradiction_findings (run_id);

CREATE TABLE brain.eval_nightly_runs (
	id             bigserial PRIMARY KEY,
	started_at     timestamptz NOT NULL,
	finished_at    timestamptz NOT NULL,
	outcome        text NOT NULL CHECK (outcome IN ('pass', 'fail', 'inconclusive', 'error',
		'budget_exceeded', 'rate_limited', 'no_model')),
	questions      int NOT NULL DEFAULT 0 CHECK (questions >= 0),
	pass_count     int NOT NULL DEFAULT 0 CHECK (pass_count >= 0),
	fail_count     int NOT NULL DEFAULT 0 CHECK (fail_count >= 0),
	inconclusive_count int NOT NULL DEFAULT 0 CHECK (inconclusive_count >= 0),
	error_count    int NOT NULL DEFAULT 0 CHECK (error_count >= 0),
	est_cost_usd   numeric(12, 6) NOT NULL DEFAULT 0 CHECK (est_cost_usd >= 0),
	max_usd        numeric(12, 6) CHECK (max_usd >= 0),
	fixture_sha256 text NOT NULL CHECK (fixture_sha256 ~ '^[0-9a-f]{64}$'),
	reason         text NOT NULL DEFAULT '' CHECK (length(reason) <= 4000),
	CHECK (finished_at >= started_at)
);
CREATE INDEX eval_nightly_runs_started ON brain.eval_nightly_runs (started_at);

UPDATE brain.config SET value = '13' WHERE key = 'schema_version';
