package search

import (
	"fmt"

	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

const cols = `slug, chunk_index, chunk_source, score, keyword_rank, vector_rank`

func TestFusionScoresFollowTheFormula(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	const wk, wv, k = 1.0, 0.5, 60.0
	// Fusing always (a semantic embedder's default): classic RRF.
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.config (key, value) VALUES ('search.vector_fill_only', '0')`); err != nil {
		t.Fatal(err)
	}
	rs := hybridRows(t, db, `SELECT `+cols+` FROM brain.hybrid_search('zebra', '[1,0,0,0,0,0,0,0]', 10, 'high', NULL, 1, $1, $2, $3)`, wk, wv, k)
	if len(rs) < 3 {
		t.Fatalf("got %d results, want at least 3: %+v", len(rs), rs)
	}
	// alpha's first chunk has zebra twice and is the exact vector match.
	if rs[0].Slug != "a/alpha" || rs[0].ChunkIndex != 0 || *rs[0].KR != 1 || *rs[0].VR != 1 {
		t.Fatalf("first result = %+v, want a/alpha chunk 0 ranked first in both arms", rs[0])
	}
	for i, r := range rs {
		want := 0.0
		if r.KR != nil {
			want += wk / (k + float64(*r.KR))
		}
		if r.VR != nil {
			want += wv / (k + float64(*r.VR))
		}
		if math.Abs(r.Score-want) > 1e-12 {
			t.Errorf("result %d %s: score %.15f, formula gives %.15f", i, r.Slug, r.Score, want)
		}
		if i > 0 && r.Score > rs[i-1].Score {
			t.Errorf("result %d scores above result %d", i, i-1)
		}
	}
	// Filling (the local embedder's default): the keyword matches keep
	// their own order and score, and the pages only the vector arm found
	// come after them.
	if _, err := db.Exec(ctx(t), `UPDATE brain.config SET value = '1' WHERE key = 'search.vector_fill_only'`); err != nil {
		t.Fatal(err)
	}
	rs = hybridRows(t, db, `SELECT `+cols+` FROM brain.hybrid_search('zebra', '[1,0,0,0,0,0,0,0]', 10, 'high', NULL, 1, $1, $2, $3)`, wk, wv, k)
	seenVectorOnly, filled := false, false
	for i, r := range rs {
		want := 0.0
		switch {
		case r.KR != nil:
			want = wk / (k + float64(*r.KR))
			if seenVectorOnly {
				t.Errorf("result %d %s, a keyword match, comes after a page only the vector arm found", i, r.Slug)
			}
		case r.VR != nil:
			want = wv / (k + float64(*r.VR))
			seenVectorOnly = true
		}
		if r.KR != nil && r.VR != nil {
			filled = true
		}
		if math.Abs(r.Score-want) > 1e-12 {
			t.Errorf("filling, result %d %s: score %.15f, want %.15f", i, r.Slug, r.Score, want)
		}
	}
	if !seenVectorOnly || !filled {
		t.Errorf("filling: %+v; want the vector arm to have run (a page found by both arms, and one by the vector arm alone)", rs)
	}
}

func TestTiesAreStable(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	// echo and foxtrot are identical in text: a perfect BM25 tie, broken by
	// chunk id (echo was written first). Rank fusion cannot tie two chunks
	// that hold different ranks, so the keyword arm alone is used here.
	var first []string
	for i := 0; i < 3; i++ {
		rs := hybridRows(t, db, `SELECT `+cols+` FROM brain.hybrid_search('orchid violet', NULL, 10)`)
		got := slugs(rs)
		if len(rs) != 2 || rs[0].Score != rs[1].Score {
			t.Fatalf("want two tied results, got %+v", rs)
		}
		if i == 0 {
			first = got
			if got[0] != "e/echo" {
				t.Fatalf("tie broken as %v, want e/echo (lower chunk id) first", got)
			}
		} else if !slices.Equal(got, first) {
			t.Fatalf("run %d order %v differs from %v", i, got, first)
		}
	}
}

func TestDedup(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	tests := []struct {
		name    string
		perPage int
		want    []string // slug#chunk_index in order
	}{
		// golf chunk 0 and 1 tie on BM25 (same lexemes); chunk 0 has the lower id.
		{"best chunk per page", 1, []string{"g/golf#0"}},
		// chunk 1 repeats chunk 0 (same text but for case and spacing): collapsed.
		{"near duplicates collapse", 2, []string{"g/golf#0", "g/golf#2"}},
		{"near duplicates collapse with room to spare", 3, []string{"g/golf#0", "g/golf#2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := hybridRows(t, db, `SELECT `+cols+` FROM brain.hybrid_search('saffron', NULL, 10, 'high', NULL, $1)`, tc.perPage)
			var got []string
			for _, r := range rs {
				got = append(got, fmt.Sprintf("%s#%d", r.Slug, r.ChunkIndex))
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDetailLevels(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	for _, tc := range []struct {
		detail       string
		wantTimeline bool
	}{{"low", false}, {"medium", true}, {"high", true}} {
		t.Run(tc.detail, func(t *testing.T) {
			// "history" is only in alpha's timeline chunk.
			rs := hybridRows(t, db, `SELECT `+cols+` FROM brain.hybrid_search('lantern history', '[0,1,0,0,0,0,0,0]', 10, $1, NULL, 3)`, tc.detail)
			sawTimeline := false
			for _, r := range rs {
				sawTimeline = sawTimeline || r.ChunkSource == tl
			}
			if sawTimeline != tc.wantTimeline {
				t.Fatalf("detail %s: timeline chunk returned = %v, want %v (%+v)", tc.detail, sawTimeline, tc.wantTimeline, rs)
			}
		})
	}
}

func TestSourceBoostsLongestPrefix(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	tests := []struct {
		name   string
		boosts map[string]float64
		detail string
		first  string
	}{
		{"no boost: tie by chunk id", nil, "medium", "e/echo"},
		{"boost lifts foxtrot", map[string]float64{"f/": 2}, "medium", "f/foxtrot"},
		{"longest prefix wins", map[string]float64{"f/": 2, "f/fox": 0.5}, "medium", "e/echo"},
		{"detail high ignores boosts", map[string]float64{"f/": 2}, "high", "e/echo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := db.Exec(ctx(t), `DELETE FROM brain.source_boosts`); err != nil {
				t.Fatal(err)
			}
			for p, f := range tc.boosts {
				if _, err := db.Exec(ctx(t), `INSERT INTO brain.source_boosts VALUES ($1, $2)`, p, f); err != nil {
					t.Fatal(err)
				}
			}
			rs := hybridRows(t, db, `SELECT `+cols+` FROM brain.hybrid_search('orchid', NULL, 10, $1)`, tc.detail)
			if len(rs) != 2 || rs[0].Slug != tc.first {
				t.Fatalf("got %v, want %s first", slugs(rs), tc.first)
			}
		})
	}
}

func keywordSlugs(t *testing.T, db *pgxpool.Pool, q string, lim int) []string {
	t.Helper()
	return querySlugs(t, db, `SELECT p.slug FROM brain.keyword_search($1, $2) k JOIN brain.pages p ON p.id = k.page_id ORDER BY k.keyword_rank`, q, lim)
}

// querySlugs runs sql, which selects one text column, and returns its rows.
func querySlugs(t *testing.T, db *pgxpool.Pool, sql string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(ctx(t), sql, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", sql, args, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s %v: %v", sql, args, err)
	}
	return out
}

func TestKeywordANDThenORFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		q        string
		lim      int
		want     []string
		pinFirst bool
	}{
		// charlie alone has both words; with room for one result OR never runs.
		{"AND match fills the list", "quartz meadow", 1, []string{"c/charlie"}, true},
		// the AND match stays first; OR-only matches (one word) follow it.
		{"AND matches outrank OR matches", "quartz meadow", 10, []string{"c/charlie", "a/alpha", "b/bravo"}, true},
		// nothing has zebra and river: OR finds pages with either word.
		{"OR when AND finds nothing", "zebra river", 10, []string{"a/alpha", "b/bravo", "a/alpha", "c/charlie", "d/delta"}, false},
		// a quoted phrase that matches is required of every result ...
		{"phrase is required", `"river stones" quartz`, 10, []string{"d/delta"}, true},
		// ... and one that matches nothing is answered by its words, since
		// a query whose words some page holds never comes back empty.
		{"unmatched phrase falls back to its words", `"quartz river"`, 10, []string{"c/charlie", "a/alpha", "d/delta"}, true},
		{"negation is honoured", "zebra -meadow", 10, []string{"a/alpha", "a/alpha"}, true},
		{"stop words only", "the and of", 10, nil, false},
	}
	db := fixtureBrain(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := keywordSlugs(t, db, tc.q, tc.lim)
			if !sameRanking(got, tc.want, tc.pinFirst) {
				t.Fatalf("keyword_search(%q, %d) = %v, want %v (first pinned: %v)", tc.q, tc.lim, got, tc.want, tc.pinFirst)
			}
		})
	}
}

// sameRanking compares the first element when pinned and the rest as a
// multiset, since BM25 orders an OR tail by scores the test does not pin.
func sameRanking(got, want []string, pinFirst bool) bool {
	if len(got) != len(want) {
		return false
	}
	if len(got) == 0 {
		return true
	}
	if pinFirst && got[0] != want[0] {
		return false
	}
	return slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want)))
}

func TestRawInputNeverErrors(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	junk := []string{
		`"unterminated`, `zebra or`, `or or or`, `-`, `--zebra`, `a & b | !c`, `(((`, `'`, `\`,
		`<->`, `zebra:*`, `"" "" ""`, `-"quartz meadow"`, "tab\tnew\nline",
		strings.Repeat(`!@#$%^&*()_+{}|:"<>?~ zebra -or " `, 1800), // ~64 KB
	}
	for _, q := range junk {
		for _, sql := range []string{
			`SELECT count(*) FROM brain.keyword_search($1, 10)`,
			`SELECT count(*) FROM brain.query($1, 10)`,
		} {
			var n int
			if err := db.QueryRow(ctx(t), sql, q).Scan(&n); err != nil {
				t.Errorf("%s with %.40q: %v", sql, q, err)
			}
		}
	}
}

