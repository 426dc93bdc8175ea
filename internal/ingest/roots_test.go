package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
)

// Slugs are paths relative to the folder imported, so importing a folder
// inside (or around) one a source was imported from would store every file
// there a second time under a new slug. It is refused, naming the folder
// and the fixes, and writes nothing; --nested imports it anyway; another
// source, the same folder again (by another spelling too) and a folder
// beside it are fine; no folder path is stored where agents read.
func TestImportRefusesNestedFolders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	top := t.TempDir()
	notes := filepath.Join(top, "alice-notes")
	writeFiles(t, notes, map[string]string{
		"a.md":           "# A\n\none\n",
		"work/b.md":      "# B\n\ntwo\n",
		"work/deep/c.md": "# C\n\nthree\n",
	})
	writeFiles(t, filepath.Join(top, "other"), map[string]string{"d.md": "# D\n\nfour\n"})
	if _, err := ingest.ImportDir(ctx, b, notes, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		if err := b.Pool.QueryRow(ctx, `SELECT count(*) FROM brain.pages`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tt := range []struct {
		dir  string
		want []string
	}{
		{filepath.Join(notes, "work"), []string{"is inside " + notes, `"work/"`, "--nested", "--source NAME"}},
		{filepath.Join(notes, "work", "deep"), []string{"is inside " + notes, `"work/deep/"`}},
		{top, []string{"holds a folder", "--nested"}},
	} {
		_, err := ingest.ImportDir(ctx, b, tt.dir, ingest.Options{NoEmbed: true})
		if err == nil {
			t.Errorf("import %s: no error, want a refusal", tt.dir)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("import %s: %v; want it to say %q", tt.dir, err, w)
			}
		}
		if n := count(); n != 3 {
			t.Errorf("after the refused import of %s the brain holds %d pages, want 3", tt.dir, n)
		}
	}
	// The same folder again, also through a symbolic link, and a folder
	// beside it: fine.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(notes, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{notes, notes + "/", link, filepath.Join(top, "other")} {
		if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true}); err != nil {
			t.Errorf("import %s: %v", dir, err)
		}
	}
	if n := count(); n != 4 {
		t.Fatalf("the brain holds %d pages, want 4 (three notes and other/d)", n)
	}
	// --nested stores the subfolder's files again, under the slugs it gives.
	sum, err := ingest.ImportDir(ctx, b, filepath.Join(notes, "work"), ingest.Options{NoEmbed: true, Nested: true})
	if err != nil || sum.Added != 2 {
		t.Fatalf("import --nested: %+v, %v; want its 2 files added", sum, err)
	}
	// Another source is another set of slugs.
	if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.sources (id, name) VALUES ('work', 'Work')`); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.ImportDir(ctx, b, filepath.Join(notes, "work"), ingest.Options{NoEmbed: true, Source: "work"}); err != nil {
		t.Errorf("import into a source of its own: %v", err)
	}
	// No folder path in brain.sources.
	var cfg string
	if err := b.Pool.QueryRow(ctx, `SELECT string_agg(config::text, ' ') FROM brain.sources`).Scan(&cfg); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cfg, "alice") || strings.Contains(cfg, top) || !strings.Contains(cfg, "import_roots") {
		t.Errorf("brain.sources config = %s; want the folders recorded by id, without their paths", cfg)
	}
}
