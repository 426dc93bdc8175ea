package search

import (
	"context"
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/testdb"
)

// cjkRun is n distinct CJK characters.
func cjkRun(n int) string {
	var b strings.Builder
	for r := rune(0x4e00); r < 0x4e00+rune(n); r++ {
		b.WriteRune(r)
	}
	return b.String()
}

// brain.query_bound keeps the text before the 33rd distinct word or the
// 129th word, at most 4,096 characters, whatever the script.
func TestQueryBound(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", i)
		}
		return strings.Join(w, " ")
	}
	tests := []struct {
		name  string
		q     string
		kept  string
		words int
		cut   bool
	}{
		{"empty", "", "", 0, false},
		{"short", `"e-mail client" -webmail OR imap?`, `"e-mail client" -webmail OR imap?`, 6, false},
		{"32 distinct words", words(32), words(32), 32, false},
		{"33rd word cut", words(33) + "!", words(32), 33, true},
		{"128 words at most", strings.Repeat("a b ", 100), strings.TrimSpace(strings.Repeat("a b ", 64)), 2, true},
		{"repeats then the character cap", strings.Repeat("Mail mail MAIL! ", 4000), strings.Repeat("Mail mail MAIL! ", 42) + "Mail mail", 1, true},
		{"punctuation kept in the prefix", words(32) + ", (w0) w32 w33", words(32) + ", (w0", 34, true},
		{"Greek, accents and emoji", "σοφός café 🍣 " + words(31) + " extra", "σοφός café 🍣 " + words(29), 35, true},
		{"ASCII punctuation separates", "a.b,c;d:e!f?g(h)i[j]k{l}m<n>o'p\"q", "a.b,c;d:e!f?g(h)i[j]k{l}m<n>o'p\"q", 17, false},
		{"a CJK character is a word", strings.Repeat("東京", 3000), strings.Repeat("東京", 64), 2, true},
		{"33rd distinct CJK character cut", cjkRun(40), cjkRun(32), 40, true},
		{"general and CJK punctuation separate", "w1—w2–w3…w4「w5」w6、w7。w8！w9", "w1—w2–w3…w4「w5」w6、w7。w8！w9", 9, false},
		{"all of the fullwidth block's punctuation separates", "w1～w2［w3］w4｛w5｝w6＿w7｀w8｡w9｢w10｣w11､w12･w13￥w14", "w1～w2［w3］w4｛w5｝w6＿w7｀w8｡w9｢w10｣w11､w12･w13￥w14", 14, false},
		{"fullwidth digits are word characters", "１０～１２ ０", "１０～１２ ０", 3, false},
		{"one 50,000-character word", strings.Repeat("x", 50000), strings.Repeat("x", 4096), 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kept string
			var n int
			var cut bool
			if err := b.Pool.QueryRow(ctx(t), `SELECT kept, words, cut FROM brain.query_bound($1)`, tt.q).Scan(&kept, &n, &cut); err != nil {
				t.Fatal(err)
			}
			if kept != tt.kept || n != tt.words || cut != tt.cut {
				t.Errorf("query_bound: kept %q (%d chars), %d words, cut %v; want %q (%d chars), %d, %v",
					abbreviate(kept), len([]rune(kept)), n, cut, abbreviate(tt.kept), len([]rune(tt.kept)), tt.words, tt.cut)
			}
		})
	}
}

// debianPages is how many Debian package descriptions debianFixture holds:
// enough for the planner to prefer the GIN and HNSW indexes over scans
// (TestAgentSearchPlansUseTheIndexes) and for the corpus's 500 most common
// words to fill a 50,000-character query with real text
// (TestHugeQueryIsBounded).
const debianPages = 3000

// debian is the corpus behind debianFixture, read once per test binary.
var debian struct {
	once   sync.Once
	docs   []ingest.Doc
	common []string // the corpus's 500 most common words, most common first
}

