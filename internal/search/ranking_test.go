package search

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

// TestTitleScores pins which query lexemes a page title credits (whole
// title words, and names written joined, abbreviated or affixed) and the
// share (and the number) of the title's words the query explains (leaves
// unexplained). Title words come from the
// chunk's title lexemes, so they are stemmed like the query's.
func TestTitleScores(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	tests := []struct {
		title     string
		lexemes   []string
		idfs      []float64
		affinity  float64
		explained float64
		unexpl    int // title words no lexeme matches
	}{
		{"python3-genshi", []string{"python", "templat"}, []float64{1, 2}, 1, 0.5, 1},     // digits split words
		{"libfoo-dev", []string{"develop", "file"}, []float64{2, 1}, 2, 0.5, 1},           // "dev" begins "develop"
		{"libaspectj-java", []string{"aspect", "java"}, []float64{3, 1}, 4, 1, 0},         // contained, and whole
		{"librust-oauth2-dev", []string{"rust", "sourc"}, []float64{2, 1}, 2, 1.0 / 3, 2}, // "rust" inside "librust"
		{"gir1.2-vte-2.91", []string{"vte", "gir"}, []float64{2, 1}, 3, 1, 0},             // versions and dots split words
		{"node-progress", []string{"progress", "bar"}, []float64{2, 2}, 2, 0.5, 1},        // a lexeme matching no word adds nothing
		{"Release Notes", []string{"releas", "note"}, []float64{1, 1}, 2, 1, 0},           // stemmed like the query
		{"Kate", []string{"ka"}, []float64{5}, 0, 0, 1},                                   // 2 letters: whole words only
		{"xz-utils", []string{"xz"}, []float64{5}, 5, 0.5, 1},                             // ... and then they count
		{"ab", []string{"abc"}, []float64{5}, 0, 0, 1},                                    // a 2-letter word begins nothing
		{"gtk", []string{"gt", "tk"}, []float64{1, 1}, 0, 0, 1},                           // short lexemes need whole words
		{"Café Straße", []string{"cafe", "strass"}, []float64{1, 1}, 2, 1, 0},             // unaccented like the query
		{"東京", []string{"東京"}, []float64{2}, 2, 1, 0},                                     // any script
		{"2024", []string{"python"}, []float64{1}, 0, 0, 0},                               // a title without words
		{"plain title", []string{}, []float64{}, 0, 0, 2},                                 // no terms
	}
	for i, tt := range tests {
		slug := fmt.Sprintf("t/p%d", i)
		seed(t, db, []page{{slug: slug, title: tt.title, chunks: []chunk{{ct, "body text", "[1,0,0,0,0,0,0,0]"}}}})
		var aff, expl float64
		var unexpl int
		if err := db.QueryRow(ctx(t), `SELECT s.affinity, s.explained, s.unexplained FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id,
			brain.title_scores(ARRAY[c.id], $2, $3) s WHERE p.slug = $1`, slug, tt.lexemes, tt.idfs).Scan(&aff, &expl, &unexpl); err != nil {
			t.Fatalf("brain.title_scores for %q, %v: %v", tt.title, tt.lexemes, err)
		}
		if math.Abs(aff-tt.affinity) > 1e-9 || math.Abs(expl-tt.explained) > 1e-9 || unexpl != tt.unexpl {
			t.Errorf("title %q, lexemes %v, idfs %v: (affinity, explained, unexplained) = (%v, %v, %v), want (%v, %v, %v)",
				tt.title, tt.lexemes, tt.idfs, aff, expl, unexpl, tt.affinity, tt.explained, tt.unexpl)
		}
	}
}

// scoreOf is the keyword arm's score of the page with slug for q.
func scoreOf(t *testing.T, db *pgxpool.Pool, q, slug string) float64 {
	t.Helper()
	var s float64
	if err := db.QueryRow(ctx(t), `SELECT k.score FROM brain.keyword_search($1, 50) k
		JOIN brain.pages p ON p.id = k.page_id WHERE p.slug = $2`, q, slug).Scan(&s); err != nil {
		t.Fatalf("score of %s for %q: %v", slug, q, err)
	}
	return s
}

