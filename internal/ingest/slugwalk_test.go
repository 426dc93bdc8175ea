package ingest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/pgbrain/pgbrain/internal/aptfolder"
	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

func slugsOf(t *testing.T, b *brain.Brain) map[string]string {
	t.Helper()
	rows, err := b.Pool.Query(context.Background(), `SELECT slug, body FROM brain.pages WHERE source_id = 'default'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var s, body string
		if err := rows.Scan(&s, &body); err != nil {
			t.Fatal(err)
		}
		out[s] = body
	}
	return out
}

// Files whose names map to one slug all import: the first path in byte
// order keeps the plain slug, the others get the documented suffix, every
// one is named, and a re-import changes nothing.
func TestImportDirResolvesSlugCollisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	files := map[string]string{
		"x++.md":          "# x++\n\nincrement\n",
		"x.md":            "# x\n\nvariable\n",
		"A B.md":          "# A B\n\nspace\n",
		"a-b.md":          "# a-b\n\nhyphen\n",
		"Notes.md":        "# Notes\n\ncapital\n",
		"notes.md":        "# notes\n\nlower\n",
		"NOTES.md":        "# NOTES\n\nupper\n",
		"東京.md":           "# 東京\n\n首都\n",
		"Café.md":         "# Café\n\nNFC\n",
		"Cafe\u0301.md":   "# Café\n\nNFD\n",
		"Ελληνικά.md":     "# Ελληνικά\n\nγλώσσα\n",
		"हिन्दी.md":       "# हिन्दी\n\nभाषा\n",
		"العربية.md":      "# العربية\n\nلغة\n",
		"🎉.md":            "# 🎉\n\nparty\n",
		"dir/Sub Page.md": "# Sub\n\none\n",
		"Dir/sub-page.md": "# Sub\n\ntwo\n",
	}
	writeFiles(t, dir, files)
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != len(files) || sum.Added != len(files) || sum.Failed != 0 {
		t.Fatalf("summary = %+v, want all %d files added", sum, len(files))
	}
	// Expected slugs, derived by the documented rule from sorted paths: the
	// file named like the slug but for case keeps it (a composed name
	// before a decomposed one), else the first path.
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	groups := map[string][]string{}
	for _, p := range paths {
		plain, err := markdown.SlugFromPath(p)
		if err != nil {
			t.Fatal(err)
		}
		groups[plain] = append(groups[plain], p)
	}
	want := map[string]string{} // slug -> path
	var wantCollisions []ingest.Collision
	for plain, members := range groups {
		owner, self := members[0], ""
		for _, p := range members {
			if markdown.NormalizeSlug(strings.TrimSuffix(p, ".md")) == plain {
				if norm.NFC.IsNormalString(p) {
					self = p
					break
				}
				if self == "" {
					self = p
				}
			}
		}
		if self != "" {
			owner = self
		}
		want[plain] = owner
		for _, p := range members {
			if p != owner {
				s := markdown.SuffixSlug(plain, p)
				want[s] = p
				wantCollisions = append(wantCollisions, ingest.Collision{Path: p, Slug: s, PlainSlug: plain, KeptBy: owner})
			}
		}
	}
	sort.Slice(wantCollisions, func(i, j int) bool { return wantCollisions[i].Path < wantCollisions[j].Path })
	got := slugsOf(t, b)
	if len(got) != len(files) {
		t.Fatalf("stored %d pages, want %d: %v", len(got), len(files), got)
	}
	for slug, p := range want {
		if got[slug] != files[p] {
			t.Errorf("page %q = %q, want the text of %q", slug, got[slug], p)
		}
	}
	sort.Slice(sum.Collisions, func(i, j int) bool { return sum.Collisions[i].Path < sum.Collisions[j].Path })
	if a, _ := json.Marshal(sum.Collisions); string(a) != mustJSON(t, wantCollisions) {
		t.Errorf("collisions = %s\nwant %s", a, mustJSON(t, wantCollisions))
	}
	// Spot-check the rule on names the issue reported.
	for slug, p := range map[string]string{"x++": "x++.md", "x": "x.md", "a-b": "a-b.md", "notes": "NOTES.md", "東京": "東京.md", "café": "Caf\u00e9.md", "ελληνικά": "Ελληνικά.md", "🎉": "🎉.md"} {
		if got[slug] != files[p] {
			t.Errorf("slug %q holds %q, want %s", slug, got[slug], p)
		}
	}

	before := rowVersions(t, b)
	again, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Updated != 0 || again.Pruned != 0 || again.Unchanged != len(files) || again.PruneSkipped != "" {
		t.Fatalf("re-import = %+v, want every file unchanged", again)
	}
	if len(again.Collisions) != len(wantCollisions) {
		t.Errorf("re-import names %d collisions, want %d", len(again.Collisions), len(wantCollisions))
	}
	if rowVersions(t, b) != before {
		t.Fatal("re-import rewrote rows")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A file added later whose name collides with an existing page does not
// rename that page, even when it sorts first; and a suffixed page keeps its
// slug when the file that held the plain slug goes away.
func TestImportDirCollisionAddedLaterKeepsExistingSlugs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a-b.md": "# hyphen\n", "keep1.md": "# k1\n", "keep2.md": "# k2\n", "keep3.md": "# k3\n"})
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"A B.md": "# space\n"}) // "A B.md" < "a-b.md"
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	suffixed := markdown.SuffixSlug("a-b", "A B.md")
	if sum.Added != 1 || sum.Unchanged != 4 || len(sum.Collisions) != 1 || sum.Collisions[0].Slug != suffixed || sum.Collisions[0].KeptBy != "a-b.md" {
		t.Fatalf("summary = %+v, want the new A B.md added as %s and a-b.md unchanged", sum, suffixed)
	}
	got := slugsOf(t, b)
	if got["a-b"] != "# hyphen\n" || got[suffixed] != "# space\n" {
		t.Fatalf("pages = %v", got)
	}

	if err := os.Remove(filepath.Join(dir, "a-b.md")); err != nil {
		t.Fatal(err)
	}
	sum, err = ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	got = slugsOf(t, b)
	if sum.Added != 0 || sum.Pruned != 1 || got[suffixed] != "# space\n" || got["a-b"] != "" {
		t.Fatalf("after removing a-b.md: summary %+v, pages %v; want A B.md still at %s", sum, got, suffixed)
	}
	if len(sum.Collisions) != 1 || sum.Collisions[0].KeptBy != "" {
		t.Fatalf("collisions = %+v, want A B.md named as keeping its earlier slug", sum.Collisions)
	}
}

// `pgbrain import LINK --prune` through a symlink to the folder imports the
// same pages and deletes none.
func TestImportThroughSymlinkedRootPrunesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# a\n", "sub/b.md": "# b\n", "c.md": "# c\n"})
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.ImportDir(ctx, b, link, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 3 || sum.Unchanged != 3 || sum.Pruned != 0 || len(sum.Skipped) != 0 {
		t.Fatalf("import through a symlinked root = %+v, want 3 unchanged files and nothing pruned", sum)
	}
	if n := len(slugsOf(t, b)); n != 3 {
		t.Fatalf("%d pages left, want 3", n)
	}
}

// --prune refuses to delete more than half of a source unless forced.
func TestPruneRefusesToDeleteMostOfASource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# a\n", "b.md": "# b\n", "c.md": "# c\n", "d.md": "# d\n"})
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"b.md", "c.md", "d.md"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pruned != 0 || !strings.Contains(sum.PruneSkipped, "would delete 3 of the 4 imported pages") || !strings.Contains(sum.PruneSkipped, "--force") {
		t.Fatalf("prune of 3 of 4 pages = %+v, want it refused naming the counts and --force", sum)
	}
	if n := len(slugsOf(t, b)); n != 4 {
		t.Fatalf("%d pages left after a refused prune, want 4", n)
	}
	sum, err = ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true, Prune: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pruned != 3 || sum.PruneSkipped != "" {
		t.Fatalf("forced prune = %+v, want 3 pruned", sum)
	}
	// Half is allowed without --force.
	writeFiles(t, dir, map[string]string{"e.md": "# e\n"})
	if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "e.md"))
	if sum, err = ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true, Prune: true}); err != nil || sum.Pruned != 1 {
		t.Fatalf("prune of 1 of 2 pages = %+v, %v; want it done", sum, err)
	}
}

// Files over the body limit and titles over the title limit are named with
// the field and the limit, not a raw CHECK message, and the rest imports.
func TestImportDirNamesLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.md":         "# ok\n",
		"long-title.md": "---\ntitle: " + strings.Repeat("t", 1001) + "\n---\nbody\n",
		"title-1000.md": "# " + strings.Repeat("é", 1000) + "\n",
	})
	big := filepath.Join(dir, "big.md")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 50<<20); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 2 || sum.Failed != 2 {
		t.Fatalf("summary = %+v, want ok and title-1000 added, 2 failed", sum)
	}
	reasons := map[string]string{}
	for _, f := range sum.Failures {
		reasons[f.Path] = f.Reason
	}
	if r := reasons["long-title.md"]; !strings.Contains(r, `field "title" is 1001 characters`) || !strings.Contains(r, "limit of 1000") {
		t.Errorf("long title: %q", r)
	}
	if r := reasons["big.md"]; !strings.Contains(r, "52428800 bytes") || !strings.Contains(r, "10485760") {
		t.Errorf("big file: %q", r)
	}
	if _, err := ingest.PutPage(ctx, b, "t", []byte("---\ntitle: "+strings.Repeat("t", 1001)+"\n---\n"), ingest.Options{NoEmbed: true}); err == nil || !strings.Contains(err.Error(), `field "title"`) {
		t.Errorf("PutPage with a long title: %v", err)
	}
}

// Every slug the client derives is accepted by the database's CHECK, and
// the shapes the CHECK exists to refuse are refused. The names come from
// the manual pages installed here and from hostile names in every script.
func TestSlugCheckAcceptsEveryDerivedSlug(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	names := []string{"C++", "gobjc++", "東京", "Café ünïcode", "Cafe\u0301", "Ελληνικά", "हिन्दी भाषा", "العربية", "ไทย", "한국어", "🎉 Party", "👨\u200d👩\u200d👧", "!!!", "İstanbul", "ǅ", "ℝ", "evil\u202egpj", strings.Repeat("東", 300), strings.Repeat("e\u0301", 400)}
	man, _ := filepath.Glob("/usr/share/man/*/*")
	if len(man) < 1000 {
		t.Fatalf("found %d manual pages under /usr/share/man; this test needs the installed manual pages (apt-get install man-db manpages)", len(man))
	}
	for _, m := range man {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".gz"))
	}
	seen := map[string]bool{}
	var slugs []string
	for _, n := range names {
		s, err := markdown.SlugFromPath(n + ".md")
		if err != nil {
			t.Fatalf("SlugFromPath(%q): %v", n+".md", err)
		}
		if !seen[s] {
			seen[s] = true
			slugs = append(slugs, s)
		}
	}
	if _, err := b.Pool.Exec(ctx, `
		INSERT INTO brain.pages (slug, title, body, content_hash)
		SELECT s, s, '', repeat('0', 64) FROM unnest($1::text[]) s`, slugs); err != nil {
		t.Fatalf("inserting %d derived slugs: %v", len(slugs), err)
	}
	for _, bad := range []string{"A", "a b", "-a", ".a", "+a", "a//b", "a/", "/a", "a#b", "a\u00a0b", "a\u200bb", "a\u202eb", "a\ufeffb", "a\u3000b", "a\u0085b", strings.Repeat("a", 513), strings.Repeat("é", 257)} {
		if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ($1, 't', '', repeat('0', 64))`, bad); err == nil || !strings.Contains(err.Error(), "pages_slug_shape") {
			t.Errorf("slug %q: %v; want pages_slug_shape to refuse it", bad, err)
		}
	}
}

