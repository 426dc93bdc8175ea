package search

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// FuzzParseQuery: brain.parse_query never raises, its terms and strict
// query agree (no terms, no strict query), and the keyword arm and
// brain.search answer any valid query without an error. Seeds are in
// testdata/fuzz/FuzzParseQuery.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "Distraction-free, themeable Markdown editor", `"a b" -c d OR e`, "東京 café", "C++ x86-64 3.x",
		// past brain.query_bound's cut: repeated words, many words, one huge word
		strings.Repeat("mail client OR ", 700), strings.Repeat("w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 ", 30),
		strings.Repeat("東京", 5000), `"` + strings.Repeat("a ", 3000)} {
		f.Add(s)
	}
	b := dbtest.Open(f, testdb.Options{Dim: 8})
	if _, err := b.Pool.Exec(context.Background(), `
		WITH p AS (INSERT INTO brain.pages (slug, title, body, content_hash)
			VALUES ('f/one', 'One', 'x', repeat('0', 64)), ('f/two', 'Two', 'x', repeat('1', 64)) RETURNING id, slug)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT id, 0, 'compiled_truth', CASE slug WHEN 'f/one' THEN 'real-time e-mail client for 東京 in C++' ELSE 'Straße café markdown editor' END FROM p`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if !utf8.ValidString(q) || CheckQuery(q) != nil {
			return // refused before SQL, tested in TestCheckQuery
		}
		c := ctx(t)
		var nTerms int
		var strictNull bool
		if err := b.Pool.QueryRow(c, `SELECT cardinality((p).terms), (p).strict_q IS NULL FROM (SELECT brain.parse_query($1) p) s`, q).Scan(&nTerms, &strictNull); err != nil {
			t.Fatalf("brain.parse_query(%q): %v", q, err)
		}
		if (nTerms == 0) != strictNull {
			t.Fatalf("brain.parse_query(%q): %d terms but strict query null = %v", q, nTerms, strictNull)
		}
		if _, err := Keyword(c, b.Pool, q, Options{}, Tuning{}); err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		if _, err := Hybrid(c, b.Pool, q, nil, Options{}, Tuning{}); err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
	})
}

// FuzzTitleScores: brain.title_scores reads any page title (every script,
// punctuation, digits, emoji) against any query's terms without an error,
// with 0 <= explained <= 1 and 0 <= affinity <= the sum of the terms' idf,
// and the keyword arm ranks that page without an error. Seeds are in
// testdata/fuzz/FuzzTitleScores.
func FuzzTitleScores(f *testing.F) {
	for _, s := range [][2]string{
		{"python3-genshi", "Python XML-based template engine - Python 3.x"},
		{"gir1.2-vte-2.91", "GObject introspection data for the VTE library"},
		{"東京 プロジェクト 🚀", "東京 打ち合わせ"},
		{"Café Straße -- ../..\\x00", "cafe strasse"},
		{"a", "a"},
	} {
		f.Add(s[0], s[1])
	}
	b := dbtest.Open(f, testdb.Options{Dim: 8})
	f.Fuzz(func(t *testing.T, title, q string) {
		if !utf8.ValidString(title) || !utf8.ValidString(q) || CheckQuery(q) != nil ||
			strings.TrimSpace(title) == "" || utf8.RuneCountInString(title) > 1000 || strings.ContainsRune(title, 0) {
			return // refused before SQL (queries) or by the pages table (titles)
		}
		c := ctx(t)
		var id int64
		if err := b.Pool.QueryRow(c, `
			WITH p AS (
				INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ('f/t', $1, 'x', repeat('0', 64))
				ON CONFLICT (source_id, slug) DO UPDATE SET title = excluded.title RETURNING id)
			INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
			SELECT id, 0, 'compiled_truth', 'template engine' FROM p
			ON CONFLICT (page_id, chunk_index) DO UPDATE SET text = excluded.text RETURNING id`, title).Scan(&id); err != nil {
			t.Fatalf("storing title %q: %v", title, err)
		}
		var aff, expl, sum float64
		if err := b.Pool.QueryRow(c, `
			WITH q AS (SELECT (brain.parse_query($2)).terms AS terms)
			SELECT coalesce(s.affinity, 0), coalesce(s.explained, 0), cardinality(q.terms)
			FROM q LEFT JOIN brain.title_scores(ARRAY[$1::bigint], q.terms,
				ARRAY(SELECT 1::float8 FROM unnest(q.terms))) s ON true`, id, q).Scan(&aff, &expl, &sum); err != nil {
			t.Fatalf("brain.title_scores for title %q, query %q: %v", title, q, err)
		}
		if aff < 0 || aff > sum || expl < 0 || expl > 1 {
			t.Fatalf("title %q, query %q: affinity %v (terms %v), explained %v out of range", title, q, aff, sum, expl)
		}
		if _, err := Keyword(c, b.Pool, q, Options{}, Tuning{}); err != nil {
			t.Fatalf("search %q over title %q: %v", q, title, err)
		}
	})
}

// FuzzQueryInitials: brain.query_initials reads any query (every script,
// quotes, brackets, backslashes, emoji, huge input) without an error and
// returns distinct lexemes in order, none empty or holding a space, and
// none when the query has fewer than three capitalised words; and the
// keyword arm, which adds them as terms, answers. Seeds are in testdata/fuzz/FuzzQueryInitials.
func FuzzQueryInitials(f *testing.F) {
	for _, s := range []string{"Open Text Summarizer", "Yet Another JSON Library - development files",
		"Reciprocal Rank Fusion (RRF) and Vector Search", "Ελληνικά Κείμενα Όλα", "İstanbul Ağır Ünite",
		strings.Repeat("Open Text Summarizer ", 200), strings.Repeat("A ", 2000)} {
		f.Add(s)
	}
	b := dbtest.Open(f, testdb.Options{Dim: 8})
	if _, err := b.Pool.Exec(context.Background(), `
		WITH p AS (INSERT INTO brain.pages (slug, title, body, content_hash)
			VALUES ('f/ots', 'ots', 'x', repeat('0', 64)) RETURNING id)
		INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text)
		SELECT id, 0, 'compiled_truth', 'condenses open text into a summary' FROM p`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if !utf8.ValidString(q) || CheckQuery(q) != nil {
			return // refused before SQL, tested in TestCheckQuery
		}
		c := ctx(t)
		var got []string
		var capitals int
		var bad *string
		if err := b.Pool.QueryRow(c, `
			SELECT i, regexp_count($1, '(^|[\s(\[{"“„«''‘])[[:upper:]]'),
			       (SELECT min(x) FROM unnest(i) x WHERE x = '' OR x ~ '\s')
			FROM brain.query_initials($1) i`, q).Scan(&got, &capitals, &bad); err != nil {
			t.Fatalf("brain.query_initials(%q): %v", q, err)
		}
		if capitals < 3 && len(got) > 0 {
			t.Fatalf("brain.query_initials(%q) = %q from %d capitalised words, want none", q, got, capitals)
		}
		for i := 1; i < len(got); i++ {
			if got[i-1] >= got[i] {
				t.Fatalf("brain.query_initials(%q) = %q, want distinct lexemes in order", q, got)
			}
		}
		if bad != nil {
			t.Fatalf("brain.query_initials(%q) = %q holds %q, an empty lexeme or one with a space", q, got, *bad)
		}
		if _, err := Keyword(c, b.Pool, q, Options{}, Tuning{}); err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
	})
}