func setSetting(t *testing.T, db *pgxpool.Pool, name, value string) {
	t.Helper()
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.config (key, value) VALUES ('search.' || $1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, name, value); err != nil {
		t.Fatalf("setting search.%s: %v", name, err)
	}
}

// TestRankingSignals checks the signals added to BM25 where they show: the
// coverage factor 1 + coverage_weight · (share of the query's idf the chunk
// holds)², and the title terms (affinity and coverage), which rank the page
// named for the query first among pages whose text scores the same.
func TestRankingSignals(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	seed(t, db, []page{
		// alpha and beta are each in two chunks: equal idf.
		{slug: "cov/both", title: "One", chunks: []chunk{{ct, "alpha beta", v}}},
		{slug: "cov/alpha", title: "Two", chunks: []chunk{{ct, "alpha gamma", v}}},
		{slug: "cov/beta", title: "Three", chunks: []chunk{{ct, "beta delta", v}}},
		// the same text under two names
		{slug: "pkg/ruby-kid", title: "ruby-kid", chunks: []chunk{{ct, "A template engine for XML documents.", v}}},
		{slug: "pkg/python3-kid", title: "python3-kid", chunks: []chunk{{ct, "A template engine for XML documents.", v}}},
		// siblings: one text, and a name that says more than the query
		{slug: "pkg/kid-extra-doc", title: "kid-extra-doc", chunks: []chunk{{ct, "Kid is a template engine for XML documents.", v}}},
		{slug: "pkg/kid", title: "kid", chunks: []chunk{{ct, "Kid is a template engine for XML documents.", v}}},
	})
	setSetting(t, db, "title_affinity", "0")
	setSetting(t, db, "title_coverage", "0")
	setSetting(t, db, "title_unexplained", "0")
	setSetting(t, db, "coverage_weight", "0")
	both0, half0 := scoreOf(t, db, "alpha beta", "cov/both"), scoreOf(t, db, "alpha beta", "cov/alpha")
	setSetting(t, db, "coverage_weight", "1")
	both1, half1 := scoreOf(t, db, "alpha beta", "cov/both"), scoreOf(t, db, "alpha beta", "cov/alpha")
	if math.Abs(both1/both0-2) > 1e-9 {
		t.Errorf("chunk holding every term: score %v with coverage_weight 1, %v with 0; want twice", both1, both0)
	}
	if math.Abs(half1/half0-1.25) > 1e-9 {
		t.Errorf("chunk holding half the idf: score %v with coverage_weight 1, %v with 0; want 1.25 times", half1, half0)
	}

	q := "Python XML template engine"
	if a, b := scoreOf(t, db, q, "pkg/python3-kid"), scoreOf(t, db, q, "pkg/ruby-kid"); a != b {
		t.Fatalf("without title affinity the two pages should tie (same text, titles hold no query word): %v vs %v", a, b)
	}
	// title_unexplained: each title word the query does not account for
	// multiplies the score by 1 - title_unexplained ("extra", "doc").
	qk := "Kid XML template engine"
	kid0, extras0 := scoreOf(t, db, qk, "pkg/kid"), scoreOf(t, db, qk, "pkg/kid-extra-doc")
	setSetting(t, db, "title_unexplained", "0.1")
	kid1, extras1 := scoreOf(t, db, qk, "pkg/kid"), scoreOf(t, db, qk, "pkg/kid-extra-doc")
	if math.Abs(kid1/kid0-1) > 1e-9 {
		t.Errorf("title_unexplained 0.1: %q scores pkg/kid %v, %v with 0; its title is all query words, want no change", qk, kid1, kid0)
	}
	if math.Abs(extras1/extras0-0.81) > 1e-9 {
		t.Errorf("title_unexplained 0.1: %q scores pkg/kid-extra-doc %v, %v with 0; want 0.9² = 0.81 times (two unexplained title words)", qk, extras1, extras0)
	}
	setSetting(t, db, "title_unexplained", "0")
	for _, s := range []string{"title_affinity", "title_coverage"} {
		setSetting(t, db, s, "0.25")
		if a, b := scoreOf(t, db, q, "pkg/python3-kid"), scoreOf(t, db, q, "pkg/ruby-kid"); !(a > b) {
			t.Errorf("%q with %s 0.25: python3-kid scores %v, ruby-kid %v; the title naming Python should win", q, s, a, b)
		}
		setSetting(t, db, s, "0")
	}
	// meta says whether the title terms ran, and for how many chunks.
	titleScored := func() (n, candidates int) {
		t.Helper()
		if err := db.QueryRow(ctx(t), `SELECT (meta->>'title_scored')::int, (meta->>'candidates')::int
			FROM brain.keyword_scan($1, 10) WHERE chunk_id IS NULL`, q).Scan(&n, &candidates); err != nil {
			t.Fatalf("keyword_scan meta for %q: %v", q, err)
		}
		return n, candidates
	}
	if n, _ := titleScored(); n != 0 {
		t.Errorf("title settings 0: meta title_scored = %d, want 0", n)
	}
	setSetting(t, db, "title_coverage", "0.3")
	setSetting(t, db, "title_depth", "1")
	if n, c := titleScored(); c < 2 || n != c {
		t.Errorf("title_depth 1, lim 10, %d candidates: meta title_scored = %d, want all of them (at least lim)", c, n)
	}
	if _, err := db.Exec(ctx(t), `DELETE FROM brain.config WHERE key LIKE 'search.%'`); err != nil {
		t.Fatal(err)
	}
	top := slugs(hybridRows(t, db, `SELECT slug, chunk_index, chunk_source, score, keyword_rank, vector_rank FROM brain.hybrid_search($1, NULL, 1)`, q))
	if len(top) != 1 || top[0] != "pkg/python3-kid" {
		t.Errorf("%q: first result %v, want pkg/python3-kid", q, top)
	}
}

