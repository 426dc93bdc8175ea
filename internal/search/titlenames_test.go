package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// A query word written inside a longer word of a page's title ("maa" in
// "libmaa-dev") finds the page even when its text never repeats the name,
// and ranks it above pages that only share the query's common words.
func TestTitleNamesFindJoinedNames(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	pages := []page{
		{slug: "pkg/libmaa-dev", title: "libmaa-dev", chunks: []chunk{{ct,
			"Low-level data structures that help in writing compilers: hash tables, sets and lists. " +
				"This package holds the static library and headers to build programs that use the library.", v}}},
		{slug: "pkg/libkf5quickaddons5", title: "libkf5quickaddons5", chunks: []chunk{{ct,
			"Framework providing image texture caching.", v}}},
		{slug: "pkg/node-dequeue", title: "node-dequeue", chunks: []chunk{{ct,
			"A double ended structure for Node.js.", v}}},
		{slug: "other/libmaa4", title: "libmaa4", chunks: []chunk{{ct,
			"Runtime part of the same data structures.", v}}},
	}
	// The query's other words are common, as real ones are, and several
	// pages hold all of them; many hold one.
	for i := range 30 {
		pages = append(pages, page{slug: fmt.Sprintf("pkg/lib%d-dev", i), title: fmt.Sprintf("lib%d-dev", i),
			chunks: []chunk{{ct, "Programming library, development files. It ships the headers and the static " +
				"archive that other packages compile against, with examples of its use and notes on porting.", v}}})
	}
	words := []string{"development", "files", "library", "programming"}
	for i := range 1000 {
		pages = append(pages, page{slug: fmt.Sprintf("app/tool%d", i), title: fmt.Sprintf("tool%d", i),
			chunks: []chunk{{ct, "A small utility for the desktop, with " + words[i%4] + ".", v}}})
	}
	// A word inside more titles than title_names (20) names none of them.
	for i := range 25 {
		pages = append(pages, page{slug: fmt.Sprintf("kit/widgetkit%d", i), title: fmt.Sprintf("widgetkit%d", i),
			chunks: []chunk{{ct, "Controls for graphical programs.", v}}})
	}
	seed(t, db, pages)
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.sources (id, name) VALUES ('other', 'Other');
		UPDATE brain.pages SET source_id = 'other' WHERE slug LIKE 'other/%'`); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ q, want string }{
		{"maa programming library, development files", "pkg/libmaa-dev"},
		{"provides integration of QML and KDE frameworks -- quickaddons", "pkg/libkf5quickaddons5"},
		{"Simple Double Ended Queue Datastructure for Node.js", "pkg/node-dequeue"},
		{"quickaddons", "pkg/libkf5quickaddons5"},
	} {
		if got := keywordSlugs(t, db, c.q, 5); len(got) == 0 || got[0] != c.want {
			t.Errorf("%q: %v, want %s first", c.q, got, c.want)
		}
	}
	// A negated word leaves the page out as it does any other.
	if got := keywordSlugs(t, db, "maa programming library -compilers", 40); slices.Contains(got, "pkg/libmaa-dev") {
		t.Errorf("maa programming library -compilers: %v holds pkg/libmaa-dev, whose text says compilers", got)
	}
	// Only the sources asked for.
	got := querySlugs(t, db, `SELECT p.slug FROM brain.keyword_scan($1, 10, ARRAY['default']) k
		JOIN brain.pages p ON p.id = k.page_id WHERE k.chunk_id IS NOT NULL ORDER BY k.keyword_rank`, "maa")
	if !slices.Equal(got, []string{"pkg/libmaa-dev"}) {
		t.Errorf("maa in source default: %v, want [pkg/libmaa-dev]", got)
	}
	// Too many titles hold it: nothing, until the limit is raised.
	if got := keywordSlugs(t, db, "widgetkit", 40); len(got) != 0 {
		t.Errorf("widgetkit, inside 25 titles: %v, want none", got)
	}
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.config (key, value) VALUES ('search.title_names', '30')`); err != nil {
		t.Fatal(err)
	}
	if got := keywordSlugs(t, db, "widgetkit", 40); len(got) != 25 {
		t.Errorf("widgetkit with search.title_names 30: %d pages %v, want 25", len(got), got)
	}
	if _, err := db.Exec(ctx(t), `UPDATE brain.config SET value = '0' WHERE key = 'search.title_names'`); err != nil {
		t.Fatal(err)
	}
	if got := keywordSlugs(t, db, "quickaddons", 5); len(got) != 0 {
		t.Errorf("quickaddons with search.title_names 0: %v, want none", got)
	}
	// Settings past an integer's range are a DBA's "no limit", not an
	// integer overflow in every search.
	if _, err := db.Exec(ctx(t), `UPDATE brain.config SET value = '1e10' WHERE key = 'search.title_names';
		INSERT INTO brain.config (key, value) VALUES ('search.title_depth', '1e10'), ('search.keyword_candidates', '1e10'),
			('search.keyword_candidates_max', '1e10')`); err != nil {
		t.Fatal(err)
	}
	if got := keywordSlugs(t, db, "quickaddons", 5); len(got) == 0 || got[0] != "pkg/libkf5quickaddons5" {
		t.Errorf("quickaddons with the limits at 1e10: %v, want pkg/libkf5quickaddons5 first", got)
	}
}

// brain.title_name_chunks reads a lexeme literally: LIKE's wildcards in it
// match only themselves, a dash is a dash, and a lexeme without three
// letters or digits in a row, which the trigram index cannot look up,
// names nothing.
func TestTitleNameChunksLiteral(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	var pages []page
	for _, title := range []string{"libabc_d", "abcxd-tools", "abc%d", "abcyyd", "a_b-tool", "librust-thread-local-dev"} {
		pages = append(pages, page{slug: "t/" + fmt.Sprint(len(pages)), title: title, chunks: []chunk{{ct, "Some text.", v}}})
	}
	seed(t, db, pages)
	for _, c := range []struct {
		lexeme string
		want   []string
	}{
		{"abc_d", []string{"libabc_d"}},
		// a hyphenated word's own lexeme: the name as a title writes it
		{"thread-loc", []string{"librust-thread-local-dev"}},
		{"abc%d", []string{"abc%d"}},
		{"a_b", nil},
		{"ab", nil},
		{"abc", []string{"abc%d", "abcxd-tools", "abcyyd", "libabc_d"}},
	} {
		got := querySlugs(t, db, `SELECT p.title FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id
			WHERE c.id = ANY (brain.title_name_chunks(ARRAY[$1], 20)) ORDER BY p.title`, c.lexeme)
		if !slices.Equal(got, c.want) {
			t.Errorf("title_name_chunks(%q): %v, want %v", c.lexeme, got, c.want)
		}
	}
}
