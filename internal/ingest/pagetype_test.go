package ingest_test

import (
	"context"
	"testing"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
)

// A page's type comes from its frontmatter or its first folder, in any
// script: a folder "Café" is the type "café" (not "caf"), "東京" is "東京"
// (not "page"), and `list --type` finds them as they are written.
func TestImportTypesInEveryScript(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Café/menu.md": "# Menu\n\ncoffee\n",
		"東京/会議.md":     "# 会議\n\n打ち合わせ\n",
		"Ελληνικά/σημειώσεις.md": "# Σημειώσεις\n\nγλώσσα\n",
		"📚 Reading/book.md":      "# Book\n\npages\n",
		"plain.md":               "# Plain\n\ntop level\n",
		"typed.md":               "---\ntype: Réunion Hebdo\n---\n# Typed\n\nfrontmatter\n",
		"weird.md":               "---\ntype: \"\\u200b!!\\u00a0\"\n---\n# Weird\n\nnothing left\n",
	})
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 7 || sum.Failed != 0 {
		t.Fatalf("summary = %+v, want 7 pages added", sum)
	}
	want := map[string]string{
		"café/menu":           "café",
		"東京/会議":               "東京",
		"ελληνικά/σημειώσεις": "ελληνικά",
		"📚-reading/book":      "📚-reading",
		"plain":               "page",
		"typed":               "réunion-hebdo",
		"weird":               "page",
	}
	for slug, typ := range want {
		var got string
		if err := b.Pool.QueryRow(ctx, `SELECT type FROM brain.pages WHERE slug = $1`, slug).Scan(&got); err != nil {
			t.Errorf("page %s: %v", slug, err)
			continue
		}
		if got != typ {
			t.Errorf("page %s has type %q, want %q", slug, got, typ)
		}
	}
	for _, tt := range []struct{ filter, slug string }{
		{"café", "café/menu"},
		{"Café", "café/menu"},
		{"Cafe\u0301", "café/menu"},
		{"東京", "東京/会議"},
		{"Réunion Hebdo", "typed"},
		{"ΕΛΛΗΝΙΚΆ", "ελληνικά/σημειώσεις"},
		{"???", ""}, // no letter: nothing, not every "page"
	} {
		var slugs []string
		if err := b.ListPages(ctx, brain.ListFilter{Type: tt.filter}, func(p brain.PageSummary) error {
			slugs = append(slugs, p.Slug)
			return nil
		}); err != nil {
			t.Fatalf("list --type %q: %v", tt.filter, err)
		}
		if tt.slug == "" {
			if len(slugs) != 0 {
				t.Errorf("list --type %q = %v, want nothing", tt.filter, slugs)
			}
			continue
		}
		if len(slugs) != 1 || slugs[0] != tt.slug {
			t.Errorf("list --type %q = %v, want [%s]", tt.filter, slugs, tt.slug)
		}
	}
	// The CHECK refuses what no import stores.
	for _, bad := range []string{"Café", "a b", "-x", "x.y", "", "a\u200bb"} {
		if _, err := b.Pool.Exec(ctx, `UPDATE brain.pages SET type = $1 WHERE slug = 'plain'`, bad); err == nil {
			t.Errorf("brain.pages accepted the type %q", bad)
		}
	}
	// Re-import changes nothing.
	again, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Updated != 0 {
		t.Errorf("re-import = %+v, want nothing added or updated", again)
	}
}
