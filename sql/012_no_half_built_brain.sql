-- 012_no_half_built_brain: background work that cannot leave the brain
-- half-built.
--
-- Guarantees:
-- * brain.vector_index_state records, while it lasts, that the HNSW index on
--   brain.chunks.embedding is suspended for a bulk import or being rebuilt.
--   A row left behind by a crashed command is how the next command, and
--   `pgbrain doctor --fix`, know to rebuild the index.
-- * brain.embed_runs records each `pgbrain embed --all`: which pages it
--   covers (id <= last_page_id) and how far it got (done_page_id). Vectors
--   are swapped page batch by page batch, each in one transaction together
--   with done_page_id, so a run stopped at any point resumes where it
--   stopped and the brain keeps a vector for every chunk that had one. At
--   most one run is open (finished_at IS NULL) at a time.
-- (The functions that use these tables, brain.vector_index_status() and
-- the index check of brain.vector_search(), and eval_window_end's time
-- limit, are in the repeatable tier.)

CREATE TABLE brain.vector_index_state (
	index_name text PRIMARY KEY CHECK (index_name = 'chunks_embedding_hnsw'),
	state      text NOT NULL CHECK (state IN ('suspended', 'rebuilding')),
	reason     text NOT NULL CHECK (length(reason) <= 1000),
	since      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE brain.embed_runs (
	id           bigserial PRIMARY KEY,
	embedder     text NOT NULL,
	model        text NOT NULL,
	started_at   timestamptz NOT NULL DEFAULT now(),
	last_page_id bigint NOT NULL CHECK (last_page_id >= 0),
	done_page_id bigint NOT NULL DEFAULT 0 CHECK (done_page_id >= 0),
	chunks_done  bigint NOT NULL DEFAULT 0 CHECK (chunks_done >= 0),
	finished_at  timestamptz,
	CHECK (finished_at IS NULL OR finished_at >= started_at)
);
CREATE UNIQUE INDEX embed_runs_one_open ON brain.embed_runs ((true)) WHERE finished_at IS NULL;

UPDATE brain.config SET value = '12' WHERE key = 'schema_version';
