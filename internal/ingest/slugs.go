package ingest

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

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
	slug string
	err  error // the path gives no slug, or its slug is taken twice over
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
		slug, err := markdown.SlugFromPath(f.rel)
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
			for _, i := range candidates {
				if namesItself(files[i].rel, plain) {
					owner = i
					break
				}
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
			collisions = append(collisions, Collision{Path: files[i].rel, Slug: out[i].slug, PlainSlug: plain, KeptBy: keptBy})
		}
	}

	// A suffixed slug can still equal another file's slug (a file named
	// "notes-1a2b3c4d.md"); the first in byte order keeps it and the other
	// is refused by name rather than overwriting it.
	taken := make(map[string]int, len(out))
	for i := range out {
		if out[i].err != nil {
			continue
		}
		if j, ok := taken[out[i].slug]; ok {
			out[i].err = fmt.Errorf("its slug %q is also the slug of %q; rename one of the two files", out[i].slug, files[j].rel)
			continue
		}
		taken[out[i].slug] = i
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
