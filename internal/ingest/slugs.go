package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/pgbrain/pgbrain/internal/markdown"
)

// Collision names a file whose name maps to the same slug as another
// file's, and the slug it was stored under instead.
type Collision struct {
	Path      string `json:"path"`       // the file that got a suffixed slug
	Slug      string `json:"slug"`       // the slug it is stored under
	PlainSlug string `json:"plain_slug"` // the slug its name maps to
	// KeptBy is the file holding PlainSlug in this import; "" when no file
	// of this import does (the file kept the suffix an earlier import gave
	// it, so its slug does not change when the other file goes away).
	KeptBy string `json:"kept_by"`
}

// slugged is one walked file with the slug it is stored under.
type slugged struct {
	walkFile
	slug     string
	suffixed bool  // slug is a collision's suffixed slug
	err      error // the path gives no slug, or its slug is taken twice over
}

// assignSlugs gives every walked file a distinct slug. Files whose names map
// to one slug keep it in this order of preference, so re-importing the same
// files gives the same slugs and a file added later does not rename a page
// that already exists:
//
//  1. a file whose suffixed slug (markdown.SuffixSlug) is already stored
//     keeps that suffixed slug;
//  2. if the plain slug is stored, the first file, in byte order of paths,
//     whose content is the stored page's keeps it;
//  3. otherwise the first remaining file, in byte order of paths, whose
//     name is the slug but for case (`C.md` for `c`, not `C#.md`; `a-b.md`
//     for `a-b`, not `A B.md`) keeps it;
//  4. otherwise the first remaining file in byte order of paths keeps it.
//
// Every other file gets its suffixed slug. known maps stored slugs to their
// content hashes.
func assignSlugs(files []walkFile, known map[string]string) ([]slugged, []Collision) {
	out := make([]slugged, len(files))
	groups := map[string][]int{}
	var order []string
	for i, f := range files {
		out[i].walkFile = f
		slug, err := fileSlug(f.rel)
		if err != nil {
			out[i].err = err
			continue
		}
		out[i].slug = slug
		if _, ok := groups[slug]; !ok {
			order = append(order, slug)
		}
		groups[slug] = append(groups[slug], i)
	}

	var collisions []Collision
	for _, plain := range order {
		members := groups[plain] // in byte order of paths: files is sorted
		var candidates, suffixed []int
		for _, i := range members {
			if _, ok := known[markdown.SuffixSlug(plain, files[i].rel)]; ok {
				suffixed = append(suffixed, i)
			} else {
				candidates = append(candidates, i)
			}
		}
		if len(members) == 1 && len(suffixed) == 0 {
			continue
		}
		owner := -1
		if len(candidates) > 0 {
			owner = candidates[0]
			// A name that is the slug but for case, written composed (NFC)
			// before one that is so only once composed (macOS's NFD).
			self := -1
			for _, i := range candidates {
				if namesItself(files[i].rel, plain) {
					if norm.NFC.IsNormalString(files[i].rel) {
						self = i
						break
					}
					if self < 0 {
						self = i
					}
				}
			}
			if self >= 0 {
				owner = self
			}
			if hash, stored := known[plain]; stored && len(candidates) > 1 {
				for _, i := range candidates {
					if fileHash(files[i]) == hash {
						owner = i
						break
					}
				}
			}
		}
		keptBy := ""
		if owner >= 0 {
			keptBy = files[owner].rel
		}
		for _, i := range members {
			if i == owner {
				continue
			}
			out[i].slug = markdown.SuffixSlug(plain, files[i].rel)
			out[i].suffixed = true
			collisions = append(collisions, Collision{Path: files[i].rel, Slug: out[i].slug, PlainSlug: plain, KeptBy: keptBy})
		}
	}

	// A suffixed slug can still equal another file's slug (a file named
	// "notes-1a2b3c4d.md" beside notes.md and Notes.md). Files keep the
	// slugs their names map to first; a suffixed slug that is taken is
	// suffixed again, from the path and "#2" (then "#3" ...), which depends
	// on the files alone, so a re-import gives the same slug. Two files
	// whose names map to one slug without a collision (impossible but for
	// a bug) are refused by name rather than overwriting each other.
	taken := make(map[string]int, len(out))
	for pass := 0; pass < 2; pass++ {
		for i := range out {
			if out[i].err != nil || out[i].suffixed != (pass == 1) {
				continue
			}
			if _, ok := taken[out[i].slug]; ok && out[i].suffixed {
				plain := collisionOf(collisions, files[i].rel).PlainSlug
				for n := 2; n < 100; n++ {
					out[i].slug = markdown.SuffixSlug(plain, fmt.Sprintf("%s#%d", files[i].rel, n))
					if _, ok := taken[out[i].slug]; !ok {
						break
					}
				}
				collisionOf(collisions, files[i].rel).Slug = out[i].slug
			}
			if j, ok := taken[out[i].slug]; ok {
				out[i].err = fmt.Errorf("its slug %q is also the slug of %q; rename one of the two files", out[i].slug, files[j].rel)
				continue
			}
			taken[out[i].slug] = i
		}
	}
	return out, collisions
}

// fileHash is the content hash markdown.Parse would give the file, or "" if
// it cannot be read; it is only needed to find which of several colliding
// files holds a stored page.
func fileHash(f walkFile) string {
	if f.size > MaxFileBytes {
		return ""
	}
	data, err := os.ReadFile(f.abs)
	if err != nil {
		return ""
	}
	return markdown.ContentHash(data)
}

// checkLimits refuses, by field and limit, a page the pages table would
// refuse with a bare CHECK message.
func checkLimits(page *markdown.Page) error {
	if n := utf8.RuneCountInString(page.Title); n > MaxTitleChars {
		return fmt.Errorf("field \"title\" is %d characters, over the limit of %d; shorten the frontmatter title or the first heading", n, MaxTitleChars)
	}
	if n := len(page.Body); n > MaxFileBytes {
		return fmt.Errorf("the page is %d bytes, over the limit of %d bytes (10 MiB); split it into smaller pages", n, MaxFileBytes)
	}
	return nil
}

// namesItself reports whether the path rel, without its .md, is slug but
// for case and Unicode normalisation: the file a user would expect to own
// the slug when others map to it too.
func namesItself(rel, slug string) bool {
	name := strings.ReplaceAll(rel, `\`, "/")
	if len(name) < 3 || !strings.EqualFold(name[len(name)-3:], ".md") {
		return false
	}
	return markdown.NormalizeSlug(name[:len(name)-3]) == slug
}

// fileSlug is the slug of a walked file at rel ('/'-separated). Where '/'
// separates paths, a '\' in a name is a character like any punctuation
// ("back\slash.md" is back-slash), not a folder: read as one, it took the
// slug of back/slash.md.
func fileSlug(rel string) (string, error) {
	if filepath.Separator == '/' {
		rel = strings.ReplaceAll(rel, `\`, "-")
	}
	return markdown.SlugFromPath(rel)
}

// collisionOf is the entry of collisions for the file at rel, which has one.
func collisionOf(collisions []Collision, rel string) *Collision {
	for k := range collisions {
		if collisions[k].Path == rel {
			return &collisions[k]
		}
	}
	panic("ingest: no collision recorded for " + rel)
}
