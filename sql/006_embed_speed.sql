-- 006_embed_speed: a cheaper local embedder and BM25 document length.
--
-- Guarantees: brain.embed_tsvector() computes the same features as before
-- (same buckets, signs and weights) in float8 instead of numeric, and
-- brain.tsv_length() counts the same tokens with one expression. Every
-- stored local-embedder vector that the new arithmetic rounds differently is
-- recomputed (brain.embed_local_refresh()), so stored chunk vectors and query
-- vectors stay in one space; rows that agree, which on the sample corpus is
-- every row, are not rewritten.

{{ template "functions/embed_local.sql" . }}
{{ template "functions/bm25_stats.sql" . }}
{{ template "functions/embed_stale.sql" . }}

SELECT brain.embed_local_refresh();

UPDATE brain.config SET value = '6' WHERE key = 'schema_version';
