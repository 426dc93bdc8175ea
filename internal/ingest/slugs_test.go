package ingest

import (
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
	taken := markdown.SuffixSlug("a-b", "a-b.md") // what a-b.md gets beside "A B.md"
	files := walked("A B.md", taken+".md", "a-b.md")
	got, collisions := assignSlugs(files, nil)
	if got[0].slug != "a-b" || got[1].slug != taken || got[0].err != nil || got[1].err != nil {
		t.Fatalf("slugs = %q, %q (%v, %v); want a-b and %s", got[0].slug, got[1].slug, got[0].err, got[1].err, taken)
	}
	if got[2].err == nil || !strings.Contains(got[2].err.Error(), `also the slug of "`+taken+`.md"`) {
		t.Fatalf("a-b.md: %v; want it refused naming %s.md", got[2].err, taken)
	}
	if len(collisions) != 1 || collisions[0].Path != "a-b.md" {
		t.Fatalf("collisions = %+v", collisions)
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
