-- 006_cheaper_embedding_and_search: a cheaper local embedder, computed with the BM25 document
-- length in one pass; searches that need no snippets.
--
-- Guarantees: brain.embed_tsvector() computes the same features as before
-- (same buckets, signs and weights) in float8 instead of numeric;
-- chunks.doc_len is no longer a generated column but is set by the
-- chunks_20_features trigger, with the same value, from the same pass over
-- the lexemes as the local embedding (brain.tsv_features); that trigger
-- replaces chunks_20_embed_local and also recomputes (or, when deferred,
-- clears) an embedding whose chunk text changed. Every stored local-embedder
-- vector that the new arithmetic rounds differently is recomputed
-- (brain.embed_local_refresh()), so stored chunk vectors and query vectors
-- stay in one space; rows that agree, which on the sample corpus is every
-- row, are not rewritten. brain.hybrid_search() gains a last parameter,
-- snippets (default true); callers that leave it out are unaffected.

{{ template "functions/embed_local.sql" . }}
{{ template "functions/bm25_stats.sql" . }}
{{ template "functions/embed_stale.sql" . }}

ALTER TABLE brain.chunks ALTER COLUMN doc_len DROP EXPRESSION;
DROP TRIGGER IF EXISTS chunks_20_embed_local ON brain.chunks;
DROP FUNCTION IF EXISTS brain.chunks_embed_local();
{{ template "triggers/chunks_features.sql" . }}

SELECT brain.embed_local_refresh();

DROP FUNCTION IF EXISTS brain.hybrid_search(text, vector, int, text, text[], int, float8, float8, float8, float8);
{{ template "functions/hybrid_search.sql" . }}

UPDATE brain.config SET value = '6' WHERE key = 'schema_version';