func TestLimitIsClamped(t *testing.T) {
	t.Parallel()
	b := fixtureBrain(t)
	if _, err := b.Exec(ctx(t), `
		WITH p AS (
			INSERT INTO brain.pages (slug, title, body, content_hash)
			SELECT 'bulk/p' || i, 'Bulk ' || i, 'x', repeat('0', 64) FROM generate_series(1, 130) i
			RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT id, 0, 'compiled_truth', 'marigold petals' FROM p`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ lim, want int }{{1000, 100}, {0, 1}, {-5, 1}, {7, 7}} {
		var n int
		if err := b.QueryRow(ctx(t), `SELECT count(*) FROM brain.hybrid_search('marigold', NULL, $1)`, tc.lim).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("lim %d: %d rows, want %d", tc.lim, n, tc.want)
		}
	}
}

func TestTermStatsFollowWrites(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	steps := []struct{ name, sql string }{
		{"insert", ``},
		{"update text", `UPDATE brain.chunks SET text = 'brand new words here' WHERE chunk_index = 0 AND page_id = (SELECT id FROM brain.pages WHERE slug = 'b/bravo')`},
		{"update title", `UPDATE brain.pages SET title = 'Renamed Charlie' WHERE slug = 'c/charlie'`},
		{"embedding only", `UPDATE brain.chunks SET embedding = '[0,0,0,0,0,0,0,1]'`},
		{"delete page", `DELETE FROM brain.pages WHERE slug = 'g/golf'`},
		{"truncate", `TRUNCATE brain.chunks`},
	}
	for _, s := range steps {
		if s.sql != "" {
			if _, err := db.Exec(ctx(t), s.sql); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		}
		var diff int
		var okCorpus bool
		err := db.QueryRow(ctx(t), `
			WITH want AS (SELECT u.lexeme, count(*) AS df FROM brain.chunks c, unnest(c.tsv) u GROUP BY u.lexeme)
			SELECT (SELECT count(*) FROM want FULL JOIN brain.term_stats t USING (lexeme)
			        WHERE want.df IS DISTINCT FROM t.doc_freq),
			       (SELECT n_docs = (SELECT count(*) FROM brain.chunks)
			           AND total_len = (SELECT coalesce(sum(brain.tsv_length(tsv)), 0) FROM brain.chunks)
			        FROM brain.corpus_stats)`).Scan(&diff, &okCorpus)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff != 0 || !okCorpus {
			t.Fatalf("after %s: %d lexemes disagree with brain.chunks, corpus stats ok = %v", s.name, diff, okCorpus)
		}
	}
}

func TestDetectDetail(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	tests := []struct {
		q    string
		want *string
	}{
		{"who is alice", ptr("low")},
		{"strings.Builder", ptr("low")},
		{"when was context added", ptr("high")},
		{"changes since 2021", ptr("high")},
		{"http client timeout", nil},
		{"", nil},
	}
	for _, tc := range tests {
		var got *string
		if err := db.QueryRow(ctx(t), `SELECT brain.detect_detail($1)`, tc.q).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("detect_detail(%q) = %v, want %v", tc.q, deref(got), deref(tc.want))
		}
	}
}

func ptr(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}
