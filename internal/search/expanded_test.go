package search

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
)

// fuse is the reference for brain.search_expanded: weighted RRF over
// pages, the query's list weighted 1 and each variant's w.
func fuse(lists []*Response, w, k float64, lim int) (slugs []string, scores []float64) {
	type pg struct {
		slug    string
		score   float64
		chunkID int64
	}
	pages := map[int64]*pg{}
	best := map[int64]float64{}
	for i, l := range lists {
		wi := w
		if i == 0 {
			wi = 1
		}
		for r, x := range l.Results {
			c := wi / (k + float64(r+1))
			p := pages[x.PageID]
			if p == nil {
				p = &pg{slug: x.Slug}
				pages[x.PageID] = p
			}
			p.score += c
			if c > best[x.PageID] || (c == best[x.PageID] && x.ChunkID < p.chunkID) {
				best[x.PageID], p.chunkID = c, x.ChunkID
			}
		}
	}
	all := make([]*pg, 0, len(pages))
	for _, p := range pages {
		all = append(all, p)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].chunkID < all[j].chunkID
	})
	for i, p := range all {
		if i == lim {
			break
		}
		slugs, scores = append(slugs, p.slug), append(scores, p.score)
	}
	return slugs, scores
}

func TestExpandedFusesVariantsWithTheQueryFirst(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	var k float64
	if err := db.QueryRow(ctx(t), `SELECT brain.search_setting('rrf_k')`).Scan(&k); err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	keywordOnly := Tuning{VectorWeight: &zero}
	cases := []struct {
		name     string
		q        string
		variants []string
		tuning   Tuning
		detail   string
		lim      int
	}{
		{"disjoint variant", "zebra", []string{"river"}, keywordOnly, "", 10},
		{"overlapping variants", "lantern", []string{"stones", "quartz meadow"}, keywordOnly, "", 10},
		{"hybrid arms", "zebra lantern", []string{"orchid", "saffron"}, Tuning{}, "", 10},
		{"limit cuts the fused list", "zebra", []string{"river", "orchid", "saffron"}, keywordOnly, "", 3},
		{"detail low for every list", "lantern history", []string{"zebra"}, keywordOnly, DetailLow, 10},
		{"every script", "Ζέβρα 斑马 zebra", []string{"café 🦓 river"}, keywordOnly, "", 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Limit: tc.lim, Detail: tc.detail, Expand: true}
			got, err := Expanded(ctx(t), db, tc.q, nil, tc.variants, nil, o, tc.tuning)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Meta.ExpansionApplied || got.Meta.ExpandEnabled == nil || !*got.Meta.ExpandEnabled {
				t.Fatalf("meta = %+v, want expansion applied and enabled", got.Meta)
			}
			// The reference: each list as Hybrid returns it, at the detail
			// the query resolved to.
			lo := Options{Limit: tc.lim, Detail: *got.Meta.DetailResolved}
			lists := []*Response{}
			for _, q := range append([]string{tc.q}, tc.variants...) {
				r, err := Hybrid(ctx(t), db, q, nil, lo, tc.tuning)
				if err != nil {
					t.Fatal(err)
				}
				lists = append(lists, r)
			}
			wantSlugs, wantScores := fuse(lists, 0.5, k, tc.lim)
			var gotSlugs []string
			for i, r := range got.Results {
				gotSlugs = append(gotSlugs, r.Slug)
				if i < len(wantScores) && math.Abs(r.Score-wantScores[i]) > 1e-12 {
					t.Errorf("score of %s = %v, want %v", r.Slug, r.Score, wantScores[i])
				}
			}
			if !slices.Equal(gotSlugs, wantSlugs) {
				t.Fatalf("fused = %v, want %v (lists %v)", gotSlugs, wantSlugs, lists)
			}
			// The query weighs most: where the lists are disjoint, all of
			// its pages come before the variants'.
			if tc.name == "disjoint variant" && (!slices.Equal(gotSlugs[:2], []string{"a/alpha", "b/bravo"}) || len(gotSlugs) != 4) {
				t.Errorf("disjoint lists fused as %v, want a/alpha, b/bravo, then the variant's two pages", gotSlugs)
			}
		})
	}
}