// debianCorpus reads debianPages Debian package descriptions (real text
// nobody here wrote) into pages, and counts their words.
func debianCorpus(t *testing.T) ([]ingest.Doc, []string) {
	t.Helper()
	debian.once.Do(func() {
		pages := testdb.DebianPages(t, debianPages)
		docs := make([]ingest.Doc, 0, len(pages))
		freq := map[string]int{}
		word := regexp.MustCompile(`[a-z]{3,}`)
		for name, body := range pages {
			docs = append(docs, ingest.Doc{Slug: strings.TrimSuffix(name, ".md"), Data: []byte(body)})
			for _, w := range word.FindAllString(strings.ToLower(body), -1) {
				freq[w]++
			}
		}
		sort.Slice(docs, func(i, j int) bool { return docs[i].Slug < docs[j].Slug })
		common := make([]string, 0, len(freq))
		for w := range freq {
			common = append(common, w)
		}
		sort.Slice(common, func(i, j int) bool {
			return freq[common[i]] > freq[common[j]] || freq[common[i]] == freq[common[j]] && common[i] < common[j]
		})
		debian.docs, debian.common = docs, common[:500]
	})
	if debian.docs == nil {
		t.Fatal("the Debian package descriptions could not be read: see the first test that asked for them")
	}
	return debian.docs, debian.common
}

// debianFixture is the Debian corpus imported through the whole pipeline
// (chunks, embeddings, PII tags, statistics) once per test binary; each
// test gets a clone.
var debianFixture = &dbtest.Fixture{Name: "debian", Build: func(ctx context.Context, url string) error {
	b, err := brain.Open(ctx, url)
	if err != nil {
		return err
	}
	defer b.Close()
	if _, err := ingest.ImportDocs(ctx, b, debian.docs, ingest.Options{}); err != nil {
		return fmt.Errorf("importing the Debian corpus: %w", err)
	}
	// Plans follow statistics: take them now rather than when autovacuum
	// gets to it (a clone copies them).
	if _, err := b.Pool.Exec(ctx, `ANALYZE brain.chunks; ANALYZE brain.pages; ANALYZE brain.page_pii`); err != nil {
		return fmt.Errorf("analyzing the Debian corpus: %w", err)
	}
	return nil
}}

// debianBrain is a clone of debianFixture for t, its URL, and the corpus's
// most common words.
func debianBrain(t *testing.T) (*brain.Brain, string, []string) {
	t.Helper()
	_, common := debianCorpus(t)
	url := debianFixture.Clone(t)
	b, err := brain.Open(ctx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b, url, common
}

// commonQuery is a query of about n characters of the corpus's common
// words, in a fixed pseudo-random order.
func commonQuery(common []string, n int) string {
	r := rand.New(rand.NewSource(14))
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(common[r.Intn(len(common))])
		sb.WriteByte(' ')
	}
	return sb.String()[:n]
}

