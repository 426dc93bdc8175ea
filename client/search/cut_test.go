package search

import (
	"slices"
	"testing"

	"github.com/pgbrain/pgbrain/testdb"
)

// TestCandidateCutMatchesExhaustiveBM25 builds a brain where rare and common
// query terms compete: 3,000 chunks drawn from 40 common words (each in
// well over the 400-posting budget), a few chunks with rare words in long
// filler, and chunks holding every common query word but none of the rare
// ones. The keyword arm's bounded cut must return exactly the top 10 of
// BM25 over every chunk holding any query term.
func TestCandidateCutMatchesExhaustiveBM25(t *testing.T) {
	b := testdb.Open(t, testdb.Options{Dim: 8})
	c := ctx(t)
	if _, err := b.Pool.Exec(c, `
		SELECT setseed(0.17);
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'gen/p' || i, 'Page ' || i, 'x', repeat('0', 64) FROM generate_series(1, 3000) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth',
		       (SELECT string_agg('common' || (random() * 39)::int, ' ') FROM generate_series(1, 12 + (p.id % 7)) g)
		FROM p;
		-- rare words, once each, in long chunks of common filler
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'rare/r' || i, 'Rare ' || i, 'x', repeat('1', 64) FROM generate_series(1, 30) i
			RETURNING id, slug)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth',
		       'zanzibar' || (substr(p.slug, 7)::int % 3) || ' ' ||
		       (SELECT string_agg('common' || (random() * 39)::int, ' ') FROM generate_series(1, 60 + (p.id % 5)) g)
		FROM p;
		-- every common query word, several times, no rare word
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'dense/d' || i, 'Dense ' || i, 'x', repeat('2', 64) FROM generate_series(1, 5) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth', repeat('common1 common2 common3 common4 ', (2 + p.id % 3)::int)
		FROM p;
		ANALYZE brain.chunks;`); err != nil {
		t.Fatalf("generating chunks: %v", err)
	}
	var budget float64
	if err := b.Pool.QueryRow(c, `SELECT brain.search_setting('keyword_candidates')`).Scan(&budget); err != nil {
		t.Fatal(err)
	}
	var commonDF float64
	if err := b.Pool.QueryRow(c, `SELECT min(doc_freq) FROM brain.term_stats WHERE lexeme IN ('common1', 'common2', 'common3', 'common4')`).Scan(&commonDF); err != nil {
		t.Fatal(err)
	}
	if commonDF <= budget {
		t.Fatalf("fixture too small: common words are in %v chunks, the budget is %v; they must exceed it", commonDF, budget)
	}
	queries := []string{
		"zanzibar0 common1 common2 common3 common4",
		"zanzibar1 zanzibar2 common1 common2",
		"common1 common2 common3 common4",
		"zanzibar0 common5",
		"common7 common8 common9 zanzibar2 nonexistentword",
	}
	for _, q := range queries {
		cut := chunkIDs(t, b.Pool, `SELECT chunk_id FROM brain.keyword_search($1, 10) ORDER BY keyword_rank`, q)
		all := chunkIDs(t, b.Pool, `SELECT chunk_id FROM brain.keyword_scan($1, 10, exhaustive => true) WHERE chunk_id IS NOT NULL ORDER BY keyword_rank`, q)
		if len(all) != 10 {
			t.Fatalf("%q: exhaustive BM25 found %d chunks, the fixture should give 10", q, len(all))
		}
		if !slices.Equal(cut, all) {
			t.Errorf("%q: the cut's top 10 %v differ from exhaustive BM25's %v", q, cut, all)
		}
	}
	// The dense chunks hold no rare word: only the near-strict candidates
	// bring them in, and they must rank in the mixed query's top 10 (below
	// the long chunks holding every term, the rare one too, which the
	// coverage factor puts first), and lead the query of common words.
	top := chunkIDs(t, b.Pool, `SELECT k.chunk_id FROM brain.keyword_search($1, 10) k JOIN brain.pages p ON p.id = k.page_id WHERE p.slug LIKE 'dense/%'`, queries[0])
	if len(top) == 0 {
		t.Errorf("%q: no dense chunk in the top 10", queries[0])
	}
	top = chunkIDs(t, b.Pool, `SELECT k.chunk_id FROM brain.keyword_search($1, 3) k JOIN brain.pages p ON p.id = k.page_id WHERE p.slug LIKE 'dense/%'`, queries[2])
	if len(top) != 3 {
		t.Errorf("%q: %d dense chunks in the top 3, want 3", queries[2], len(top))
	}
}

func chunkIDs(t *testing.T, db Querier, sql, q string) []int64 {
	t.Helper()
	rows, err := db.Query(ctx(t), sql, q)
	if err != nil {
		t.Fatalf("%s (%q): %v", sql, q, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s (%q): %v", sql, q, err)
	}
	return out
}
