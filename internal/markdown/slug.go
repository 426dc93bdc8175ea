package markdown

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// SlugPattern is the shape of every stored slug: '/'-separated segments
// of letters, marks, digits and symbols (emoji) of any script and of '.',
// '_', '+' and '-', each segment starting with a letter, digit or symbol.
// ValidSlug also requires the slug to be NFC-normalised and lower case
// (every rune its own Unicode lower case), which a regular expression cannot
// say; the pages table's CHECK is looser still (see sql/008), so a slug
// ValidSlug accepts is never rejected there.
const SlugPattern = `^` + slugSeg + `(/` + slugSeg + `)*$`

const slugSeg = `[\p{L}\p{N}\p{So}][\p{L}\p{M}\p{N}\p{So}._+-]*`

// MaxSlugLen is the longest slug in bytes (not characters), matching the SQL
// CHECK. A path whose slug would be longer is shortened stably (see
// SlugFromPath).
const MaxSlugLen = 512

// SuffixLen is how many hex digits of SHA-256 a collision or shortening
// suffix carries.
const SuffixLen = 8

// ErrInvalidPath reports a file path that cannot be turned into a slug.
var ErrInvalidPath = errors.New("invalid path")

// ErrInvalidSlug reports a slug that does not satisfy SlugPattern or MaxSlugLen.
var ErrInvalidSlug = errors.New("invalid slug")

// slugRE is compiled once and only read afterwards.
var slugRE = regexp.MustCompile(SlugPattern)

// ValidSlug reports whether s can be stored as a page slug: it matches
// SlugPattern, is at most MaxSlugLen bytes, is NFC and is lower case.
func ValidSlug(s string) bool {
	if len(s) > MaxSlugLen || !utf8.ValidString(s) || !slugRE.MatchString(s) {
		return false
	}
	for _, r := range s {
		if unicode.ToLower(r) != r {
			return false
		}
	}
	return norm.NFC.IsNormalString(s)
}

// NormalizeSlug is what a command does to a slug typed by a person before
// looking it up: NFC, so a slug typed on a system that composes characters
// differently (macOS file names are NFD) still matches the stored one, and
// lower case by the same Unicode rules as SlugFromPath, since no stored slug
// has upper case ("People/Alice" finds "people/alice").
func NormalizeSlug(s string) string { return norm.NFC.String(strings.ToLower(norm.NFC.String(s))) }

// SlugFromPath derives a slug from a markdown file's path relative to the
// brain directory: "People/Alice Smith.md" becomes "people/alice-smith",
// "東京/Café ünïcode.md" becomes "東京/café-ünïcode". Both "/" and "\"
// separate segments; "" and "." segments are ignored.
//
// Each segment is NFC-normalised and lower-cased by Unicode rules; letters,
// combining marks, digits and symbols (emoji) of every script are kept
// (not the specials U+FFF0-U+FFFF, such as U+FFFD, which the CHECK refuses), as
// are '.', '_' and '+' ("C++.md" is "c++"); invisible format characters
// (zero-width joiners, bidi controls, soft hyphens) are dropped; anything
// else (spaces, other punctuation) separates words with one '-'. A segment
// left with nothing (such as "!!!") becomes "x" and the first SuffixLen hex
// digits of the SHA-256 of the segment. A slug longer than MaxSlugLen bytes
// is cut at a character boundary and ends in "-" and SuffixLen hex digits of
// the SHA-256 of the full slug, so it is stable and distinct from its
// neighbours.
func SlugFromPath(rel string) (string, error) {
	if rel == "" {
		return "", fmt.Errorf("%w: empty path; pass the file's path relative to the brain directory", ErrInvalidPath)
	}
	if !utf8.ValidString(rel) {
		return "", fmt.Errorf("%w %q: the name is not UTF-8; rename the file", ErrInvalidPath, rel)
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
			clean = "x" + shortHash(s)
		}
		out[i] = clean
	}
	slug := strings.Join(out, "/")
	if len(slug) > MaxSlugLen {
		// Keyed by the full slug, not the path, so a collision suffix
		// (keyed by the path) always changes a shortened slug.
		slug = withSuffix(slug, slug)
	}
	if !ValidSlug(slug) {
		// Unreachable by construction (the fuzz test holds it so); kept so a
		// future change to the cleaning rules cannot hand the database a
		// slug it rejects.
		return "", fmt.Errorf("%w %q: derived slug %q is not valid; rename the file", ErrInvalidPath, rel, slug)
	}
	return slug, nil
}