// A word only the title holds scores the same whatever the length of the
// chunk: the title is the page's, repeated in each of its chunks. A query
// of a title word shows the page's compiled truth, not its short timeline,
// and two pages titled alike tie whatever their lengths; a word of the
// text still counts more in a shorter chunk.
func TestTitleOnlyWordIsNotLengthNormalised(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	long := "stripes " + strings.Repeat("people walk across the road safely where lines are painted ", 8)
	seed(t, db, []page{
		{slug: "zc", title: "Zebra Crossing", chunks: []chunk{{ct, long, v}, {tl, "2024-01-02: painted again", v}}},
		{slug: "zz/short", title: "Zebra", chunks: []chunk{{ct, "stripes", v}}},
		{slug: "zz/long", title: "Zebra", chunks: []chunk{{ct, long, v}}},
	})
	var source string
	if err := db.QueryRow(ctx(t), `SELECT c.chunk_source FROM brain.search('zebra crossing', embed => false) s
		JOIN brain.chunks c ON c.id = s.chunk_id WHERE s.slug = 'zc'`).Scan(&source); err != nil {
		t.Fatal(err)
	}
	if source != ct {
		t.Errorf("query of the title's words shows the %s chunk, want the compiled truth", source)
	}
	if a, b := scoreOf(t, db, "zebra", "zz/short"), scoreOf(t, db, "zebra", "zz/long"); a != b {
		t.Errorf("a word only titles hold: short page %v, long page %v; want a tie", a, b)
	}
	if a, b := scoreOf(t, db, "stripes", "zz/short"), scoreOf(t, db, "stripes", "zz/long"); a <= b {
		t.Errorf("a word of the text: short page %v, long page %v; want the shorter higher", a, b)
	}
	// A mention in the text adds to the title's word, however long the
	// chunk: the page whose text also says "zebra" is not below the one
	// whose text does not.
	seed(t, db, []page{
		{slug: "zm/mentions", title: "Okapi", chunks: []chunk{{ct, "the okapi " + long, v}}},
		{slug: "zm/silent", title: "Okapi", chunks: []chunk{{ct, "the animal " + long, v}}},
	})
	if a, b := scoreOf(t, db, "okapi", "zm/mentions"), scoreOf(t, db, "okapi", "zm/silent"); a <= b {
		t.Errorf("a title word the long text also holds: %v, against %v where only the title holds it; want it higher", a, b)
	}
}

