-- 002_retrieval: search in SQL (keyword BM25, vector, hybrid fusion).
--
-- Guarantees: every chunk carries its BM25 document length (doc_len, a
-- generated column, so no writer can store a wrong one); brain.term_stats and
-- brain.corpus_stats hold the document frequencies and corpus size BM25
-- needs, computed here for existing chunks and kept current by statement
-- triggers; the retrieval functions described in DESIGN.md section 3 are
-- installed. Tuning knobs live in brain.config as search.<name>.

{{ template "functions/bm25_stats.sql" . }}

ALTER TABLE brain.chunks
	ADD COLUMN doc_len int NOT NULL GENERATED ALWAYS AS (brain.tsv_length(tsv)) STORED;

CREATE TABLE brain.term_stats (
	lexeme   text PRIMARY KEY,
	doc_freq bigint NOT NULL
);

CREATE TABLE brain.corpus_stats (
	singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
	n_docs    bigint NOT NULL DEFAULT 0 CHECK (n_docs >= 0),
	total_len bigint NOT NULL DEFAULT 0 CHECK (total_len >= 0)
);
INSERT INTO brain.corpus_stats DEFAULT VALUES;

SELECT brain.term_stats_rebuild();

{{ template "triggers/chunks_term_stats.sql" . }}
{{ template "functions/search_settings.sql" . }}
{{ template "functions/detect_detail.sql" . }}
{{ template "functions/keyword_candidates.sql" . }}
{{ template "functions/keyword_search.sql" . }}
{{ template "functions/vector_search.sql" . }}
{{ template "functions/hybrid_search.sql" . }}
{{ template "functions/query.sql" . }}

UPDATE brain.config SET value = '2' WHERE key = 'schema_version';
