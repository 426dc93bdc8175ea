package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
		"Café/Menu/m.md": "# M\n\nfour\n",
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
		{filepath.Join(notes, "Café", "Menu"), []string{"is inside " + notes, `"café/menu/"`,
			"pgbrain import --source NAME '" + filepath.Join(notes, "Café", "Menu") + "')"}}, // pasteable
		{top, []string{"holds ", "alice-notes", `"alice-notes/"`, "--nested"}},
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
		if n := count(); n != 4 {
			t.Errorf("after the refused import of %s the brain holds %d pages, want 4", tt.dir, n)
		}
	}
	// The same folder again, also through a symbolic link, and a folder
	// beside it: fine.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(notes, link); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(notes, ".archive") // left out by the walk of notes
	writeFiles(t, archive, map[string]string{"old.md": "# Old\n\nold\n"})
	for _, dir := range []string{notes, notes + "/", link, filepath.Join(top, "other"), archive, notes} {
		if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true}); err != nil {
			t.Errorf("import %s: %v", dir, err)
		}
	}
	if n := count(); n != 6 {
		t.Fatalf("the brain holds %d pages, want 6 (four notes, other's d and the archive's old)", n)
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
	// The folders are kept where the writer reads them and agents and
	// readers do not.
	var paths []string
	if err := b.Pool.QueryRow(ctx, `SELECT array_agg(path ORDER BY path) FROM brain.import_folders WHERE source_id = 'default'`).Scan(&paths); err != nil {
		t.Fatal(err)
	}
	realNotes, _ := filepath.EvalSymlinks(notes)
	if !slices.Contains(paths, realNotes) || !slices.Contains(paths, filepath.Join(realNotes, "work")) {
		t.Errorf("brain.import_folders of default = %v; want %s and its work folder", paths, realNotes)
	}
	var cfg string
	if err := b.Pool.QueryRow(ctx, `SELECT string_agg(config::text, ' ') FROM brain.sources`).Scan(&cfg); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cfg, "alice") {
		t.Errorf("brain.sources config = %s; want no folder path where agents read", cfg)
	}
	var agent, reader, writer bool
	if err := b.Pool.QueryRow(ctx, `SELECT has_table_privilege('pgbrain_agent', 'brain.import_folders', 'SELECT'),
		has_table_privilege('pgbrain_reader', 'brain.import_folders', 'SELECT'),
		has_table_privilege('pgbrain_writer', 'brain.import_folders', 'SELECT')
		AND has_table_privilege('pgbrain_writer', 'brain.import_folders', 'INSERT')
		AND has_table_privilege('pgbrain_writer', 'brain.import_folders', 'UPDATE')
		AND has_table_privilege('pgbrain_writer', 'brain.import_folders', 'DELETE')`).Scan(&agent, &reader, &writer); err != nil {
		t.Fatal(err)
	}
	if agent || reader || !writer {
		t.Errorf("brain.import_folders: agent reads %v, reader reads %v, writer reads and writes %v; want only the writer", agent, reader, writer)
	}
}