// TestWordProximity checks the proximity factor: a chunk where two
// neighbouring query words stand close together (adjacent in either order,
// or the second within three words after the first) scores 1 + proximity
// times a chunk holding the same words apart, and a one-word query is
// unchanged.
func TestWordProximity(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	// Same words, same length: BM25 cannot tell these chunks apart.
	tests := []struct {
		slug, text string
		near       bool
	}{
		{"prox/adjacent", "kestrel marmot alpha bravo charlie delta echo", true},
		{"prox/reversed", "marmot kestrel alpha bravo charlie delta echo", true},
		{"prox/gap3", "kestrel alpha bravo marmot charlie delta echo", true},
		{"prox/gap4", "kestrel alpha bravo charlie marmot delta echo", false},
		{"prox/reversed-gap2", "marmot alpha kestrel bravo charlie delta echo", false},
		{"prox/apart", "kestrel alpha bravo charlie delta echo marmot", false},
	}
	// A hyphenated word is one group whose parts stand in a row: near
	// its neighbour like a plain word, written hyphenated (the compound's
	// parts follow its own lexeme in the chunk) or spaced. Each "apart"
	// chunk holds the same words as the chunks before it.
	const hq = "falcon heron-egret"
	hyphen := []struct {
		slug, text string
		near       bool
	}{
		{"hyph/adjacent", "falcon heron-egret golf hotel india juliet", true},
		{"hyph/reversed", "heron-egret falcon golf hotel india juliet", true},
		{"hyph/apart", "heron-egret golf hotel india juliet falcon", false},
		{"spaced/adjacent", "falcon heron egret golf hotel india juliet", true},
		{"spaced/reversed", "heron egret falcon golf hotel india juliet", true},
		{"spaced/apart", "falcon golf hotel india juliet heron egret", false},
	}
	var pages []page
	for _, tt := range tests {
		pages = append(pages, page{slug: tt.slug, title: "Page", chunks: []chunk{{ct, tt.text, v}}})
	}
	for _, tt := range hyphen {
		pages = append(pages, page{slug: tt.slug, title: "Page", chunks: []chunk{{ct, tt.text, v}}})
	}
	seed(t, db, pages)
	const q = "kestrel marmot"
	apart := scoreOf(t, db, q, "prox/apart")
	for _, tt := range tests {
		want := apart
		if tt.near {
			want = apart * 1.2
		}
		if got := scoreOf(t, db, q, tt.slug); math.Abs(got/want-1) > 1e-9 {
			t.Errorf("%q in %q (%s): score %v, want %v (near: %v, default proximity 0.2)", q, tt.text, tt.slug, got, want, tt.near)
		}
	}
	for _, tt := range hyphen {
		form, _, _ := strings.Cut(tt.slug, "/")
		want := scoreOf(t, db, hq, form+"/apart")
		if tt.near {
			want *= 1.2
		}
		if got := scoreOf(t, db, hq, tt.slug); math.Abs(got/want-1) > 1e-9 {
			t.Errorf("%q in %q (%s): score %v, want %v (near: %v)", hq, tt.text, tt.slug, got, want, tt.near)
		}
	}
	if a, b := scoreOf(t, db, "kestrel", "prox/adjacent"), scoreOf(t, db, "kestrel", "prox/apart"); a != b {
		t.Errorf("one-word query: %v and %v, want equal scores (no word pairs)", a, b)
	}
	setSetting(t, db, "proximity", "0")
	if a, b := scoreOf(t, db, q, "prox/adjacent"), scoreOf(t, db, q, "prox/apart"); a != b {
		t.Errorf("proximity 0: %v and %v, want equal scores", a, b)
	}
	var n int
	if err := db.QueryRow(ctx(t), `SELECT cardinality(brain.near_pairs((brain.parse_query($1)).groups))`,
		`real-time "quoted words" file -excluded system, events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	// groups: real-time, file, system, events (phrases and negations are not groups)
	if n != 3 {
		t.Errorf("brain.near_pairs of four word groups: %d pairs, want 3", n)
	}
	// brain.query_bound counts each CJK character as a word, so a long run
	// is cut like any long query; words joined by punctuation the cut does
	// not know (a middle dot) are one word to it but a group each to the
	// parser, and near_pairs still pairs the first 32 groups only.
	var cjk, dotted strings.Builder
	for r := rune(0x4e00); r < 0x4e00+60; r++ {
		cjk.WriteRune(r) // 60 distinct characters: 59 distinct bigrams
	}
	for i := 1; i <= 40; i++ {
		if i > 1 {
			dotted.WriteString("·")
		}
		fmt.Fprintf(&dotted, "w%d", i)
	}
	for _, tt := range []struct {
		q          string
		maxGroups  int // at most this many groups reach near_pairs
		overGroups int // the fixture holds more than this many groups
	}{
		{cjk.String(), 32, 0},
		{dotted.String(), 1000, 32},
	} {
		var groups, pairs int
		if err := db.QueryRow(ctx(t), `SELECT cardinality(g), cardinality(brain.near_pairs(g)) FROM (SELECT (brain.parse_query($1)).groups) x (g)`, tt.q).Scan(&groups, &pairs); err != nil {
			t.Fatal(err)
		}
		if groups > tt.maxGroups || groups <= tt.overGroups || pairs > 31 || pairs != min(groups, 32)-1 {
			t.Errorf("%.20q...: %d groups, %d pairs; want more than %d and at most %d groups, and min(groups, 32) - 1 pairs", tt.q, groups, pairs, tt.overGroups, tt.maxGroups)
		}
	}
}

// brain.search_setting reads numbers in every usual spelling and refuses
// anything else by naming the key, instead of failing every search with a
// bare cast error.
func TestSearchSettingValues(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	for _, tt := range []struct {
		value string
		want  float64
		bad   bool
	}{
		{"0.3", 0.3, false},
		{" 2 ", 2, false},
		{"-1", -1, false},
		{".5", 0.5, false},
		{"1e-1", 0.1, false},
		{"+4.", 4, false},
		{"abc", 0, true},
		{"", 0, true},
		{"0,3", 0, true},
		{"NaN", 0, true},
		{"1; DROP TABLE brain.pages", 0, true},
		{"1e999", 0, true},
		{"1e-400", 0, true},
	} {
		setSetting(t, db, "proximity", tt.value)
		var got float64
		err := db.QueryRow(ctx(t), `SELECT brain.search_setting('proximity')`).Scan(&got)
		if tt.bad {
			if err == nil || !strings.Contains(err.Error(), "brain.config key search.proximity holds") {
				t.Errorf("search.proximity = %q: %v, %v; want an error naming the key", tt.value, got, err)
			}
			var searchErr error
			_, searchErr = db.Exec(ctx(t), `SELECT count(*) FROM brain.search('kestrel marmot')`)
			if searchErr == nil || !strings.Contains(searchErr.Error(), "search.proximity") {
				t.Errorf("search with search.proximity = %q: %v; want the error naming the key", tt.value, searchErr)
			}
			continue
		}
		if err != nil || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("search.proximity = %q: %v, %v; want %v", tt.value, got, err, tt.want)
		}
	}
}

// brain.search_settings is what a search reads, all knobs at once: it must
// agree with brain.search_setting on every knob, follow the embedder's
// defaults and the overrides stored, and ignore a brain.config key under
// "search." that names no knob.
func TestSearchSettingsAgree(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	setSetting(t, db, "bm25_k1", "0.9")
	setSetting(t, db, "no_such_knob", "not a number")
	check := func(embedder string, want map[string]float64) {
		t.Helper()
		var raw []byte
		if err := db.QueryRow(ctx(t), `SELECT brain.search_settings()`).Scan(&raw); err != nil {
			t.Fatalf("embedder %s: search_settings: %v", embedder, err)
		}
		var all map[string]any
		if err := json.Unmarshal(raw, &all); err != nil {
			t.Fatalf("embedder %s: %s: %v", embedder, raw, err)
		}
		if len(all) < 21 {
			t.Errorf("embedder %s: %d knobs, want every knob (21): %s", embedder, len(all), raw)
		}
		if _, ok := all["no_such_knob"]; ok {
			t.Errorf("embedder %s: an unknown key became a knob: %s", embedder, raw)
		}
		for name := range all {
			var one, fromAll float64
			if err := db.QueryRow(ctx(t), `SELECT brain.search_setting($1), (brain.search_settings() ->> $1)::float8`, name).Scan(&one, &fromAll); err != nil {
				t.Fatalf("embedder %s: %s: %v", embedder, name, err)
			}
			if one != fromAll {
				t.Errorf("embedder %s: %s: search_setting %v, search_settings %v", embedder, name, one, fromAll)
			}
			if w, ok := want[name]; ok && one != w {
				t.Errorf("embedder %s: %s = %v, want %v", embedder, name, one, w)
			}
		}
	}
	check("local", map[string]float64{"bm25_k1": 0.9, "rrf_k": 10, "vector_weight": 0.25, "vector_fill_only": 1, "keyword_candidates": 400})
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.config (key, value) VALUES ('embedder', 'openai')
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`); err != nil {
		t.Fatal(err)
	}
	check("openai", map[string]float64{"bm25_k1": 0.9, "rrf_k": 60, "vector_weight": 1, "vector_fill_only": 0})
	if _, err := db.Exec(ctx(t), `SELECT count(*) FROM brain.search('kestrel marmot', embed => false)`); err != nil {
		t.Errorf("search with an unknown search.* key stored: %v", err)
	}
}

