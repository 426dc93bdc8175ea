package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestTitleWordsAreTheChunksTitleLexemes: brain.pages.title_words, stored
// when a page is written, are the words brain.title_scores used to cut
// out of each ranked chunk's weight-A lexemes at every search; the two
// readings must agree on every kind of title, and a title change moves
// them.
func TestTitleWordsAreTheChunksTitleLexemes(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	titles := []struct{ title, has string }{
		{"python3-genshi", "genshi"},
		{"gir1.2-vte-2.91", "vte"},
		{"Networks/Protocols", "protocol"},
		{"./configure notes", "configur"},
		{"Café Straße", "strass"},
		{"ΣΟΦΟΣ λόγος", "σοφοσ"},
		{"来週の東京会議", "東京"},
		{"C++ and x86-64 (3.x) 🚀 tools", "tool"},
		{"don't panic: it's 'quoted'", "panic"},
		{"https://example.com/docs/guide", "guid"},
		{"Cup½Recipe and ½ of it", "cup"},
		{"a", ""},
	}
	var pages []page
	for i, c := range titles {
		pages = append(pages, page{slug: fmt.Sprintf("t/p%d", i), title: c.title,
			chunks: []chunk{{ct, "some text", v}, {"timeline", "2024-01-02: a later note", v}}})
	}
	seed(t, db, pages)
	// The reading title_scores had before the words were stored, for each
	// chunk of the page (a compiled-truth and a timeline one).
	const fromChunk = `SELECT p.slug, p.title_words, ARRAY(
		SELECT DISTINCT x FROM unnest(string_to_array(translate(
			array_to_string(ARRAY(SELECT l FROM unnest(tsvector_to_array(ts_filter(c.tsv, '{a}'))) l
			                      WHERE strpos(l, '/') = 0), ' '),
			'0123456789-_./+@:~', '                  '), ' ')) x
		WHERE length(x) >= 2 ORDER BY x)
		FROM brain.pages p JOIN brain.chunks c ON c.page_id = p.id ORDER BY p.id, c.chunk_index`
	check := func(when string) {
		rows, err := db.Query(ctx(t), fromChunk)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		i := 0
		for rows.Next() {
			var slug string
			var stored, derived []string
			if err := rows.Scan(&slug, &stored, &derived); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(stored, derived) {
				t.Errorf("%s: %s title_words %q, the chunk's title lexemes give %q", when, slug, stored, derived)
			}
			if c := titles[i/2]; when == "written" && c.has != "" && !slices.Contains(stored, c.has) {
				t.Errorf("%s: %q gives %q, want it to hold %q", slug, c.title, stored, c.has)
			}
			i++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if i != 2*len(titles) {
			t.Fatalf("%s: %d chunks read, want %d", when, i, 2*len(titles))
		}
	}
	check("written")
	if _, err := db.Exec(ctx(t), `UPDATE brain.pages SET title = title || ' renamed/moved' WHERE slug = 't/p0'`); err != nil {
		t.Fatal(err)
	}
	check("after a title change")
	var words []string
	if err := db.QueryRow(ctx(t), `SELECT title_words FROM brain.pages WHERE slug = 't/p0'`).Scan(&words); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(words, "renam") || !slices.Contains(words, "move") {
		t.Errorf("after the title change: %q, want renam and move among them", words)
	}
}