// A folder built from this machine's Debian package records (real names
// such as gobjc++ beside gobjc, real descriptions), with collision pairs and
// names in many scripts, imports every file; a re-import changes nothing.
// tools/aptfolder builds the full 20,000-file version (see docs).
func TestImportDirDebianPackageFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	recs, err := aptfolder.Load(ctx)
	if err != nil {
		t.Fatalf("building the folder from Debian package records: %v", err)
	}
	dir := t.TempDir()
	n, err := aptfolder.Write(dir, recs, 2500)
	if err != nil {
		t.Fatal(err)
	}
	b := dbtest.Open(t)
	start := time.Now()
	sum, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != n || sum.Added != n || sum.Failed != 0 || len(sum.Skipped) != 0 {
		t.Fatalf("import of %d files = %+v (failures %v)", n, sum, sum.Failures)
	}
	if len(sum.Collisions) < 5 {
		t.Fatalf("only %d collisions named; the folder has the pairs A B/a-b, Notes/notes, C#/C, the two Café spellings and upper-case twins of package names", len(sum.Collisions))
	}
	t.Logf("%d files imported in %s, %d collisions", n, time.Since(start).Round(time.Millisecond), len(sum.Collisions))
	again, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Updated != 0 || again.Pruned != 0 || again.Unchanged != n {
		t.Fatalf("re-import = %+v, want %d unchanged", again, n)
	}
	var stored int
	if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.pages`).Scan(&stored); err != nil || stored != n {
		t.Fatalf("%d pages stored (%v), want %d", stored, err, n)
	}
}
