package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestSourceFilteredCutOnCommonWords: the term statistics count every
// source, so words common in the brain can be rare in the source a search
// asks for. The strict AND then finds few chunks there, and the rest of the
// answer must still be BM25's best in that source, not the first chunks a
// scan finds: the top 3 equal exhaustive BM25's within the source.
func TestSourceFilteredCutOnCommonWords(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.sources (id, name) VALUES ('small', 'small')`); err != nil {
		t.Fatal(err)
	}
	setSetting(t, db, "keyword_candidates", "10") // "common" is then more than 50 chunks
	var big []page
	for i := range 60 {
		words := "ibis heron egret"
		if i < 5 {
			words = "heron egret" // ibis is the rarest word in the brain
		}
		big = append(big, page{slug: fmt.Sprintf("big/p%02d", i), title: fmt.Sprintf("p%02d", i),
			chunks: []chunk{{ct, words + " in the wetland, with many other words about birds and water.", v}}})
	}
	seed(t, db, big)
	// In the small source, written first (so a scan finds them first):
	// pages holding two of the three words once among many others; then
	// the page BM25 ranks first there, ibis many times and heron once.
	long := strings.Repeat("Notes on the weather, the tides, the light and the path along the dyke. ", 6)
	small := []struct{ slug, text string }{
		{"s/two-a", "ibis and heron. " + long},
		{"s/two-b", "heron and egret. " + long},
		{"s/two-c", "ibis and egret. " + long},
		{"s/all", "ibis heron egret. " + long},
		{"s/best", "ibis ibis ibis heron, ibis."},
	}
	for _, p := range small {
		var id int64
		if err := db.QueryRow(ctx(t), `INSERT INTO brain.pages (source_id, slug, title, type, body, content_hash)
			VALUES ('small', $1, $1, 'note', $2, encode(sha256(convert_to($2, 'UTF8')), 'hex')) RETURNING id`, p.slug, p.text).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx(t), `INSERT INTO brain.chunks (page_id, chunk_index, chunk_source, text, embedding)
			VALUES ($1, 0, 'compiled_truth', $2, $3::text::vector)`, id, p.text, v); err != nil {
			t.Fatal(err)
		}
	}
	top := func(exhaustive bool) []string {
		t.Helper()
		return querySlugs(t, db, `SELECT p.slug FROM brain.keyword_scan('ibis heron egret', 3, ARRAY['small'], false, $1) k
			JOIN brain.pages p ON p.id = k.page_id WHERE k.chunk_id IS NOT NULL ORDER BY k.keyword_rank`, exhaustive)
	}
	want := top(true)
	if len(want) != 3 || !slices.Contains(want, "s/best") {
		t.Fatalf("exhaustive BM25 in source small: %v, want three pages with s/best among them", want)
	}
	if got := top(false); !slices.Equal(got, want) {
		t.Errorf("keyword_scan in source small: %v, want exhaustive BM25's %v", got, want)
	}
}
