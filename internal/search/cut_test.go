package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestCandidateCutMatchesExhaustiveBM25 builds a brain where rare and common
// query terms compete: 3,000 chunks drawn from 40 common words (each in
// well over the 400-posting budget), a few chunks with rare words in long
// filler, and chunks holding every common query word but none of the rare
// ones. The keyword arm's bounded cut must return exactly the top 10 of
// BM25 over every chunk holding any query term.
func TestCandidateCutMatchesExhaustiveBM25(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
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

// TestCandidateScanStaysNarrowOnCommonWords covers the bounded path: with a
// budget of 10 (so a "wide" scan is anything that may match more than 50
// chunks), the common words of the fixture are each in far more chunks.
// A query pairing a rare word with a common one must still return the
// exhaustive top 10 (the rare word's 8 chunks first) without ranking the common
// word's postings, a query of common words only must still put a chunk
// holding all of them several times first, and a single common word must still answer.
func TestCandidateScanStaysNarrowOnCommonWords(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	c := ctx(t)
	if _, err := b.Pool.Exec(c, `
		SELECT setseed(0.29);
		INSERT INTO brain.config VALUES ('search.keyword_candidates', '12');
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'gen/p' || i, 'Page ' || i, 'x', repeat('0', 64) FROM generate_series(1, 1500) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth',
		       (SELECT string_agg('common' || (random() * 9)::int, ' ') FROM generate_series(1, 8 + (p.id % 5)) g)
		FROM p;
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'rare/r' || i, 'Rare ' || i, 'x', repeat('1', 64) FROM generate_series(1, 8) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth', 'quetzal zebra ' || repeat('common' || (p.id % 3) || ' ', (1 + p.id % 4)::int)
		FROM p;
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'dense/d' || i, 'Dense ' || i, 'x', repeat('2', 64) FROM generate_series(1, 4) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth', repeat('common1 common2 common3 ', (2 + p.id % 3)::int)
		FROM p;
		ANALYZE brain.chunks;`); err != nil {
		t.Fatalf("generating chunks: %v", err)
	}
	var commonDF float64
	if err := b.Pool.QueryRow(c, `SELECT min(doc_freq) FROM brain.term_stats WHERE lexeme IN ('common1', 'common2', 'common3')`).Scan(&commonDF); err != nil {
		t.Fatal(err)
	}
	if commonDF <= 250 {
		t.Fatalf("fixture too small: common words are in %v chunks; they must be far past 5 x the budget of 10", commonDF)
	}
	for _, tc := range []struct {
		q     string
		exact int // leading results that must equal exhaustive BM25's
	}{
		{"quetzal common1", 8},
		{"quetzal common2 common3", 8},
	} {
		cut := chunkIDs(t, b.Pool, `SELECT chunk_id FROM brain.keyword_search($1, 10) ORDER BY keyword_rank`, tc.q)
		all := chunkIDs(t, b.Pool, `SELECT chunk_id FROM brain.keyword_scan($1, 10, exhaustive => true) WHERE chunk_id IS NOT NULL ORDER BY keyword_rank`, tc.q)
		if len(cut) < tc.exact || len(all) < tc.exact {
			t.Fatalf("%q: the cut found %d chunks and exhaustive BM25 %d, want at least %d each", tc.q, len(cut), len(all), tc.exact)
		}
		if !slices.Equal(cut[:tc.exact], all[:tc.exact]) {
			t.Errorf("%q: the cut's top %d %v differ from exhaustive BM25's %v", tc.q, tc.exact, cut[:tc.exact], all[:tc.exact])
		}
	}
	// The rare word's chunks are found without scoring the common word's
	// hundreds of postings: when they fill the answer (limit 5), nothing
	// else is scored; when they do not (limit 10), at most limit unranked
	// chunks holding the common word are added, and the answer is full.
	var scored int
	if err := b.Pool.QueryRow(c, `SELECT (meta ->> 'candidates')::int FROM brain.keyword_scan('quetzal common1', 5) WHERE chunk_id IS NULL`).Scan(&scored); err != nil {
		t.Fatal(err)
	}
	if scored > 8 {
		t.Errorf("quetzal common1, limit 5: %d chunks scored, want at most the 8 holding quetzal", scored)
	}
	if err := b.Pool.QueryRow(c, `SELECT (meta ->> 'candidates')::int FROM brain.keyword_scan('quetzal common1', 10) WHERE chunk_id IS NULL`).Scan(&scored); err != nil {
		t.Fatal(err)
	}
	if scored > 8+10 {
		t.Errorf("quetzal common1, limit 10: %d chunks scored, want at most the 8 holding quetzal and 10 more", scored)
	}
	if got := chunkIDs(t, b.Pool, `SELECT chunk_id FROM brain.keyword_search($1, 10)`, "quetzal common1"); len(got) != 10 {
		t.Errorf("quetzal common1: %d results, want 10", len(got))
	}
	// Common words only: the candidates are the chunks holding all of them,
	// so one that holds each several times leads.
	top := chunkIDs(t, b.Pool, `SELECT k.chunk_id FROM brain.keyword_search($1, 1) k JOIN brain.pages p ON p.id = k.page_id WHERE p.slug LIKE 'dense/%'`, "common1 common2 common3")
	if len(top) != 1 {
		t.Errorf("common1 common2 common3: the first result is not a chunk holding every word several times")
	}
	// A negation that excludes every chunk holding the rare word leaves the
	// narrow scans empty; the answer must still hold the common word.
	if got := chunkIDs(t, b.Pool, `SELECT chunk_id FROM brain.keyword_search($1, 10)`, "quetzal common1 -zebra"); len(got) == 0 {
		t.Errorf("quetzal common1 -zebra: empty answer, want chunks holding common1 without zebra")
	}
	if got := chunkIDs(t, b.Pool, `SELECT chunk_id FROM brain.keyword_search($1, 10)`, "common7"); len(got) != 10 {
		t.Errorf("common7: %d results, want 10", len(got))
	}
}

// TestCandidatesHoldThreeOfFiveWords: a known item's page often holds three
// of the query's five words, none of them the rarest. With a budget of 40
// the first round takes only the two rarest words (10 chunks each), and the
// page holds neither, nor four of the five words; the all-but-two scan for
// five groups, bounded here, brings it in, and it ranks first.
func TestCandidatesHoldThreeOfFiveWords(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	pages := []page{{slug: "pkg/target", title: "target", chunks: []chunk{{ct, "cormorant dunlin egret in one place", v}}}}
	add := func(prefix, text string, n int) {
		for i := range n {
			pages = append(pages, page{slug: fmt.Sprintf("pkg/%s%d", prefix, i), title: fmt.Sprintf("%s %d", prefix, i),
				chunks: []chunk{{ct, text, v}}})
		}
	}
	add("a", "avocet and unrelated words", 10)
	add("b", "bittern and other words", 10)
	add("c", "cormorant alone here", 25)
	add("d", "dunlin alone here", 25)
	add("e", "egret alone here", 25)
	add("f", "filler text about gardens", 200)
	seed(t, db, pages)
	setSetting(t, db, "keyword_candidates", "40")
	q := "avocet bittern cormorant dunlin egret"
	if got := keywordSlugs(t, db, q, 10); len(got) == 0 || got[0] != "pkg/target" {
		t.Errorf("%q: %v, want pkg/target first", q, got)
	}
}

// A known item described by mid-frequency words holds none of the query's
// rarest words: the first round (the rarest terms within the budget) never
// scores it. keyword_rounds adds the best chunks of the next rarest terms
// and finds it first; with the rounds off (the default) it is missed.
func TestKeywordRoundsFindAPageWithoutTheRarestWord(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	c := ctx(t)
	// Budget 12 keeps the fixture small: "alpha" is in 12 chunks (the first
	// round, enough to fill an answer), six other words in 14 to 48 (5 x
	// the budget is 60), and the
	// page sought holds three of them in a short text: three of seven
	// words, which no scan for all groups but one or two matches.
	if _, err := b.Pool.Exec(c, `
		INSERT INTO brain.config VALUES ('search.keyword_candidates', '12');
		WITH words (w, n) AS (VALUES ('alpha', 12), ('beta', 14), ('gamma', 25), ('delta', 40),
			('epsilon', 44), ('eta', 46), ('theta', 48), ('filler', 120)),
		p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'gen/' || w || '-' || i, 'Page ' || i || ' of ' || n, 'x', repeat('0', 64)
			FROM words, generate_series(1, n) i
			RETURNING id, slug)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth',
		       split_part(substr(p.slug, 5), '-', 1) || ' ' || repeat('filler lorem ipsum ', 20)
		FROM p;
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			VALUES ('sought', 'The one', 'x', repeat('1', 64)) RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth', 'beta gamma delta' FROM p;
		ANALYZE brain.chunks;`); err != nil {
		t.Fatalf("generating chunks: %v", err)
	}
	const q = "alpha beta gamma delta epsilon eta theta"
	first := func() string {
		t.Helper()
		var slug string
		if err := b.Pool.QueryRow(c, `SELECT slug FROM brain.search($1, embed => false) WHERE slug IS NOT NULL LIMIT 1`, q).Scan(&slug); err != nil {
			t.Fatalf("search: %v", err)
		}
		return slug
	}
	var all string
	if err := b.Pool.QueryRow(c, `SELECT p.slug FROM brain.keyword_scan($1, 10, exhaustive => true) s JOIN brain.pages p ON p.id = s.page_id
		WHERE s.chunk_id IS NOT NULL ORDER BY s.keyword_rank LIMIT 1`, q).Scan(&all); err != nil {
		t.Fatal(err)
	}
	if all != "sought" {
		t.Fatalf("exhaustive BM25 puts %s first; the fixture should put sought first", all)
	}
	if got := first(); got == "sought" {
		t.Fatalf("with keyword_rounds 0 the cut found sought first; the fixture should need the rounds")
	}
	setSetting(t, b.Pool, "keyword_rounds", "1")
	if got := first(); got != "sought" {
		t.Errorf("with keyword_rounds 1: first %s, want sought (as exhaustive BM25)", got)
	}
}

// A query word no chunk holds (df 0) is the rarest term, and the first
// round takes the rarest terms within the budget: it used to stop there
// when the next term was over the budget, score nothing and answer with
// nothing, though chunks hold the other word ("setproctitle for Go" on
// the Debian check). Such terms do not count as the round's one term,
// with one live word or several.
func TestUnknownWordDoesNotEmptyTheAnswer(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	c := ctx(t)
	if _, err := b.Pool.Exec(c, `
		INSERT INTO brain.config VALUES ('search.keyword_candidates', '10');
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'gen/p' || i, 'Page ' || i, 'x', repeat('0', 64) FROM generate_series(1, 40) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth',
		       'golang ' || CASE WHEN p.id % 2 = 0 THEN 'runtime ' ELSE '' END || repeat('filler ', 1 + (p.id % 5)::int)
		FROM p;
		ANALYZE brain.chunks;`); err != nil {
		t.Fatalf("generating chunks: %v", err)
	}
	for _, q := range []string{"qwxzyunknown golang", "qwxzyunknown for golang runtime", "qwxzyunknown zzvvnothing golang"} {
		var n int
		if err := b.Pool.QueryRow(c, `SELECT count(*) FROM brain.keyword_search($1, 10)`, q).Scan(&n); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if n != 10 {
			t.Errorf("%q: %d rows, want 10 (40 chunks hold golang)", q, n)
		}
	}
	// Both live words past 5 x the budget: the rarest live term decides
	// that the strict AND finds the candidates (bounded: at most the
	// budget), whatever the unknown word's frequency of 0; counted from the
	// unknown word, the common one's posting list was cut by ts_rank and
	// the strict AND's chunks scored on top of it.
	if _, err := b.Pool.Exec(c, `
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'wide/p' || i, 'Wide ' || i, 'x', repeat('1', 64) FROM generate_series(1, 120) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth',
		       CASE WHEN p.id % 2 = 0 THEN 'alphawide ' ELSE 'betawide ' END || CASE WHEN p.id % 10 = 0 THEN 'alphawide betawide ' ELSE '' END ||
		       repeat('filler ', 1 + (p.id % 7)::int)
		FROM p;
		ANALYZE brain.chunks;`); err != nil {
		t.Fatalf("generating chunks: %v", err)
	}
	var candidates, rows int
	if err := b.Pool.QueryRow(c, `SELECT (meta ->> 'candidates')::int, (SELECT count(*) FROM brain.keyword_scan($1, 10) k WHERE k.chunk_id IS NOT NULL)
		FROM brain.keyword_scan($1, 10) WHERE chunk_id IS NULL`, "qwxzyunknown alphawide betawide").Scan(&candidates, &rows); err != nil {
		t.Fatal(err)
	}
	if candidates > 10 || rows != 10 {
		t.Errorf("unknown word and two words past 5 x the budget: %d candidates, %d rows; want at most the budget of 10 and a full answer", candidates, rows)
	}
}

// brain.near_strict(groups, drop) matches exactly the chunks that hold at
// least all groups but drop of them, whichever groups are left out and
// however each group is written (one word, a hyphenated word's OR of its
// forms): checked against counting each chunk's groups one by one, over
// every subset of six words in sixty-four chunks, for drop 0 to 2 (and 3,
// which it clamps to 2).
func TestNearStrictMatchesAllGroupsButDrop(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	c := ctx(t)
	// Chunk i holds word k when bit k of i is set: every combination once.
	if _, err := b.Pool.Exec(c, `
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'bits/b' || i, 'Bits ' || i, 'x', repeat('0', 64) FROM generate_series(0, 63) i
			RETURNING id, substr(slug, 7)::int AS i)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT p.id, 0, 'compiled_truth', 'filler ' || coalesce((
			SELECT string_agg(w, ' ') FROM unnest(ARRAY['alpha', 'bravo', 'charlie', 'delta', 'echo-foxtrot', 'golf']) WITH ORDINALITY AS u (w, k)
			WHERE p.i & (1 << (u.k - 1)::int) <> 0), '')
		FROM p;`); err != nil {
		t.Fatalf("generating chunks: %v", err)
	}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo-foxtrot", "golf"}
	tests := []struct {
		name  string
		order []int // indexes into groups
	}{
		{"six groups", []int{0, 1, 2, 3, 4, 5}},
		{"six groups, another order", []int{5, 4, 3, 2, 1, 0}},
		{"five groups", []int{0, 2, 4, 1, 3}},
		{"three groups", []int{4, 0, 5}},
		{"two groups", []int{1, 4}},
		{"one group", []int{3}},
	}
	for _, tt := range tests {
		var q []string
		for _, o := range tt.order {
			q = append(q, words[o])
		}
		// The groups as the keyword arm gets them, in the query's order.
		var gs []string
		if err := b.Pool.QueryRow(c, `SELECT (brain.parse_query($1)).groups::text[]`, strings.Join(q, " ")).Scan(&gs); err != nil {
			t.Fatal(err)
		}
		if len(gs) != len(q) {
			t.Fatalf("%s: parse_query made %d groups of %q, want %d", tt.name, len(gs), q, len(q))
		}
		for drop := 0; drop <= 3; drop++ {
			var got, want []string
			if err := b.Pool.QueryRow(c, `
				WITH g AS (SELECT array_agg(x::tsquery ORDER BY o) AS g FROM unnest($1::text[]) WITH ORDINALITY AS u (x, o))
				SELECT coalesce(array_agg(p.slug ORDER BY p.slug) FILTER (WHERE c.tsv @@ brain.near_strict(g.g, $2)), '{}'),
				       coalesce(array_agg(p.slug ORDER BY p.slug) FILTER (WHERE
				           (SELECT count(*) FROM unnest(g.g) x WHERE c.tsv @@ x) >= cardinality(g.g) - least($2, 2, cardinality(g.g) - 1)), '{}')
				FROM g, brain.chunks c JOIN brain.pages p ON p.id = c.page_id`, gs, drop).Scan(&got, &want); err != nil {
				t.Fatalf("%s, drop %d: %v", tt.name, drop, err)
			}
			if len(want) == 0 {
				t.Fatalf("%s, drop %d: no chunk holds the groups: the fixture is wrong", tt.name, drop)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, drop %d: near_strict matched %d chunks %v, want the %d holding all groups but %d: %v", tt.name, drop, len(got), got, len(want), drop, want)
			}
		}
	}
}
