package search

import (
	"slices"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestNegationLeavesOutPages: "-word" leaves out every page holding the
// word in any chunk, not only the chunks holding it, in the keyword arm and
// in the vector arm (which knows no words), and the vector ranks close up.
func TestNegationLeavesOutPages(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	seed(t, db, []page{
		// kestrel in one chunk, the negated word in another.
		{slug: "n/mixed", title: "Mixed", chunks: []chunk{
			{ct, "The kestrel hovers over the field.", "[1,0,0,0,0,0,0,0]"},
			{ct, "Falconry clubs keep them too.", "[0,1,0,0,0,0,0,0]"}}},
		{slug: "n/clean", title: "Clean", chunks: []chunk{
			{ct, "A kestrel nests in the old barn.", "[0.9,0.1,0,0,0,0,0,0]"}}},
		{slug: "n/falconry", title: "Falconry", chunks: []chunk{
			{ct, "Falconry is the hunting of wild quarry with a trained bird.", "[0.95,0,0.05,0,0,0,0,0]"}}},
		{slug: "n/other", title: "Other", chunks: []chunk{
			{ct, "Barn owls hunt at night.", "[0.8,0.2,0,0,0,0,0,0]"}}},
	})
	keyword := keywordSlugs(t, db, "kestrel -falconry", 10)
	if !slices.Equal(keyword, []string{"n/clean"}) {
		t.Errorf("keyword arm for \"kestrel -falconry\": %v, want only n/clean (n/mixed holds falconry in another chunk)", keyword)
	}
	// Fused with the vector arm, which alone would rank n/mixed, n/falconry
	// and n/clean first.
	rs := hybridRows(t, db, `SELECT `+cols+` FROM brain.hybrid_search('kestrel -falconry', '[1,0,0,0,0,0,0,0]', 10, 'medium', NULL, 1, 1.0, 1.0, 60)`)
	got := slugs(rs)
	for _, s := range got {
		if s == "n/mixed" || s == "n/falconry" {
			t.Errorf("hybrid for \"kestrel -falconry\": %v, want no page holding falconry", got)
			break
		}
	}
	if len(rs) == 0 || rs[0].Slug != "n/clean" {
		t.Fatalf("hybrid for \"kestrel -falconry\": %v, want n/clean first", got)
	}
	var vranks []int
	for _, r := range rs {
		if r.VR != nil {
			vranks = append(vranks, *r.VR)
		}
	}
	slices.Sort(vranks)
	for i, r := range vranks {
		if r != i+1 {
			t.Errorf("vector ranks %v, want 1..%d without gaps", vranks, len(vranks))
			break
		}
	}
	// A phrase that matches nothing is dropped and the words searched
	// alone; the negation still holds.
	q := `"kestrel nests in the field" kestrel -falconry`
	if got := keywordSlugs(t, db, q, 10); !slices.Equal(got, []string{"n/clean"}) {
		t.Errorf("keyword arm for %s: %v, want only n/clean", q, got)
	}
	var dropped bool
	if err := db.QueryRow(ctx(t), `SELECT (k.meta ->> 'phrases_dropped')::boolean FROM brain.keyword_scan($1, 10) k WHERE k.chunk_id IS NULL`, q).Scan(&dropped); err != nil || !dropped {
		t.Errorf("keyword_scan meta phrases_dropped for %s: %v, %v; want true", q, dropped, err)
	}
	// Without the negation every page can come back.
	if all := keywordSlugs(t, db, "kestrel", 10); !slices.Contains(all, "n/mixed") {
		t.Errorf("keyword arm for \"kestrel\": %v, want n/mixed among them", all)
	}
}