// An override out of a knob's range is refused like one that is not a
// number, naming the key, instead of dividing by zero or turning a weight
// around; the edges of each range are accepted.
func TestSearchSettingRanges(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	for _, tt := range []struct {
		name, value string
		bad         bool
	}{
		{"bm25_k1", "-1", true},
		{"bm25_k1", "0", false},
		{"bm25_b", "-0.1", true},
		{"bm25_b", "1.5", true},
		{"bm25_b", "0", false},
		{"bm25_b", "1", false},
		{"rrf_k", "0", true},
		{"rrf_k", "-10", true},
		{"type_share", "0", true},
		{"vector_weight", "-0.5", true},
		{"keyword_weight", "0", false},
		{"title_weight", "-2", true},
		{"timeline_weight", "-1", true},
		{"title_depth", "-1e10", false}, // counts are clamped, not refused
		{"title_names", "-1e10", false},
		{"keyword_candidates_max", "-1e10", false},
		{"title_exact", "-1", true},
		{"title_exact", "1e308", false}, // clamped where it is read
	} {
		setSetting(t, db, tt.name, tt.value)
		_, err := db.Exec(ctx(t), `SELECT count(*) FROM brain.search('kestrel marmot', embed => false)`)
		if tt.bad {
			if err == nil || !strings.Contains(err.Error(), "brain.config key search."+tt.name+" holds") {
				t.Errorf("search.%s = %s: %v; want an error naming the key", tt.name, tt.value, err)
			}
		} else if err != nil {
			t.Errorf("search.%s = %s: %v; want it accepted", tt.name, tt.value, err)
		}
		if _, err := db.Exec(ctx(t), `DELETE FROM brain.config WHERE key = 'search.' || $1`, tt.name); err != nil {
			t.Fatal(err)
		}
	}
}

