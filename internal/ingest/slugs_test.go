package ingest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pgbrain/pgbrain/internal/markdown"
)

func walked(rels ...string) []walkFile {
	out := make([]walkFile, len(rels))
	for i, r := range rels {
		out[i] = walkFile{rel: r, abs: "/nonexistent/" + r}
	}
	return out
}

// A suffixed slug that equals another file's own slug is not stored twice:
// the file named with it keeps it, and the colliding file is suffixed
// again (from its path and "#2"), stably, and reported with that slug.
func TestAssignSlugsSuffixesAgainWhenASuffixIsAnotherFilesSlug(t *testing.T) {
	taken := markdown.SuffixSlug("a-b", "a b.md") // what "a b.md" gets beside "A B.md"
	again := markdown.SuffixSlug("a-b", "a b.md#2")
	files := walked("A B.md", "a b.md", taken+".md")
	for round := 0; round < 2; round++ {
		got, collisions := assignSlugs(files, nil)
		if got[0].slug != "a-b" || got[1].slug != again || got[2].slug != taken {
			t.Fatalf("slugs = %q, %q, %q; want a-b, %s, %s", got[0].slug, got[1].slug, got[2].slug, again, taken)
		}
		for i, g := range got {
			if g.err != nil {
				t.Errorf("%s: %v; want it imported", files[i].rel, g.err)
			}
		}
		if len(collisions) != 1 || collisions[0].Path != "a b.md" || collisions[0].Slug != again {
			t.Fatalf("collisions = %+v; want a b.md stored as %s", collisions, again)
		}
	}
	// On a re-import the stored slugs stay (a b.md's suffix is stored).
	known := map[string]string{"a-b": "h1", again: "h2", taken: "h3"}
	got, _ := assignSlugs(files, known)
	if got[0].slug != "a-b" || got[1].slug != again || got[2].slug != taken {
		t.Fatalf("re-import slugs = %q, %q, %q; want a-b, %s, %s", got[0].slug, got[1].slug, got[2].slug, again, taken)
	}
}

// Two spellings of one name, composed (NFC) and decomposed (NFD, as macOS
// writes names): the composed one keeps the plain slug, though the
// decomposed one sorts first.
func TestAssignSlugsPrefersTheComposedName(t *testing.T) {
	files := walked("Cafe\u0301.md", "Caf\u00e9.md")
	got, collisions := assignSlugs(files, nil)
	if got[1].slug != "café" || got[0].slug == "café" || len(collisions) != 1 || collisions[0].Path != "Cafe\u0301.md" {
		t.Fatalf("slugs = %q (NFD), %q (NFC), collisions %+v; want the NFC file as café", got[0].slug, got[1].slug, collisions)
	}
}

// Where '/' separates paths, a backslash in a name is punctuation, not a
// folder: it does not take the slug of the file in the folder.
func TestAssignSlugsReadsABackslashAsPunctuation(t *testing.T) {
	got, collisions := assignSlugs(walked("back/slash.md", "back\\slash.md"), nil)
	if got[0].slug != "back/slash" || got[1].slug != "back-slash" || len(collisions) != 0 {
		t.Fatalf("slugs = %q, %q, collisions %+v; want back/slash and back-slash", got[0].slug, got[1].slug, collisions)
	}
}

// Of files that map to one slug, the one whose name already is the slug
// (but for case) keeps it, even when another sorts first: C.md is c beside
// C#.md, a-b.md is a-b beside "A B.md".
func TestAssignSlugsPrefersTheFileNamedLikeTheSlug(t *testing.T) {
	for _, tc := range []struct {
		files []string
		owner string
	}{
		{[]string{"C#.md", "C.md"}, "C.md"},
		{[]string{"A B.md", "a-b.md"}, "a-b.md"},
		{[]string{"Café!.md", "café.md"}, "café.md"},
		{[]string{"docs/C#.md", "docs/c.md"}, "docs/c.md"},
		{[]string{"Notes.md", "notes.md"}, "Notes.md"}, // both name it: byte order
		{[]string{"F#.md", "F!.md"}, "F!.md"},          // neither: byte order
	} {
		files := walked(tc.files...)
		sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
		got, collisions := assignSlugs(files, nil)
		for _, g := range got {
			plain, _ := markdown.SlugFromPath(g.rel)
			if (g.rel == tc.owner) != (g.slug == plain) {
				t.Errorf("%v: %s has slug %q; want the plain %q held by %s", tc.files, g.rel, g.slug, plain, tc.owner)
			}
		}
		if len(collisions) != 1 || collisions[0].KeptBy != tc.owner {
			t.Errorf("%v: collisions %+v, want one kept by %s", tc.files, collisions, tc.owner)
		}
	}
}

// The plain slug goes to the first path in byte order, whatever the order
// of the group; a stored suffixed slug is kept.
func TestAssignSlugsRule(t *testing.T) {
	files := walked("NOTES.md", "Notes.md", "notes.md")
	got, _ := assignSlugs(files, nil)
	want := []string{"notes", markdown.SuffixSlug("notes", "Notes.md"), markdown.SuffixSlug("notes", "notes.md")}
	for i := range want {
		if got[i].slug != want[i] {
			t.Errorf("%s: slug %q, want %q", files[i].rel, got[i].slug, want[i])
		}
	}
	// NOTES.md was stored with a suffix by an earlier import (say when
	// another file sorted before it): it keeps it, and the plain slug goes
	// to the next path.
	known := map[string]string{markdown.SuffixSlug("notes", "NOTES.md"): "h"}
	got, collisions := assignSlugs(files, known)
	if got[0].slug != markdown.SuffixSlug("notes", "NOTES.md") || got[1].slug != "notes" {
		t.Errorf("with NOTES.md stored suffixed: %q, %q", got[0].slug, got[1].slug)
	}
	if len(collisions) != 2 {
		t.Errorf("collisions = %+v, want NOTES.md and notes.md named", collisions)
	}
}

// A page stored under a suffixed slug keeps it when a file named with that
// slug appears later (what an older pgbrain left, which refused the second
// file): the newcomer gets its own name's suffix, on every import.
func TestAssignSlugsKeepsAStoredSuffixFromANewcomer(t *testing.T) {
	dir := t.TempDir()
	suffix := markdown.SuffixSlug("a-b", "a b.md")
	body := map[string]string{"A B.md": "upper\n", "a b.md": "lower\n", suffix + ".md": "newcomer\n"}
	var files []walkFile
	for _, rel := range []string{"A B.md", "a b.md", suffix + ".md"} {
		abs := filepath.Join(dir, rel)
		if err := os.WriteFile(abs, []byte(body[rel]), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, walkFile{rel: rel, abs: abs, size: int64(len(body[rel]))})
	}
	known := map[string]string{"a-b": markdown.ContentHash([]byte("upper\n")), suffix: markdown.ContentHash([]byte("lower\n"))}
	moved := markdown.SuffixSlug(suffix, suffix+".md")
	for round := 0; round < 2; round++ {
		got, collisions := assignSlugs(files, known)
		if got[0].slug != "a-b" || got[1].slug != suffix || got[2].slug != moved {
			t.Fatalf("round %d: slugs = %q, %q, %q; want a-b, %s (stored), %s", round, got[0].slug, got[1].slug, got[2].slug, suffix, moved)
		}
		if len(collisions) != 2 || collisions[1].Path != suffix+".md" || collisions[1].KeptBy != "a b.md" {
			t.Fatalf("round %d: collisions = %+v; want the newcomer renamed, kept by a b.md", round, collisions)
		}
		known[moved] = markdown.ContentHash([]byte("newcomer\n"))
	}
}
