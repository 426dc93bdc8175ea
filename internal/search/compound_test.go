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
	// other side of an OR; a slashed word scores through its parts, which
	// pages index too (TestSlashedWordFoundByItsParts).
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

// TestSlashedWordFoundByItsParts: PostgreSQL's parser reads "TCP/IP",
// "client/server" and "/usr/bin/foo" as one word; pages also index its
// parts (migration 026), so each part finds the page, as a slashed query
// word already matched a page's parts. And the slashed word counts once:
// through its parts, not a third time through its own lexeme, so the page
// titled exactly with it does not beat the page holding it and the
// query's rare word.
func TestSlashedWordFoundByItsParts(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, testdb.Options{Dim: 8}).Pool
	v := "[1,0,0,0,0,0,0,0]"
	pages := []page{
		{slug: "net/stack", title: "stack", chunks: []chunk{{ct, "Sets up TCP/IP for the client/server link; the tool is /usr/sbin/netsetup.", v}}},
		{slug: "net/router", title: "router", chunks: []chunk{{ct, "A router forwards packets between networks.", v}}},
		{slug: "net/packets", title: "packets", chunks: []chunk{{ct, "TCP carries IP packets: TCP retries, IP routes, TCP orders, IP fragments.", v}}},
		{slug: "pkg/pgp/mime", title: "pgp/mime", chunks: []chunk{{ct,
			"Mail signing with PGP/MIME. It supports a wide variety of languages.", v}}},
		{slug: "pkg/pgp/mime-pan", title: "pgp/mime-pan", chunks: []chunk{{ct,
			"Mail signing with PGP and MIME, for the Punjabi language.", v}}},
		// parts that stem on their own: polici, strategi
		{slug: "pkg/policy", title: "policy/strategy", chunks: []chunk{{ct,
			"Mail rules with policy/strategy. It supports a wide variety of languages.", v}}},
		{slug: "pkg/policy-pan", title: "policy/strategy-pan", chunks: []chunk{{ct,
			"Mail rules with policy and strategy, for the Punjabi language.", v}}},
		{slug: "web/guide", title: "Networks/Protocols", chunks: []chunk{{ct, "Read https://example.com/docs/guide first.", v}}},
		// file words with a dot before the slash, which are not URLs
		{slug: "build/setup", title: "init.d/ssh", chunks: []chunk{{ct, "Run ./configure and read v1.2/changes before make.", v}}},
	}
	for i := range 30 {
		pages = append(pages, page{slug: fmt.Sprintf("pkg/filler%d", i), title: fmt.Sprintf("filler%d", i),
			chunks: []chunk{{ct, "Language files for mail programs, networks and servers, and more files.", v}}})
	}
	seed(t, db, pages)
	for _, c := range []struct{ q, want string }{
		{"tcp link", "net/stack"},
		{"ip link", "net/stack"},
		{"server link", "net/stack"},
		{"netsetup", "net/stack"},
		// a query of the slashed word alone: the page saying it as
		// written, over one saying its parts more often
		{"TCP/IP", "net/stack"},
		{"pgp/mime language files for Punjabi", "pkg/pgp/mime-pan"},
		{"policy/strategy language files for Punjabi", "pkg/policy-pan"},
		{"guide", "web/guide"},
		{"configure", "build/setup"},
		{"changes", "build/setup"},
		{"ssh", "build/setup"},
	} {
		if got := keywordSlugs(t, db, c.q, 3); len(got) == 0 || got[0] != c.want {
			t.Errorf("%q: %v, want %s first", c.q, got, c.want)
		}
	}
	// The parts sit at the slashed word's own position: a phrase of a part
	// and the next word matches.
	if got := keywordSlugs(t, db, `"ip for the client"`, 3); len(got) == 0 || got[0] != "net/stack" {
		t.Errorf(`"ip for the client": %v, want net/stack first`, got)
	}
	var guide, unexplained int
	var sameVec, plainVec bool
	if err := db.QueryRow(ctx(t), `SELECT
		-- a URL is split once: its path's words, not also the whole URL's
		(SELECT cardinality(u.positions) FROM unnest(c.tsv) u WHERE u.lexeme = 'guid'),
		-- a query is embedded as pages are: with the parts
		brain.embed_local('TCP/IP') = brain.embed_tsvector(brain.slash_parts(brain.text_tsvector('TCP/IP'))),
		brain.embed_local('TCP/IP') = brain.embed_tsvector(brain.text_tsvector('TCP/IP')),
		-- the title's slashed word counts as its two words, not four
		(SELECT s.unexplained FROM brain.title_scores(ARRAY[c.id], ARRAY['network'], ARRAY[1.0::float8]) s)
		FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id WHERE p.slug = 'web/guide'`).Scan(
		&guide, &sameVec, &plainVec, &unexplained); err != nil {
		t.Fatal(err)
	}
	if guide != 1 || !sameVec || plainVec || unexplained != 1 {
		t.Errorf("guide at %d positions (want 1); embed_local with parts %v, without %v (want true, false); "+
			"Networks/Protocols for network: %d unexplained title words (want 1)", guide, sameVec, plainVec, unexplained)
	}
}