// --prune deletes every imported page of the source whose file is not in
// the folder imported, so a source imported from several folders is not
// pruned unless --force, and a prune names the pages it deleted; after
// one, the source mirrors that folder alone and prunes without --force.
func TestPruneOfASourceOfSeveralFolders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	top := t.TempDir()
	notes, work := filepath.Join(top, "notes"), filepath.Join(top, "work")
	writeFiles(t, notes, map[string]string{"a.md": "# A\n\none\n", "b.md": "# B\n\ntwo\n", "c.md": "# C\n\nthree\n"})
	writeFiles(t, work, map[string]string{"plan.md": "# Plan\n\nfour\n", "ideas.md": "# Ideas\n\nfive\n"})
	for _, dir := range []string{notes, work} {
		if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true}); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := ingest.ImportDir(ctx, b, notes, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pruned != 0 || !strings.Contains(sum.PruneSkipped, "also imported from "+work) || !strings.Contains(sum.PruneSkipped, "--force") {
		t.Fatalf("prune of a source of two folders: pruned %d (%v), skipped %q; want nothing pruned and the reason", sum.Pruned, sum.PrunedSlugs, sum.PruneSkipped)
	}
	sum, err = ingest.ImportDir(ctx, b, notes, ingest.Options{NoEmbed: true, Prune: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pruned != 2 || strings.Join(sum.PrunedSlugs, " ") != "ideas plan" || sum.PruneSkipped != "" {
		t.Fatalf("prune --force: pruned %d %v, skipped %q; want ideas and plan", sum.Pruned, sum.PrunedSlugs, sum.PruneSkipped)
	}
	// The source mirrors notes alone now: a file removed there is pruned
	// without --force.
	if err := os.Remove(filepath.Join(notes, "c.md")); err != nil {
		t.Fatal(err)
	}
	sum, err = ingest.ImportDir(ctx, b, notes, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sum.PrunedSlugs, " ") != "c" || sum.PruneSkipped != "" {
		t.Fatalf("prune after the source mirrors one folder: pruned %v, skipped %q; want c", sum.PrunedSlugs, sum.PruneSkipped)
	}
}

// The other-folders guard counts only folders that hold the source's pages
// and are still there: a folder that moved, one without a markdown file,
// and the folders of a source whose pages are all gone do not block a
// prune; the more-than-half guard names the other folders too.
func TestPruneGuardIgnoresFoldersGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	top := t.TempDir()
	old, moved, empty := filepath.Join(top, "old"), filepath.Join(top, "new"), filepath.Join(top, "empty")
	writeFiles(t, old, map[string]string{"a.md": "# A\n\none\n", "b.md": "# B\n\ntwo\n", "c.md": "# C\n\nthree\n"})
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.ImportDir(ctx, b, old, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.ImportDir(ctx, b, empty, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	// The folder moved, and lost a file on the way.
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(moved, "c.md")); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.ImportDir(ctx, b, moved, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sum.PrunedSlugs, " ") != "c" || sum.PruneSkipped != "" {
		t.Fatalf("prune of the moved folder: pruned %v, skipped %q; want c pruned", sum.PrunedSlugs, sum.PruneSkipped)
	}
	// A second folder, then a prune that would delete most pages: the
	// reason names the other folder.
	other := filepath.Join(top, "other")
	writeFiles(t, other, map[string]string{"x.md": "# X\n\nx\n", "y.md": "# Y\n\ny\n", "z.md": "# Z\n\nz\n"})
	if _, err := ingest.ImportDir(ctx, b, other, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	sum, err = ingest.ImportDir(ctx, b, moved, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pruned != 0 || !strings.Contains(sum.PruneSkipped, "more than half") || !strings.Contains(sum.PruneSkipped, "also imported from "+other) {
		t.Fatalf("prune of most pages: pruned %v, skipped %q; want the half guard naming %s", sum.PrunedSlugs, sum.PruneSkipped, other)
	}
	// All pages gone: the source forgets its folders, and a new one prunes
	// alone.
	if _, err := b.Pool.Exec(ctx, `DELETE FROM brain.pages`); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(top, "fresh")
	writeFiles(t, fresh, map[string]string{"f.md": "# F\n\nf\n", "g.md": "# G\n\ng\n"})
	if _, err := ingest.ImportDir(ctx, b, fresh, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(fresh, "g.md")); err != nil {
		t.Fatal(err)
	}
	sum, err = ingest.ImportDir(ctx, b, fresh, ingest.Options{NoEmbed: true, Prune: true})
	if err != nil || strings.Join(sum.PrunedSlugs, " ") != "g" {
		t.Fatalf("prune after every page was deleted: %+v, %v; want g pruned", sum, err)
	}
}

// A folder whose path is not UTF-8 (a Latin-1 name) imports, and is
// recognised as the same folder when imported again.
func TestImportFolderNamedInLatin1(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := filepath.Join(t.TempDir(), "caf\xe9 100%")
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\none\n"})
	for i := 0; i < 2; i++ {
		if _, err := ingest.ImportDir(ctx, b, dir, ingest.Options{NoEmbed: true, Prune: true}); err != nil {
			t.Fatalf("import %d of %q: %v", i+1, dir, err)
		}
	}
	if _, err := ingest.ImportDir(ctx, b, filepath.Dir(dir), ingest.Options{NoEmbed: true}); err == nil || !strings.Contains(err.Error(), "holds") {
		t.Errorf("import of the folder holding %q: %v; want the nesting refusal", dir, err)
	}
}

// A symlink inside the folder imported that leads into (or around) another
// folder the source was imported from is the nesting above by another
// road: it is not followed, it is named with the reason, and nothing under
// it is stored twice; a link to a folder no import of the source read is
// followed, and --nested follows them all.
func TestImportDoesNotFollowLinksIntoImportedFolders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	top := t.TempDir()
	notes := filepath.Join(top, "notes")
	writeFiles(t, notes, map[string]string{"a.md": "# A\n\none\n", "work/b.md": "# B\n\ntwo\n", "plain.txt": "# P\n\nplain\n"})
	writeFiles(t, filepath.Join(top, "loose"), map[string]string{"l.md": "# L\n\nloose\n"})
	journal := filepath.Join(top, "journal")
	writeFiles(t, journal, map[string]string{"j.md": "# J\n\nthree\n"})
	for link, target := range map[string]string{
		"into-work":  filepath.Join(notes, "work"), // inside an imported folder
		"whole":      notes,                        // the imported folder itself
		"around":     top,                          // a folder holding it
		"loose-link": filepath.Join(top, "loose"),  // no import read it
		"b-file.md":  filepath.Join(notes, "work", "b.md"),
		"plain.md":   filepath.Join(notes, "plain.txt"), // not a page of the notes
	} {
		if err := os.Symlink(target, filepath.Join(journal, link)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ingest.ImportDir(ctx, b, notes, ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.ImportDir(ctx, b, journal, ingest.Options{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, s := range sum.Skipped {
		skipped[s.Path] = s.Reason
	}
	for _, p := range []string{"into-work", "whole", "around", "b-file.md"} {
		if !strings.Contains(skipped[p], notes) || !strings.Contains(skipped[p], "--nested") {
			t.Errorf("link %s: skipped as %q; want it named, with the folder %s and --nested", p, skipped[p], notes)
		}
	}
	slugs := func() []string {
		rows, err := b.Pool.Query(ctx, `SELECT slug FROM brain.pages ORDER BY slug`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := slugs(), []string{"a", "j", "loose-link/l", "plain", "work/b"}; !slices.Equal(got, want) {
		t.Errorf("pages after importing the journal: %v, want %v (no page stored twice, the loose link followed)", got, want)
	}
	sum, err = ingest.ImportDir(ctx, b, journal, ingest.Options{NoEmbed: true, Nested: true})
	if err != nil {
		t.Fatal(err)
	}
	// (into-work sorts before whole, so whole's work folder is walked
	// already; around holds the journal itself, which no option follows:
	// it would import every folder beside it)
	if got := slugs(); !slices.Contains(got, "into-work/b") || !slices.Contains(got, "whole/a") || !slices.Contains(got, "b-file") {
		t.Errorf("pages after --nested: %v, want the links followed", got)
	}
	for _, s := range sum.Skipped {
		if s.Path == "around" && !strings.Contains(s.Reason, "holds the imported folder") {
			t.Errorf("around with --nested: skipped as %q, want it named as holding the journal", s.Reason)
		}
	}
}

// The same with the folder named relatively and relative links, the usual
// kind ("cd ~ && pgbrain import journal", journal/w -> ../notes/work).
func TestImportDoesNotFollowRelativeLinksIntoImportedFolders(t *testing.T) {
	ctx := context.Background()
	b := dbtest.Open(t)
	top := t.TempDir()
	writeFiles(t, filepath.Join(top, "notes"), map[string]string{"a.md": "# A\n\none\n", "work/b.md": "# B\n\ntwo\n"})
	writeFiles(t, filepath.Join(top, "journal"), map[string]string{"j.md": "# J\n\nthree\n"})
	for link, target := range map[string]string{"w": "../notes/work", "all": "../notes", "b.md": "../notes/work/b.md"} {
		if err := os.Symlink(target, filepath.Join(top, "journal", link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(top)
	if _, err := ingest.ImportDir(ctx, b, "notes", ingest.Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.ImportDir(ctx, b, "journal", ingest.Options{NoEmbed: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 1 || len(sum.Skipped) != 3 {
		t.Errorf("import journal: %d added, skipped %+v; want j alone, and the three links named", sum.Added, sum.Skipped)
	}
}