func TestExpandedWithoutUsableVariantsIsPlainSearch(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	plain, err := Hybrid(ctx(t), db, "zebra lantern", nil, Options{}, Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	for _, variants := range [][]string{nil, {}, {"", "  \t"}, {"ZEBRA lantern ", "zebra LANTERN"}} {
		got, err := Expanded(ctx(t), db, "zebra lantern", nil, variants, nil, Options{Expand: true}, Tuning{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Meta.ExpansionApplied {
			t.Errorf("variants %q: expansion_applied true with nothing to add", variants)
		}
		if len(got.Results) != len(plain.Results) {
			t.Fatalf("variants %q: %d results, plain search %d", variants, len(got.Results), len(plain.Results))
		}
		for i := range got.Results {
			if got.Results[i].ChunkID != plain.Results[i].ChunkID || got.Results[i].Score != plain.Results[i].Score {
				t.Errorf("variants %q: result %d = %+v, plain %+v", variants, i, got.Results[i], plain.Results[i])
			}
		}
	}
}

func TestExpandedEdges(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	// Nothing matches anywhere: no rows, meta still says what ran.
	zero := 0.0
	r, err := Expanded(ctx(t), db, "xylophone", nil, []string{"marimba"}, nil, Options{Expand: true}, Tuning{VectorWeight: &zero})
	if err != nil || len(r.Results) != 0 || !r.Meta.ExpansionApplied || r.Meta.DetailResolved == nil {
		t.Fatalf("no match: %+v, %v", r, err)
	}
	// A variant vector per variant, or none.
	if _, err := Expanded(ctx(t), db, "zebra", nil, []string{"a", "b"}, [][]float32{{1}}, Options{}, Tuning{}); err == nil ||
		!strings.Contains(err.Error(), "1 variant vectors for 2 variants") {
		t.Fatalf("mismatched vectors: %v", err)
	}
	// A client-side vector steers the variant's vector arm: "orchid" has no
	// keyword hit on golf, its vector points at golf's saffron chunk.
	golf := []float32{0, 0, 0, 0, 0, 1, 0, 0}
	r, err = Expanded(ctx(t), db, "zebra", nil, []string{"nothing-matches-this"}, [][]float32{golf}, Options{}, Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, x := range r.Results {
		found = found || x.Slug == "g/golf"
	}
	if !found {
		t.Errorf("the variant's vector did not reach g/golf: %+v", r.Results)
	}
	if _, err := Expanded(ctx(t), db, "zebra", nil, []string{"a\x00b"}, nil, Options{}, Tuning{}); err == nil {
		t.Error("a NUL in a variant was accepted")
	}
	// A lighter variant weight weighs the variant's pages less.
	zero = 0.0
	for _, w := range []float64{0.1, 0.9} {
		r, err := Expanded(ctx(t), db, "zebra", nil, []string{"river"}, nil, Options{}, Tuning{VectorWeight: &zero, VariantWeight: &w})
		if err != nil {
			t.Fatal(err)
		}
		var k float64
		if err := db.QueryRow(ctx(t), `SELECT brain.search_setting('rrf_k')`).Scan(&k); err != nil {
			t.Fatal(err)
		}
		if last := r.Results[len(r.Results)-1]; math.Abs(last.Score-w/(k+2)) > 1e-12 {
			t.Errorf("variant weight %v: last score %v, want %v", w, last.Score, w/(k+2))
		}
	}
	if _, err := db.Exec(ctx(t), `SELECT * FROM brain.search_expanded('zebra', '{river}', variant_weight => 1)`); err == nil ||
		!strings.Contains(err.Error(), "variant_weight") {
		t.Errorf("variant_weight 1 accepted: %v", err)
	}
}