// A query that is a page's title names that page: "C" and "C++" read as
// the same lexeme, and the C++ page says it more often, but each query
// puts the page titled with it first; title_exact 0 turns it off, and a
// query that is not a whole title gets nothing.
func TestQueryThatIsATitle(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	seed(t, db, []page{
		{slug: "c", title: "C", chunks: []chunk{{ct, "A general-purpose programming language by Ritchie, with pointers.", v}}},
		{slug: "c++", title: "C++", chunks: []chunk{{ct, "C++ extends C with classes; C++ compilers compile most C programs.", v}}},
		{slug: "ledger", title: "Kumquat  Ledger", chunks: []chunk{{ct, "Accounts of the fruit stall.", v}}},
	})
	first := func(q string) string {
		t.Helper()
		var slug string
		if err := db.QueryRow(ctx(t), `SELECT slug FROM brain.search($1, embed => false) WHERE slug IS NOT NULL LIMIT 1`, q).Scan(&slug); err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return slug
	}
	for q, want := range map[string]string{"C": "c", "c++": "c++", " \"C\" ": "c", "C++": "c++"} {
		if got := first(q); got != want {
			t.Errorf("search %q: first %s, want %s", q, got, want)
		}
	}
	// The page titled C is found and put first however many chunks say
	// "C" more often (more than title_depth of them rank above it), and a
	// -word or a question mark does not hide the title in the query.
	var many []page
	for i := 0; i < 60; i++ {
		many = append(many, page{slug: fmt.Sprintf("code/%02d", i), title: fmt.Sprintf("Snippet %d", i),
			chunks: []chunk{{ct, "C code, C again, C C.", v}}})
	}
	seed(t, db, many)
	for _, q := range []string{"C", "C?", "C -java"} {
		if got := first(q); got != "c" {
			t.Errorf("search %q among 60 chunks saying C: first %s, want c", q, got)
		}
	}
	// Titles that end with punctuation, or write a Greek final sigma, are
	// looked up too: the 60 chunks saying the word outrank them otherwise.
	var more []page
	for i := 0; i < 60; i++ {
		more = append(more, page{slug: fmt.Sprintf("mention/%02d", i), title: fmt.Sprintf("Mention %d", i),
			chunks: []chunk{{ct, "yahoo yahoo yahoo, σοφίας σοφίας σοφίας.", v}}})
	}
	seed(t, db, append(more,
		page{slug: "yahoo", title: "Yahoo!", chunks: []chunk{{ct, "A web portal.", v}}},
		page{slug: "sofia", title: "σοφίας", chunks: []chunk{{ct, "Wisdom.", v}}}))
	for q, want := range map[string]string{"Yahoo!": "yahoo", "yahoo": "yahoo", "σοφίας": "sofia", "ΣΟΦΊΑΣ": "sofia"} {
		if got := first(q); got != want {
			t.Errorf("search %q among 60 chunks saying it: first %s, want %s", q, got, want)
		}
	}
	exact, other := scoreOf(t, db, "kumquat ledger", "ledger"), scoreOf(t, db, "kumquat", "ledger")
	setSetting(t, db, "title_exact", "0")
	if got := first("C"); got != "c++" {
		t.Errorf("search C with title_exact 0: first %s, want c++ (the page that says it more)", got)
	}
	exact0, other0 := scoreOf(t, db, "kumquat ledger", "ledger"), scoreOf(t, db, "kumquat", "ledger")
	if math.Abs(exact/exact0-2) > 1e-9 || other != other0 {
		t.Errorf("title_exact 1 against 0: the whole title %v / %v (want twice), a part of it %v / %v (want equal)", exact, exact0, other, other0)
	}
}

