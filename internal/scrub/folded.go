package scrub

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/pgbrain/pgbrain/internal/pii"
)

// find is what Scrub redacts in s: pii.FindForRedaction's matches in s,
// and in s as the detectors would read it without the characters that
// only disguise text: invisible format characters (a zero-width space
// inside "pass\u200bword=..." or a card number) dropped, full-width forms
// ("ｇｈｐ＿...", "４１１１...") and the ideographic space read as ASCII. A
// match in that reading is mapped back onto the runes of s it came from.
// Sorted by start, not overlapping.
func find(s string) []pii.Match {
	ms := pii.FindForRedaction(s)
	view, orig, ok := folded(s)
	if !ok {
		return ms
	}
	for _, m := range pii.FindForRedaction(view) {
		end := len(s)
		if m.End < len(view) {
			end = orig[m.End]
		}
		ms = append(ms, pii.Match{Start: orig[m.Start], End: end, Kind: m.Kind, Category: m.Category})
	}
	slices.SortFunc(ms, func(a, b pii.Match) int { return a.Start - b.Start })
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && m.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}

// folded returns s without format characters and with full-width ASCII
// forms folded, and for each byte of it the offset in s of the rune it
// came from; ok is false when s holds nothing to fold. Invalid UTF-8 stays
// as it is.
func folded(s string) (view string, orig []int, ok bool) {
	if !needsFolding(s) {
		return "", nil, false
	}
	b := make([]byte, 0, len(s))
	orig = make([]int, 0, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[i])
			orig = append(orig, i)
		case unicode.Is(unicode.Cf, r):
		case r >= 0xFF01 && r <= 0xFF5E:
			b = append(b, byte(r-0xFEE0))
			orig = append(orig, i)
		case r == 0x3000:
			b = append(b, ' ')
			orig = append(orig, i)
		default:
			for k := range size {
				b = append(b, s[i+k])
				orig = append(orig, i)
			}
		}
		i += size
	}
	return string(b), orig, true
}

func needsFolding(s string) bool {
	for _, r := range s {
		if r >= 0x80 && (unicode.Is(unicode.Cf, r) || r >= 0xFF01 && r <= 0xFF5E || r == 0x3000) {
			return true
		}
	}
	return false
}
