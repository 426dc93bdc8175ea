package ingest

import (
	"sort"
	"strings"
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
// the first path in byte order keeps it and the other file is refused by
// name.
func TestAssignSlugsRefusesASuffixThatIsAnotherFilesSlug(t *testing.T) {
	taken := markdown.SuffixSlug("a-b", "a b.md") // what "a b.md" gets beside "A B.md"
	files := walked("A B.md", "a b.md", taken+".md")
	got, collisions := assignSlugs(files, nil)
	if got[0].slug != "a-b" || got[1].slug != taken || got[0].err != nil || got[1].err != nil {
		t.Fatalf("slugs = %q, %q (%v, %v); want a-b and %s", got[0].slug, got[1].slug, got[0].err, got[1].err, taken)
	}
	if got[2].err == nil || !strings.Contains(got[2].err.Error(), `also the slug of "a b.md"`) {
		t.Fatalf("%s.md: %v; want it refused naming a b.md", taken, got[2].err)
	}
	if len(collisions) != 1 || collisions[0].Path != "a b.md" {
		t.Fatalf("collisions = %+v", collisions)
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