// A 50,000-character query of common words is read as its first 32
// distinct words: the parser says so, and it is answered well within a
// generous statement_timeout (the 1 s claim is measured in make bench, as
// a ratio to a short query). Before the cut such a query kept a backend
// busy for tens of seconds.
func TestHugeQueryIsBounded(t *testing.T) {
	t.Parallel()
	b, url, common := debianBrain(t)
	huge := commonQuery(common, 50000)
	agent, err := brain.OpenAs(ctx(t), url, brain.Access{Role: brain.RoleAgent, StatementTimeout: "10s"})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	for _, db := range []struct {
		name string
		b    *brain.Brain
	}{{"owner", b}, {"agent", agent}} {
		start := time.Now()
		r, err := Hybrid(ctx(t), db.b.Pool, huge, nil, Options{Limit: 10}, Tuning{})
		elapsed := time.Since(start)
		if err != nil {
			t.Fatalf("%s: a 50,000-character query: %v (after %v)", db.name, err, elapsed)
		}
		cut, _ := r.Meta.Parser["cut"].(map[string]any)
		if cut == nil || cut["words_kept"] != float64(32) || cut["words_total"].(float64) <= 32 {
			t.Errorf("%s: parser cut = %v, want 32 words kept of more", db.name, r.Meta.Parser["cut"])
		}
		if terms, _ := r.Meta.Parser["terms"].([]any); len(terms) > 3*32 || len(terms) == 0 {
			t.Errorf("%s: %d terms after the cut", db.name, len(terms))
		}
		if len(r.Results) == 0 {
			t.Errorf("%s: no results for common words", db.name)
		}
		for _, res := range r.Results {
			if len([]rune(res.Snippet)) > 1000 {
				t.Errorf("%s: snippet of %d characters", db.name, len([]rune(res.Snippet)))
			}
		}
		t.Logf("%s: 50,000-character query answered in %v", db.name, elapsed)
	}
	// The kept part alone gives the same answer: nothing past the cut is read.
	var kept string
	if err := b.Pool.QueryRow(ctx(t), `SELECT kept FROM brain.query_bound($1)`, huge).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	slugsOf := func(q string) []string {
		rows, err := b.Pool.Query(ctx(t), `SELECT slug FROM brain.search($1, embed => false) WHERE slug IS NOT NULL`, q)
		if err != nil {
			t.Fatal(err)
		}
		s, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if a, k := slugsOf(huge), slugsOf(kept); !slices.Equal(a, k) {
		t.Errorf("the huge query answers %v, its kept part %v", a, k)
	}
}

// parse_query's cut report counts the kept words as brain.query_bound
// does: each CJK character a word, CJK and fullwidth punctuation between.
func TestParseQueryCutCountsWordsLikeTheBound(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	joined := func(sep string, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", i)
		}
		return strings.Join(w, sep)
	}
	for _, tt := range []struct {
		name                   string
		q                      string
		total, kept, charsKept int
	}{
		{"spaced words", joined(" ", 40), 40, 32, len(joined(" ", 32))},
		{"CJK characters", cjkRun(40), 40, 32, 32},
		{"CJK punctuation", joined("、", 40), 40, 32, len([]rune(joined("、", 32)))},
		{"fullwidth tilde", joined("～", 40), 40, 32, len([]rune(joined("～", 32)))},
	} {
		var total, kept, chars int
		if err := b.Pool.QueryRow(ctx(t), `SELECT (c->>'words_total')::int, (c->>'words_kept')::int, (c->>'chars_kept')::int
			FROM (SELECT (brain.parse_query($1)).info->'cut') x (c)`, tt.q).Scan(&total, &kept, &chars); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if total != tt.total || kept != tt.kept || chars != tt.charsKept {
			t.Errorf("%s: cut {words_total %d, words_kept %d, chars_kept %d}, want {%d, %d, %d}", tt.name, total, kept, chars, tt.total, tt.kept, tt.charsKept)
		}
	}
}

// Words the cut counts as one ("w1·w2·…", arrows, emoji between words) can be
// many parser words: brain.parse_query reads at most 64 word groups and says
// so in its cut report, while a query within the bound is read whole.
func TestParseQueryCapsWordGroups(t *testing.T) {
	t.Parallel()
	b := dbtest.Open(t, testdb.Options{Dim: 8})
	joined := func(sep string, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", i)
		}
		return strings.Join(w, sep)
	}
	for _, tt := range []struct {
		name   string
		q      string
		groups int
		capped bool
	}{
		{"middle dots", joined("·", 300), 64, true},
		{"arrows", joined("→", 300), 64, true},
		{"emoji", joined("🍣", 300), 64, true},
		{"40 dotted words are read whole", joined("·", 40), 40, false},
		{"32 spaced words", joined(" ", 32), 32, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var groups int
			var groupsKept *int
			if err := b.Pool.QueryRow(ctx(t), `SELECT cardinality(p.groups), (p.info -> 'cut' ->> 'groups_kept')::int FROM brain.parse_query($1) p`, tt.q).Scan(&groups, &groupsKept); err != nil {
				t.Fatal(err)
			}
			if groups != tt.groups || (groupsKept != nil) != tt.capped {
				t.Errorf("%d groups, cut groups_kept %v; want %d groups, capped %v", groups, groupsKept, tt.groups, tt.capped)
			}
		})
	}
}
