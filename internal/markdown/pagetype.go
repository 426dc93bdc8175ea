package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxTypeLen is the longest page type in characters, matching the CHECK of
// brain.pages (sql/021).
const MaxTypeLen = 64

// NormalizeType maps a free-form type (frontmatter "Meeting Notes", a
// folder name "Café" or "東京") onto the shape brain.pages accepts:
// NFC, lower case by Unicode rules, letters, marks, digits and symbols
// (emoji) of every script kept, with '_' and '-'; invisible format
// characters (zero-width joiners, bidi controls) dropped; anything else
// (spaces, other punctuation) separates words with one '-'. It starts with
// a letter, digit or symbol and holds at most MaxTypeLen characters; a type
// left with nothing is "page". Commands filtering by type (`list --type`,
// MCP list_pages) normalise what they are given the same way, so
// "Meeting Notes" finds "meeting-notes".
func NormalizeType(t string) string {
	if out := TypeOf(t); out != "" {
		return out
	}
	return "page"
}

// TypeOf is NormalizeType without its fallback: "" when t holds no letter,
// digit or symbol ("???"), so a filter by such a type matches nothing
// instead of every "page".
func TypeOf(t string) string {
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "-")
	}
	t = norm.NFC.String(strings.ToLower(norm.NFC.String(t)))
	var sb strings.Builder
	n := 0
	dash := false
	for _, r := range t {
		if n >= MaxTypeLen {
			break
		}
		switch {
		case unicode.Is(unicode.Cf, r):
			continue
		case typeRune(r):
			if sb.Len() == 0 && (r == '_' || r == '-' || unicode.IsMark(r)) {
				continue
			}
			sb.WriteRune(r)
			n++
			dash = r == '-'
		default:
			if sb.Len() > 0 && !dash {
				sb.WriteByte('-')
				n++
				dash = true
			}
		}
	}
	// Dropping a format character can leave a letter and its combining
	// mark apart ("e\u200d\u0301"): compose again.
	return strings.TrimRight(norm.NFC.String(sb.String()), "-_")
}

// typeRune reports whether r may stand in a type: what a slug segment may
// hold (startRune, marks) but for '.' and '+', which the type CHECK
// refuses, and with '-'.
func typeRune(r rune) bool {
	return r == '_' || r == '-' || startRune(r) || unicode.IsMark(r) && storableRune(r)
}
