package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
)

// --prune deletes the pages whose files are gone, never a page written by
// PutPage (or by SQL that names no origin) into the same source, and the
// half guard counts imported pages only.
func TestPruneKeepsPagesNotWrittenByAnImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		write(n+".md", "# "+strings.ToUpper(n)+"\n\nfile page "+n+"\n")
	}
	if _, err := ImportDir(ctx, b, dir, Options{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"put-1", "put-2", "put-3", "put-4", "put-5"} {
		if _, err := PutPage(ctx, b, slug, []byte("# Put\n\nwritten by name\n"), Options{NoEmbed: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Pool.Exec(ctx, `INSERT INTO brain.pages (slug, title, body, content_hash) VALUES ('by-hand', 'By hand', 'typed in psql', repeat('e', 64))`); err != nil {
		t.Fatal(err)
	}
	origins := func() map[string]string {
		rows, err := b.Pool.Query(ctx, `SELECT slug, origin FROM brain.pages WHERE source_id = 'default'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[string]string{}
		for rows.Next() {
			var s, o string
			if err := rows.Scan(&s, &o); err != nil {
				t.Fatal(err)
			}
			m[s] = o
		}
		return m
	}
	got := origins()
	for slug, want := range map[string]string{"a": "file", "d": "file", "put-1": "put", "by-hand": "put"} {
		if got[slug] != want {
			t.Errorf("page %s has origin %q, want %q", slug, got[slug], want)
		}
	}

	// Three of the four imported pages lose their files: more than half of
	// the imported pages, though fewer than half of the source's ten.
	for _, n := range []string{"b", "c", "d"} {
		if err := os.Remove(filepath.Join(dir, n+".md")); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := ImportDir(ctx, b, dir, Options{NoEmbed: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pruned != 0 || !strings.Contains(sum.PruneSkipped, "3 of the 4 imported pages") {
		t.Fatalf("prune of 3 of 4 imported pages: pruned %d, skipped %q; want it refused naming 3 of the 4 imported pages", sum.Pruned, sum.PruneSkipped)
	}
	sum, err = ImportDir(ctx, b, dir, Options{NoEmbed: true, Prune: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pruned != 3 {
		t.Errorf("forced prune deleted %d pages, want the 3 whose files are gone", sum.Pruned)
	}
	got = origins()
	want := []string{"a", "by-hand", "put-1", "put-2", "put-3", "put-4", "put-5"}
	if len(got) != len(want) {
		t.Errorf("after the prune the source holds %v, want %v", got, want)
	}
	for _, slug := range want {
		if _, ok := got[slug]; !ok {
			t.Errorf("page %s was pruned; only pages whose files are gone may be", slug)
		}
	}

	// A file that takes over a put page's slug with other content makes it
	// a file page, which the next prune deletes once the file is gone.
	write("put-1.md", "# Put one, now a file\n\nfile content\n")
	if sum, err := ImportDir(ctx, b, dir, Options{NoEmbed: true}); err != nil || strings.Join(sum.OverwrotePut, ",") != "put-1" {
		t.Fatalf("import over put-1: %+v, %v; want put-1 named as overwritten", sum, err)
	}
	if sum, err := ImportDir(ctx, b, dir, Options{NoEmbed: true}); err != nil || len(sum.OverwrotePut) != 0 {
		t.Fatalf("import again: %+v, %v; want nothing named (put-1 is a file page now)", sum, err)
	}
	if o := origins()["put-1"]; o != "file" {
		t.Errorf("put-1 overwritten by an import has origin %q, want file", o)
	}
	if err := os.Remove(filepath.Join(dir, "put-1.md")); err != nil {
		t.Fatal(err)
	}
	if sum, err = ImportDir(ctx, b, dir, Options{NoEmbed: true, Prune: true}); err != nil {
		t.Fatal(err)
	}
	if sum.Pruned != 1 {
		t.Errorf("prune after put-1.md is gone deleted %d pages, want 1 (%q)", sum.Pruned, sum.PruneSkipped)
	}
	if _, ok := origins()["put-1"]; ok {
		t.Error("put-1, last written by an import, survived the prune after its file was removed")
	}

	// Putting exactly a file's content under its slug still makes the page
	// one written by name, which a prune keeps after the file is gone.
	content := []byte("# A\n\nfile page a\n")
	if sum, err := PutPage(ctx, b, "a", content, Options{NoEmbed: true}); err != nil || sum.Unchanged != 1 || sum.MarkedPut != 1 {
		t.Fatalf("put of page a's unchanged content: %+v, %v; want it unchanged and marked put", sum, err)
	}
	if o := origins()["a"]; o != "put" {
		t.Errorf("page a after a put of its unchanged content has origin %q, want put", o)
	}
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	if sum, err = ImportDir(ctx, b, dir, Options{NoEmbed: true, Prune: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, ok := origins()["a"]; !ok {
		t.Errorf("page a, put by name with its file's content, was pruned (pruned %d)", sum.Pruned)
	}
}