// SuffixSlug is the slug a file gets when another file already holds slug:
// slug, "-" and the first SuffixLen hex digits of the SHA-256 of rel (the
// file's '/'-separated path relative to the imported directory, byte for
// byte), shortened like SlugFromPath when it would pass MaxSlugLen. It
// depends only on slug and rel, so it is the same on every import.
func SuffixSlug(slug, rel string) string { return withSuffix(slug, rel) }

// withSuffix appends "-" and shortHash(key) to s, first cutting s at a
// character boundary so the result fits in MaxSlugLen bytes.
func withSuffix(s, key string) string {
	suffix := "-" + shortHash(key)
	if room := MaxSlugLen - len(suffix); len(s) > room {
		s = cutSlug(s, room)
	}
	return s + suffix
}

// cutSlug returns the longest prefix of s of at most n bytes that ends on a
// normalisation boundary (so it stays NFC and no mark loses its base), with
// trailing separators removed so a suffix can follow.
func cutSlug(s string, n int) string {
	cut := n
	for cut > 0 && (!utf8.RuneStart(s[cut]) || !norm.NFC.PropertiesString(s[cut:]).BoundaryBefore()) {
		cut--
	}
	out := strings.TrimRight(s[:cut], "-/")
	if out == "" {
		return "x"
	}
	return out
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:SuffixLen]
}

// hasDrivePrefix recognises Windows absolute paths such as "C:/notes/a.md".
func hasDrivePrefix(p string) bool {
	if len(p) < 3 || p[1] != ':' || p[2] != '/' {
		return false
	}
	c := p[0] | 0x20
	return c >= 'a' && c <= 'z'
}

// SuggestSlug is the slug a file named name + ".md" would import as, for a
// name a person typed that is not a slug. ok is false when that slug is no
// name to suggest: the path is refused, or a segment has nothing a slug
// keeps ("-", "!!!") and would become a hash such as "x3973e022".
func SuggestSlug(name string) (slug string, ok bool) {
	name = fileName(name)
	for _, seg := range strings.Split(name, "/") {
		if seg != "" && seg != "." && slugSegment(seg) == "" {
			return "", false
		}
	}
	slug, err := SlugFromPath(name + ".md")
	return slug, err == nil
}

// FileSlug is the slug of a file found at rel ('/'-separated) by walking a
// folder: SlugFromPath, except that where '/' separates paths a '\' in a
// name is a character like any punctuation ("back\slash.md" is
// back-slash), not a folder, which would take the slug of back/slash.md.
func FileSlug(rel string) (string, error) { return SlugFromPath(fileName(rel)) }

func fileName(rel string) string {
	if filepath.Separator == '/' {
		return strings.ReplaceAll(rel, `\`, "-")
	}
	return rel
}

// slugSegment cleans one path segment (see SlugFromPath). Lower-casing can
// decompose (U+0130 becomes "i" and a combining dot) and dropping format
// characters can let neighbours compose, so it repeats until stable.
func slugSegment(s string) string {
	for i := 0; i < 4; i++ {
		next := cleanSegment(s)
		if next == s {
			break
		}
		s = next
	}
	return s
}

func cleanSegment(s string) string {
	s = norm.NFC.String(strings.ToLower(norm.NFC.String(s)))
	var b strings.Builder
	b.Grow(len(s))
	lastDash := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Cf, r):
			continue // invisible: joiners, bidi controls, soft hyphens
		case r == '-' || !keptRune(r):
			if lastDash || b.Len() == 0 {
				continue
			}
			lastDash = true
			b.WriteByte('-')
			continue
		}
		if b.Len() == 0 && !startRune(r) {
			continue // a segment starts with a letter, digit or symbol
		}
		lastDash = false
		b.WriteRune(unicode.ToLower(r))
	}
	return norm.NFC.String(strings.TrimRight(b.String(), "-"))
}

// keptRune reports runes a slug segment may hold.
func keptRune(r rune) bool {
	return r == '.' || r == '_' || r == '+' || startRune(r) || unicode.IsMark(r)
}

// startRune reports runes a slug segment may start with.
func startRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return storableRune(r) && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.So, r))
}

// storableRune reports whether a rune at or above U+0080 is one the CHECKs
// of brain.pages keep in slugs (sql/008) and types (sql/021): not a C1
// control, a no-break or other space, the soft hyphen or a special
// (U+FFF0-U+FFFF, where the replacement character U+FFFD is a symbol).
func storableRune(r rune) bool {
	return !(r < 0xA1 || r == 0xAD || r == 0x1680 || r >= 0x2000 && r <= 0x200F || r >= 0x2028 && r <= 0x202F ||
		r >= 0x205F && r <= 0x206F || r == 0x3000 || r == 0xFEFF || r >= 0xFFF0 && r <= 0xFFFF)
}
