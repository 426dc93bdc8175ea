package ingest

import (
	"fmt"
	"os"
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
	slug  string
	claim int   // claimOwn, claimStored or claimNew: which slug it takes when
	err   error // the path gives no slug, or its slug is taken by a file kept first
	// hash is the file's content hash when countChanged read it already
	// ("" when not): an unchanged file is then not read again.
	hash string
}

// The order in which files take their slugs: a suffixed slug already
// stored for the file, then the slugs files' names map to, then new
// suffixed slugs. So a page that exists keeps its slug whatever a new file
// is named.
const (
	claimOwn = iota // (the zero value: a file's own name's slug)
	claimStored
	claimNew
)

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
		slug, err := markdown.FileSlug(f.rel)
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

	// Slugs the stored pages have with a suffix, by the slug before it: only
	// those can hold a stored suffixed slug (spares nine hashes a file).
	bases := map[string]bool{}
	for k := range known {
		if n := len(k) - markdown.SuffixLen - 1; n > 0 && k[n] == '-' && isHex(k[n+1:]) {
			bases[k[:n]] = true
		}
	}
	var collisions []Collision
	for _, plain := range order {
		members := groups[plain] // in byte order of paths: files is sorted
		var candidates []int
		var stored map[int]string // member -> the suffixed slug stored for it
		for _, i := range members {
			x, ok := "", false
			if bases[plain] {
				x, ok = storedSuffix(plain, files[i], known, groups)
			}
			if !ok {
				candidates = append(candidates, i)
				continue
			}
			if stored == nil {
				stored = map[int]string{}
			}
			stored[i] = x
		}
		if len(members) == 1 && len(stored) == 0 {
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
			if x, ok := stored[i]; ok {
				out[i].slug, out[i].claim = x, claimStored
			} else {
				out[i].slug, out[i].claim = markdown.SuffixSlug(plain, files[i].rel), claimNew
			}
			collisions = append(collisions, Collision{Path: files[i].rel, Slug: out[i].slug, PlainSlug: plain, KeptBy: keptBy})
		}
	}

	// A suffixed slug can still equal another file's slug (a file named
	// "notes-1a2b3c4d.md" beside notes.md and Notes.md). Slugs are taken in
	// claim order, and a file whose slug is taken already gets another:
	// the suffix of its own name when that slug was its name's, else the
	// suffix from its path and "#2" (then "#3" ...). Both depend on the
	// files alone and are found again among the stored slugs, so a
	// re-import gives the same slugs.
	at := make(map[string]int, len(collisions)) // path -> its collision
	for k, c := range collisions {
		at[c.Path] = k
	}
	taken := make(map[string]int, len(out))
	for _, claim := range []int{claimStored, claimOwn, claimNew} {
		for i := range out {
			if out[i].err != nil || out[i].claim != claim {
				continue
			}
			if j, ok := taken[out[i].slug]; ok && claim != claimStored {
				rel := files[i].rel
				k, collided := at[rel]
				if !collided {
					// its own name's slug, held by a stored suffixed page
					collisions = append(collisions, Collision{Path: rel, Slug: out[i].slug, PlainSlug: out[i].slug, KeptBy: files[j].rel})
					k = len(collisions) - 1
					at[rel] = k
					out[i].slug = markdown.SuffixSlug(out[i].slug, rel)
				}
				for n := 2; n < 100; n++ {
					if _, ok := taken[out[i].slug]; !ok {
						break
					}
					out[i].slug = markdown.SuffixSlug(collisions[k].PlainSlug, fmt.Sprintf("%s#%d", rel, n))
				}
				collisions[k].Slug = out[i].slug
			}
			if j, ok := taken[out[i].slug]; ok {
				out[i].err = fmt.Errorf("its slug %q is also the slug of %q; rename one of the two files", out[i].slug, files[j].rel)
				continue
			}
			taken[out[i].slug] = i
		}
	}
	// (a plain slug another group's file holds is kept by that file)
	for k := range collisions {
		if j, ok := taken[collisions[k].PlainSlug]; ok && collisions[k].KeptBy == "" {
			collisions[k].KeptBy = files[j].rel
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

// storedSuffix is the suffixed slug stored for file f among those it can
// have under plain: from its path, or from its path and "#2" to "#9"
// (given when the first was another file's). A stored slug that another
// file's name maps to (groups) is f's only when the stored page holds f's
// content: otherwise it is that file's page.
func storedSuffix(plain string, f walkFile, known map[string]string, groups map[string][]int) (string, bool) {
	for n := 1; n < 10; n++ {
		key := f.rel
		if n > 1 {
			key = fmt.Sprintf("%s#%d", f.rel, n)
		}
		x := markdown.SuffixSlug(plain, key)
		hash, ok := known[x]
		if !ok {
			continue
		}
		if _, named := groups[x]; named && fileHash(f) != hash {
			continue
		}
		return x, true
	}
	return "", false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}
