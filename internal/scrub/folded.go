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
// ("ｇｈｐ＿...", "４１１１...") and the ideographic space read as ASCII,
// URL escapes of printable ASCII ("password%3Dhunter2") decoded. A
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

// folded returns s without format characters, with full-width ASCII
// forms folded and URL escapes decoded, and for each byte of it the offset in s of the rune it
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
		case r == '%' && i+2 < len(s) && pctByte(s[i+1], s[i+2]) != 0:
			// URL-encoded text ("password%3Dhunter2", "card%204111..."):
			// the byte it stands for.
			b = append(b, pctByte(s[i+1], s[i+2]))
			orig = append(orig, i)
			size = 3
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
	for i, r := range s {
		if r >= 0x80 && (unicode.Is(unicode.Cf, r) || r >= 0xFF01 && r <= 0xFF5E || r == 0x3000) {
			return true
		}
		if r == '%' && i+2 < len(s) && pctByte(s[i+1], s[i+2]) != 0 {
			return true
		}
	}
	return false
}

// pctByte is the printable ASCII byte %hi lo encodes, or 0.
func pctByte(hi, lo byte) byte {
	h, ok1 := hexVal(hi)
	l, ok2 := hexVal(lo)
	if !ok1 || !ok2 {
		return 0
	}
	if c := h<<4 | l; c >= 0x20 && c <= 0x7e {
		return c
	}
	return 0
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