// A page an agent may not see gives it nothing through the title factor:
// it is not looked up for the agent, nor does it move the ranking, so the
// withheld count of the first place does not confirm a guess at its title;
// and the query's -words are left out of the title it is compared with
// just as the parser reads them ("-12" is a number, kept).
func TestQueryThatIsATitleRespectsRowSecurity(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	seed(t, db, []page{
		{slug: "hidden/quokka", title: "Quokka", chunks: []chunk{{ct, "A marsupial of Rottnest.", v}}},
		{slug: "visible/quokka-facts", title: "Quokka facts", chunks: []chunk{{ct, "Quokka facts: the quokka smiles; quokka quokka.", v}}},
		{slug: "offset", title: "Offset bytes", chunks: []chunk{{ct, "Offsets.", v}}},
		{slug: "seek", title: "Seek", chunks: []chunk{{ct, "seek to offset -12 bytes from the end", v}}},
	})
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.page_pii (page_id, categories)
		SELECT id, CASE WHEN slug = 'hidden/quokka' THEN '{credential}'::text[] ELSE '{}' END FROM brain.pages`); err != nil {
		t.Fatal(err)
	}
	var all, visible []int64
	if err := db.QueryRow(ctx(t), `SELECT brain.title_exact_chunks('quokka'), brain.title_exact_chunks('quokka', visible_only => true)`).Scan(&all, &visible); err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || len(visible) != 0 {
		t.Errorf("title_exact_chunks('quokka'): %v for everyone, %v visible only; want the hidden page's chunk, then none", all, visible)
	}
	withheldFirst := func() float64 {
		t.Helper()
		tx, err := db.Begin(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx(t))
		if _, err := tx.Exec(ctx(t), `SET LOCAL ROLE pgbrain_agent`); err != nil {
			t.Fatal(err)
		}
		var n float64
		if err := tx.QueryRow(ctx(t), `SELECT (meta -> 'withheld' ->> 'pages')::float8 FROM brain.keyword_scan('quokka', 1) WHERE chunk_id IS NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	with := withheldFirst()
	setSetting(t, db, "title_exact", "0")
	without := withheldFirst()
	setSetting(t, db, "title_exact", "1")
	if with != without {
		t.Errorf("an agent's first place withholds %v pages with title_exact 1 and %v with 0; a hidden title must not move it", with, without)
	}
	var first string
	if err := db.QueryRow(ctx(t), `SELECT slug FROM brain.search('offset -12 bytes', embed => false) WHERE slug IS NOT NULL LIMIT 1`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	if first != "seek" {
		t.Errorf("search 'offset -12 bytes': first %s, want seek (-12 is a word of the query, so the query is no title)", first)
	}
}

// brain.title_key: the form a title and a whole query are compared in.
func TestTitleKeyForms(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	for in, want := range map[string]string{
		"C++":                     "c++",
		"  \"Kumquat  Ledger\"  ": "kumquat ledger",
		"Why?":                    "why",
		"Yahoo!":                  "yahoo",
		"ΣΟΦΊΑΣ":                  "σοφίασ",
		"σοφίας":                  "σοφίασ",
		"「東京」":                    "東京",
		"東京？":                     "東京",
		"会議。":                     "会議",
		"a\u00a0b\tc":             "a b c",
		"C#":                      "c#",
	} {
		var got string
		if err := db.QueryRow(ctx(t), `SELECT brain.title_key($1)`, in).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("title_key(%q) = %q, want %q", in, got, want)
		}
	}
}

