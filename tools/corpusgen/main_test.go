package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func lowerWords(s string) []string {
	ws := wordRE.FindAllString(s, -1)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return ws
}

// wordSeq normalises text to a space-separated word sequence, so phrase
// matching ignores punctuation and case the way a search engine would.
func wordSeq(s string) string {
	return " " + strings.Join(lowerWords(s), " ") + " "
}

func TestGenerate(t *testing.T) {
	src, err := readSource("../../sample/brain")
	if err != nil {
		t.Fatalf("readSource: %v", err)
	}
	cfg := config{pages: 400, seed: 7, queries: "q.json", nQueries: 150}
	c, err := generate(src, cfg)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	again, err := generate(src, cfg)
	if err != nil {
		t.Fatalf("generate again: %v", err)
	}
	if !reflect.DeepEqual(c, again) {
		t.Fatal("same seed gave a different corpus")
	}

	if len(c.pages) != cfg.pages || len(c.queries) != cfg.nQueries {
		t.Fatalf("got %d pages and %d queries, want %d and %d", len(c.pages), len(c.queries), cfg.pages, cfg.nQueries)
	}
	slugs := map[string]bool{}
	pageWords := map[string]string{}
	for _, p := range c.pages {
		if slugs[p.slug] {
			t.Errorf("duplicate slug %s", p.slug)
		}
		slugs[p.slug] = true
		body := stripFrontmatter(p.body)
		prose, _, _ := strings.Cut(body, "## Timeline")
		if n := len(strings.Fields(prose)); n < minWords || n > maxWords+200 {
			t.Errorf("%s: %d words", p.slug, n)
		}
		pageWords[p.slug] = wordSeq(body)
	}

	// A known-item phrase must occur on its page and on no other.
	for _, q := range c.queries {
		if n := len(strings.Fields(q.Query)); n < 4 || n > 8 {
			t.Errorf("%s: %q has %d words, want 4-8", q.QueryID, q.Query, n)
		}
		needle := wordSeq(q.Query)
		var hits []string
		for _, p := range c.pages {
			if strings.Contains(pageWords[p.slug], needle) {
				hits = append(hits, p.slug)
			}
		}
		if len(hits) != 1 || hits[0] != q.FirstRelevantSlug {
			t.Errorf("%s: %q found on %v, want only %s", q.QueryID, q.Query, hits, q.FirstRelevantSlug)
		}
	}
}

func TestWritePagesRemovesStale(t *testing.T) {
	dir := t.TempDir()
	first := []page{{slug: "bench/a-b-c", body: "x\n"}, {slug: "bench/d-e-f", body: "y\n"}}
	if _, err := writePages(dir, first); err != nil {
		t.Fatal(err)
	}
	if _, err := writePages(dir, first[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bench", "d-e-f.md")); !os.IsNotExist(err) {
		t.Errorf("stale page survived: %v", err)
	}
}

func TestSplitSentences(t *testing.T) {
	got := splitSentences("Use a Reader, e.g. bufio. It reads. Does it? Yes!")
	want := []string{"Use a Reader, e.g. bufio.", "It reads.", "Does it?", "Yes!"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("splitSentences = %q, want %q", got, want)
	}
}
