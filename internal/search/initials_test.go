package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestQueryInitials pins which runs of capitalised words give initials, and
// that the initials are stemmed like any query word.
func TestQueryInitials(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	tests := []struct {
		q    string
		want []string
	}{
		{"Open Text Summarizer", []string{"ot"}}, // "ots", stemmed like the page title "ots"
		{"Yet Another JSON Library - development files", []string{"yajl"}},
		{"Diffraction Integration for Advanced Light Sources - Python3", []string{"al", "dial"}}, // lower-case "for" inside a run; its parts too
		{"The Open Text Summarizer", []string{"ot", "tot"}},                                      // with and without a word that starts sentences
		{"How do I use the Open Text Summarizer on Debian?", []string{"ot", "otsd"}},             // "on Debian" ends the name
		{"I Am Here Now", []string{"ahn", "iahn"}},
		{"Development files for Central Test Node, a DICOM implementation", []string{"ctn"}}, // "Development files" is not a run
		{"GNU Compiler Collection", []string{"gcc"}},
		{"System Biology Markup Language library", []string{"sbml"}},
		{"Reciprocal Rank Fusion (RRF) and Vector Search", []string{"rrf"}}, // a bracket ends the run; two words are not a run
		{"Free Lossless Audio Codec: the FLAC tools", []string{"flac"}},
		{"Python XML-based template engine", []string{}}, // a hyphenated word is not a capitalised word
		{"Two Words", []string{}},
		{"a OR b OR c", []string{}},
		{"Alpha OR Beta Gamma", []string{}}, // OR breaks the run
		{"Ελληνικά Κείμενα Όλα", []string{"εκο"}},
		{"東京 タワー 見学", []string{}},
		{"", []string{}},
		{"   ", []string{}},
		{"The And Of", []string{"tao"}},
	}
	for _, tt := range tests {
		var got []string
		if err := db.QueryRow(ctx(t), `SELECT brain.query_initials($1)`, tt.q).Scan(&got); err != nil {
			t.Fatalf("brain.query_initials(%q): %v", tt.q, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("brain.query_initials(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

// TestInitialsFindTheNamedPage: a page whose title is the initials of the
// query's capitalised words, and whose text shares none of them, comes
// first; with search.initials 0 it is not found at all. Initials that
// too many chunks hold are not used.
func TestInitialsFindTheNamedPage(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	pages := []page{
		{slug: "pkg/ots", title: "ots", chunks: []chunk{{ct, "Condenses articles into a short list of their key sentences.", v}}},
		{slug: "pkg/textutil", title: "textutil", chunks: []chunk{{ct, "Open the text of a file and print a summary line.", v}}},
		{slug: "pkg/opener", title: "opener", chunks: []chunk{{ct, "Open text files in the right program.", v}}},
	}
	// The query's words are common in this brain, as real words are; the
	// initials are rare.
	for i := range 40 {
		pages = append(pages, page{slug: fmt.Sprintf("pkg/filler%d", i), title: fmt.Sprintf("filler%d", i),
			chunks: []chunk{{ct, "Open a text about gardens and weather, then a summary.", v}}})
	}
	seed(t, db, pages)
	top := func(q string) []string { return keywordSlugs(t, db, q, 5) }
	if got := top("Open Text Summarizer"); len(got) == 0 || got[0] != "pkg/ots" {
		t.Errorf("Open Text Summarizer: %v, want pkg/ots first", got)
	}
	var used []string
	if err := db.QueryRow(ctx(t), `SELECT ARRAY(SELECT jsonb_array_elements_text(k.meta -> 'initials'))
		FROM brain.keyword_scan('Open Text Summarizer', 5) k WHERE k.chunk_id IS NULL`).Scan(&used); err != nil {
		t.Fatalf("keyword_scan meta: %v", err)
	}
	if !slices.Equal(used, []string{"ot"}) {
		t.Errorf("keyword_scan meta initials = %v, want [ot]", used)
	}
	if got := top("open text summarizer"); slices.Contains(got, "pkg/ots") {
		t.Errorf("open text summarizer (no capitals): %v, want no pkg/ots", got)
	}
	setSetting(t, db, "initials", "0")
	if got := top("Open Text Summarizer"); slices.Contains(got, "pkg/ots") {
		t.Errorf("with search.initials 0: %v, want no pkg/ots", got)
	}
	setSetting(t, db, "initials", "1")
	// Held by more chunks than the candidate budget: not a name.
	setSetting(t, db, "keyword_candidates", "10")
	for i := range 12 {
		seed(t, db, []page{{slug: fmt.Sprintf("pkg/ot%d", i), title: fmt.Sprintf("ots %d", i),
			chunks: []chunk{{ct, "More unrelated words.", v}}}})
	}
	if got := top("Open Text Summarizer"); slices.Contains(got, "pkg/ots") || slices.Contains(got, "pkg/ot0") {
		t.Errorf("initials held by 13 chunks, over the candidate budget of 10, still counted: %v", got)
	}
}