// A page an agent may not see neither joins the exact-title candidates nor
// fills their cap of 20: with 20 visible pages titled "Wombat", one hidden
// one and 60 chunks saying "wombat" more often, the agent's first answer is
// a page titled Wombat (looked up), as the owner's is.
func TestExactTitleCapCountsVisiblePagesOnly(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	var pages []page
	for i := 0; i < 20; i++ {
		pages = append(pages, page{slug: fmt.Sprintf("titled/%02d", i), title: "Wombat", chunks: []chunk{{ct, fmt.Sprintf("Entry %d of the register.", i), v}}})
	}
	pages = append(pages, page{slug: "hidden/wombat", title: "Wombat", chunks: []chunk{{ct, "The secret register.", v}}})
	for i := 0; i < 60; i++ {
		pages = append(pages, page{slug: fmt.Sprintf("mention/%02d", i), title: fmt.Sprintf("Mention %d", i), chunks: []chunk{{ct, "wombat wombat wombat, a wombat.", v}}})
	}
	seed(t, db, pages)
	if _, err := db.Exec(ctx(t), `INSERT INTO brain.page_pii (page_id, categories)
		SELECT id, CASE WHEN slug = 'hidden/wombat' THEN '{credential}'::text[] ELSE '{}' END FROM brain.pages`); err != nil {
		t.Fatal(err)
	}
	firstAs := func(role string) string {
		t.Helper()
		tx, err := db.Begin(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx(t))
		if role != "" {
			if _, err := tx.Exec(ctx(t), `SET LOCAL ROLE `+role); err != nil {
				t.Fatal(err)
			}
		}
		var slug string
		if err := tx.QueryRow(ctx(t), `SELECT p.slug FROM brain.keyword_search('Wombat', 1) k JOIN brain.pages p ON p.id = k.page_id`).Scan(&slug); err != nil {
			t.Fatal(err)
		}
		return slug
	}
	if got := firstAs("pgbrain_agent"); !strings.HasPrefix(got, "titled/") {
		t.Errorf("agent's first answer to Wombat: %s; want a visible page titled Wombat (the hidden one must not fill the cap)", got)
	}
	// The owner sees 21 pages titled Wombat: past the cap, none is looked up.
	if got := firstAs(""); !strings.HasPrefix(got, "mention/") {
		t.Errorf("owner's first answer to Wombat: %s; want a mention (21 titles pass the cap of 20)", got)
	}
}
