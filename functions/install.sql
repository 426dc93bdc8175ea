-- The repeatable tier: every function and view here holds logic, not a rule
-- on stored data, so it is re-applied (CREATE OR REPLACE, in this order) by
-- each `pgbrain migrate` whose copy differs from the one recorded in
-- brain.config ('functions_checksum'), after the numbered migrations in sql/.
-- It is also a tern code package: `tern code install functions -c tern.conf`.
--
-- The other files of this folder define stored data (tsvectors, vectors,
-- chain hashes, CHECK helpers): the migrations install them, and changing one
-- takes a new migration (see docs/migrations.md). A file here that changes a
-- function's signature or a view's columns drops the old one first.
{{ template "embed_stale.sql" . }}
{{ template "missing_embeddings.sql" . }}
{{ template "import_staged.sql" . }}
{{ template "settle_text_indexes.sql" . }}
{{ template "vector_index.sql" . }}
{{ template "search_settings.sql" . }}
{{ template "detect_detail.sql" . }}
{{ template "parse_query.sql" . }}
{{ template "negation.sql" . }}
{{ template "keyword_candidates.sql" . }}
{{ template "title_key.sql" . }}
{{ template "title_exact_chunks.sql" . }}
{{ template "title_names.sql" . }}
{{ template "caller_scope.sql" . }}
{{ template "keyword_search.sql" . }}
{{ template "vector_index_status.sql" . }}
{{ template "vector_search.sql" . }}
{{ template "search.sql" . }}
{{ template "hybrid_search.sql" . }}
{{ template "query.sql" . }}
{{ template "search_expanded.sql" . }}
{{ template "eval_export.sql" . }}
{{ template "eval_window_end.sql" . }}
{{ template "eval_prune.sql" . }}
{{ template "audit_verify.sql" . }}
{{ template "page_pii_record.sql" . }}
{{ template "page_pii_override.sql" . }}
{{ template "page_pii_clear.sql" . }}
{{ template "pages_pii_categories.sql" . }}
{{ template "contradiction_pairs.sql" . }}
{{ template "contradiction_trend.sql" . }}
{{ template "contradiction_dismiss.sql" . }}
{{ template "page_access.sql" . }}
