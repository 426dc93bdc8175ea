-- brain.tsv_features(doc), brain.embed_tsvector(doc) and
-- brain.embed_local(text): the offline, deterministic "local" embedder,
-- computable in plain SQL.
--
-- Guarantees: the same text always yields the same vector({{.dim}}); the
-- vector is L2-normalised (so cosine distance is meaningful) or NULL when the
-- text has no indexable words. Features are the lexemes of
-- brain.indexed_tsvector (english stemming, accents folded, CJK bigrams, slashed words with their parts), signed-hashed into {{.dim}} buckets with
-- weight (1 + ln tf), doubled for title (weight A) lexemes. Query and chunk
-- vectors live in the same space because both go through embed_tsvector.
-- tsv_features(doc) returns that vector together with the document's BM25
-- length (brain.tsv_length) from one pass over its lexemes, which is how the
-- chunk trigger computes both; embed_tsvector is its vector, so the two can
-- never disagree.
-- Built on hashtext(), which PostgreSQL keeps stable in practice but does not
-- promise across major versions: after a major upgrade run `pgbrain embed --all`.
CREATE OR REPLACE FUNCTION brain.tsv_features(doc tsvector, OUT doc_len int, OUT embedding vector({{.dim}}))
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	-- float8 arithmetic and plain concatenation: numeric ln() and format()
	-- cost more than the rest of the function together. The sparsevec text
	-- form needs no ordering; its input sorts the indices. A document whose
	-- buckets all cancel out, or that has no lexemes, has no vector.
	SELECT coalesce(sum(n), 0)::int,
	       l2_normalize(('{' || string_agg((b + 1) || ':' || w, ',') FILTER (WHERE w <> 0)
	                     || '}/{{.dim}}')::sparsevec::vector({{.dim}}))
	FROM (
		SELECT b, sum(w) AS w, sum(n) AS n
		FROM (
			SELECT (hashtext(lexeme) & 2147483647) % {{.dim}} AS b,
			       CASE WHEN hashtext('~' || lexeme) & 1 = 0 THEN 1.0::float8 ELSE -1.0::float8 END
			       * (1.0::float8 + ln(coalesce(array_length(positions, 1), 1)::float8))
			       * CASE WHEN 'A' = ANY (weights) THEN 2.0::float8 ELSE 1.0::float8 END AS w,
			       greatest(cardinality(positions), 1) AS n
			FROM unnest(coalesce(doc, ''::tsvector))
		) f
		GROUP BY b
	) g;
END;

CREATE OR REPLACE FUNCTION brain.embed_tsvector(doc tsvector) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT (brain.tsv_features(doc)).embedding;
END;

-- embed_local reads text as pages are read (brain.indexed_tsvector).
CREATE OR REPLACE FUNCTION brain.embed_local(t text) RETURNS vector({{.dim}})
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT brain.embed_tsvector(brain.indexed_tsvector(t));
END;
