package search

import (
	"fmt"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestHyphenatedWordCountsOnce: a hyphenated query word scores through its
// parts (and joined form), not a third time through its own lexeme, so the
// page whose title is exactly the compound does not beat the page holding
// the compound's parts and the query's rare word. When the parts are stop
// words the compound's own lexeme is all there is, and it still scores.
func TestHyphenatedWordCountsOnce(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	pages := []page{
		{slug: "pkg/tesseract-ocr", title: "tesseract-ocr", chunks: []chunk{{ct,
			"Tesseract is an open source OCR engine. It supports a wide variety of languages.", v}}},
		{slug: "pkg/tesseract-ocr-pan", title: "tesseract-ocr-pan", chunks: []chunk{{ct,
			"Tesseract is an open source OCR engine. This package holds what it needs for the Punjabi language.", v}}},
		{slug: "pkg/tasks", title: "tasks", chunks: []chunk{{ct, "Keeps a to-do list in a plain file.", v}}},
		{slug: "pkg/libre", title: "libre", chunks: []chunk{{ct, "Runs on GNU/Linux-libre only.", v}}},
		{slug: "pkg/amd", title: "amd", chunks: []chunk{{ct, "Built for x86-64 machines.", v}}},
	}
	// The query's other words are common, as real ones are.
	for i := range 30 {
		pages = append(pages, page{slug: fmt.Sprintf("pkg/filler%d", i), title: fmt.Sprintf("filler%d", i),
			chunks: []chunk{{ct, "Language files for a program, and more files.", v}}})
	}
	seed(t, db, pages)
	if got := keywordSlugs(t, db, "tesseract-ocr language files for Punjabi", 3); len(got) == 0 || got[0] != "pkg/tesseract-ocr-pan" {
		t.Errorf("tesseract-ocr language files for Punjabi: %v, want pkg/tesseract-ocr-pan first", got)
	}
	// The compound's own lexeme still finds and scores chunks wherever no
	// part of it is a term of its group: parts that are stop words, the
	// other side of an OR, a slashed word (indexed whole, without parts).
	for _, c := range []struct{ q, want string }{
		{"to-do", "pkg/tasks"},
		{"to-do OR chore", "pkg/tasks"},
		{"GNU/Linux-libre", "pkg/libre"},
		{"x86-64 OR amd64", "pkg/amd"},
	} {
		if got := keywordSlugs(t, db, c.q, 3); len(got) == 0 || got[0] != c.want {
			t.Errorf("%q: %v, want %s first", c.q, got, c.want)
		}
	}
}
