package markdown

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// SlugPattern is the shape every stored slug has. The pages table CHECKs the
// same regular expression, so a slug accepted here is never rejected there.
const SlugPattern = `^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`

// MaxSlugLen is the longest slug in bytes, matching the SQL CHECK.
const MaxSlugLen = 512

// ErrInvalidPath reports a file path that cannot be turned into a slug.
var ErrInvalidPath = errors.New("invalid path")

// ErrInvalidSlug reports a slug that does not satisfy SlugPattern or MaxSlugLen.
var ErrInvalidSlug = errors.New("invalid slug")

// slugRE is compiled once and only read afterwards.
var slugRE = regexp.MustCompile(SlugPattern)

// ValidSlug reports whether s can be stored as a page slug.
func ValidSlug(s string) bool {
	return len(s) <= MaxSlugLen && slugRE.MatchString(s)
}

// SlugFromPath derives a slug from a markdown file's path relative to the
// brain directory: "People/Alice Smith.md" becomes "people/alice-smith".
// Both "/" and "\" separate segments; "" and "." segments are ignored.
func SlugFromPath(rel string) (string, error) {
	if rel == "" {
		return "", fmt.Errorf("%w: empty path; pass the file's path relative to the brain directory", ErrInvalidPath)
	}
	p := strings.ReplaceAll(rel, `\`, "/")
	if strings.HasPrefix(p, "/") || hasDrivePrefix(p) {
		return "", fmt.Errorf("%w %q: absolute path; pass the path relative to the brain directory", ErrInvalidPath, rel)
	}
	if strings.HasSuffix(p, "/") {
		return "", fmt.Errorf("%w %q: names a directory; pass a .md file", ErrInvalidPath, rel)
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return "", fmt.Errorf("%w %q: \"..\" leaves the brain directory; pass a path inside it", ErrInvalidPath, rel)
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return "", fmt.Errorf("%w %q: no file name; pass a .md file", ErrInvalidPath, rel)
	}
	last := segs[len(segs)-1]
	if len(last) < 3 || !strings.EqualFold(last[len(last)-3:], ".md") {
		return "", fmt.Errorf("%w %q: not a .md file; only markdown files become pages", ErrInvalidPath, rel)
	}
	segs[len(segs)-1] = last[:len(last)-3]
	if segs[len(segs)-1] == "" {
		return "", fmt.Errorf("%w %q: the file name before \".md\" is empty; rename the file", ErrInvalidPath, rel)
	}

	out := make([]string, len(segs))
	for i, s := range segs {
		clean := slugSegment(s)
		if clean == "" {
			return "", fmt.Errorf("%w %q: segment %q has no letters or digits; rename it", ErrInvalidPath, rel, s)
		}
		out[i] = clean
	}
	slug := strings.Join(out, "/")
	if len(slug) > MaxSlugLen {
		return "", fmt.Errorf("%w %q: slug is %d bytes, the limit is %d; use a shorter path", ErrInvalidPath, rel, len(slug), MaxSlugLen)
	}
	if !ValidSlug(slug) {
		// Unreachable by construction; kept so a future change to the
		// cleaning rules cannot hand the database a slug it rejects.
		return "", fmt.Errorf("%w %q: derived slug %q does not match %s; rename the file", ErrInvalidPath, rel, slug, SlugPattern)
	}
	return slug, nil
}

// hasDrivePrefix recognises Windows absolute paths such as "C:/notes/a.md".
func hasDrivePrefix(p string) bool {
	if len(p) < 3 || p[1] != ':' || p[2] != '/' {
		return false
	}
	c := p[0] | 0x20
	return c >= 'a' && c <= 'z'
}

// slugSegment lower-cases ASCII letters, turns everything outside
// [a-z0-9._-] into "-", collapses "-" runs, and trims the segment so it
// starts with a letter or digit (SlugPattern requires it) and does not end
// in "-".
func slugSegment(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	lastDash := false
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		default:
			r = '-'
		}
		if r == '-' {
			if lastDash {
				continue
			}
			lastDash = true
		} else {
			lastDash = false
		}
		b.WriteRune(r)
	}
	out := strings.TrimLeft(b.String(), "-._")
	return strings.TrimRight(out, "-")
}
